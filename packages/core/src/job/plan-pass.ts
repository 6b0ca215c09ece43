import type { DigestMap, Message } from "@context-cleaner/assembler";
import {
  messageContentSha256,
  resolveToolPolicy,
  textProblem,
  toolCallIdProblem,
} from "@context-cleaner/assembler/internal";
import { CANDIDATE_CATEGORIES, classifyThread, type DigestCandidate } from "../classify/classify-thread";
import type { DigestRow } from "../ports";
import { checkpointBehind } from "./announced-turn";
import { reusedRow, supersededSearchRow } from "./build-rows";
import { commitLeased, type JobContext, skipped } from "./job-context";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";
import { provenanceArgs } from "./provenance-args";

/** What a pass will write without a model, and what it still has to digest. */
export interface PassPlan {
  /** Superseded-search stubs and digests reused by content hash: free rows. */
  readonly rows: DigestRow[];
  /** Candidates that need a digest call. */
  readonly toDigest: DigestCandidate[];
}

/**
 * Stage 2, the plan: reads the thread (read-only), waits while it does not show the turn
 * the event announced ({@link checkpointBehind}), counts stale digests, classifies the
 * results (keep-rules first), builds the deterministic stubs, reuses digests of the same
 * content in the org, and skips a pass that would not save `minCharsPerPass`. A skip is
 * recorded under the lease (`lease_lost`, nothing recorded, when the run no longer holds it).
 *
 * @returns the plan, or the skip outcome.
 */
export async function planPass(context: JobContext): Promise<PassPlan | DigestJobOutcome> {
  const { job, ports } = context;
  const messages = await ports.checkpoints.readThread(job.threadId);
  const waiting = checkpointBehind(context, messages);
  if (waiting) return waiting;
  if (messages === null) {
    const recorded = await commitLeased(context, [], "skipped", SKIP_REASONS.noCheckpoint, false);
    return skipped(context, recorded ? SKIP_REASONS.noCheckpoint : SKIP_REASONS.leaseLost);
  }
  const pending = await pendingCandidates(context, messages);
  const plan = await freeRows(context, pending);

  // Prompt-cache awareness: change the prefix only for a pass that is worth it.
  if (estimatedSavings(context, plan) < context.options.minCharsPerPass) {
    const recorded = await commitLeased(context, [], "skipped", SKIP_REASONS.belowMinChars, true);
    return skipped(context, recorded ? SKIP_REASONS.belowMinChars : SKIP_REASONS.leaseLost);
  }
  return plan;
}

/** The candidates whose current content has no digest yet; counts stale rows on the way. */
async function pendingCandidates(context: JobContext, messages: Message[]): Promise<DigestCandidate[]> {
  const { job, ports, options, stats } = context;
  const policy = resolveToolPolicy(options.policy);
  const existing: DigestMap = await ports.store.loadThreadDigests(job.orgId, job.threadId);
  for (const message of messages) {
    // Stryker disable next-line ConditionalExpression: equivalent — only a tool result has a toolCallId, so no other message matches a row
    if (message.role !== "tool") continue;
    const row = existing.get(message.toolCallId);
    if (row && row.contentSha256 !== messageContentSha256(message)) stats.stale++;
  }
  // After a turn ended, classify as the next turn will see the thread; inside a long turn,
  // with the wall at its latest exchanges: what the agent moved past, for its later batches.
  const classification = classifyThread(messages, policy, {
    recencyKeepExchanges: options.recencyKeepExchanges,
    wall: job.midTurn ? "mid-turn" : "next-turn",
    midTurnKeepExchanges: options.midTurnKeepExchanges,
    readOriginal: options.readOriginal,
  });
  return classification.candidates.filter(
    (candidate) =>
      isStorable(candidate) &&
      existing.get(candidate.message.toolCallId)?.contentSha256 !== candidate.contentSha256,
  );
}

/**
 * Whether the row of a candidate can be stored as the thread has it: its key and args must
 * match the thread exactly, so a value the storage would refuse or alter there (U+0000, a
 * lone surrogate, a tool call id over 500 bytes) leaves the result raw instead of failing
 * the whole pass or writing a row no assembly would match.
 */
function isStorable(candidate: DigestCandidate): boolean {
  return (
    toolCallIdProblem(candidate.message.toolCallId) === undefined &&
    textProblem(candidate.message.toolName) === undefined &&
    textProblem(provenanceArgs(candidate)) === undefined
  );
}

/** Superseded-search stubs and hash reuse; what is left (and long enough) goes to the digest stage. */
async function freeRows(context: JobContext, pending: readonly DigestCandidate[]): Promise<PassPlan> {
  const { job, ports, options, stats } = context;
  const isSearch = (candidate: DigestCandidate) =>
    candidate.category === CANDIDATE_CATEGORIES.supersededSearch;
  const reusableByHash = await ports.store.findReusableDigests(
    job.orgId,
    pending.filter((candidate) => !isSearch(candidate)).map((candidate) => candidate.contentSha256),
  );
  const plan: PassPlan = { rows: [], toDigest: [] };
  for (const candidate of pending) {
    if (isSearch(candidate)) {
      const row = supersededSearchRow(job.threadId, candidate);
      if (row) plan.rows.push(row);
      continue;
    }
    const reused = reusedRow(job.threadId, candidate, reusableByHash.get(candidate.contentSha256));
    if (reused) {
      plan.rows.push(reused);
      stats.reused++;
    } else if (candidate.originalChars >= options.minCandidateChars) {
      plan.toDigest.push(candidate);
    }
  }
  return plan;
}

/** Chars the plan would save: its free rows exactly, each digest at most its cap. */
function estimatedSavings(context: JobContext, plan: PassPlan): number {
  const cap = context.options.digestCharCap;
  return (
    plan.rows.reduce((sum, row) => sum + row.originalChars - row.digest.length, 0) +
    plan.toDigest.reduce((sum, candidate) => sum + Math.max(0, candidate.originalChars - cap), 0)
  );
}
