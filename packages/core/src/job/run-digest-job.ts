import {
  type DigestMap,
  KEEP_RULE_DEFAULTS,
  messageContentSha256,
  resolveToolPolicy,
  type ToolPolicy,
  type ToolPolicyInput,
} from "@context-cleaner/assembler";
import { type DigestRowInput, utcDay } from "@context-cleaner/db";
import type { CheckpointReader } from "../checkpoints/checkpoint-reader";
import { CANDIDATE_CATEGORIES, classifyThread, type DigestCandidate } from "../classify/classify-thread";
import { DigestModelError } from "../errors";
import type { DigestStore, TurnLock } from "../job-ports";
import type { Clock, DigestModel, MetricsSink } from "../ports";
import { DIGEST_RENDER_DEFAULTS } from "../render/render-digest";
import { digestedRow, digestRequests, reusedRow, supersededSearchRow, toRequest } from "./build-rows";
import { type DigestJobPayload, parseDigestJobPayload } from "./payload";

/** Defaults of {@link runDigestJob} (DESIGN §7–§8). */
export const DIGEST_JOB_DEFAULTS = {
  /** Below this much raw tool output a thread is not worth a pass. */
  triggerChars: 120_000,
  /** Digest calls per job; the rest waits for the next pass. */
  maxCallsPerJob: 12,
  /** Per-org daily digest budget in USD. */
  dailyBudgetUsd: 5,
  /** A pass writes its rows only when they save at least this many chars (prompt-cache awareness). */
  minCharsPerPass: 20_000,
  /** Results shorter than this are not worth a digest call (the digest would not be shorter). */
  minCandidateChars: 2_000,
  /** Pages of one document sent in one digest call at most. */
  maxPagesPerCall: 8,
  /** How long a job skipped for the turn lock waits before it is retried. */
  lockRequeueDelaySeconds: 60,
  recencyKeepExchanges: KEEP_RULE_DEFAULTS.recencyKeepExchanges,
  digestCharCap: DIGEST_RENDER_DEFAULTS.digestCharCap,
  digestCharCapMax: DIGEST_RENDER_DEFAULTS.digestCharCapMax,
  disabled: false,
} as const;

export type DigestJobOptions = {
  -readonly [key in keyof typeof DIGEST_JOB_DEFAULTS]: (typeof DIGEST_JOB_DEFAULTS)[key] extends boolean
    ? boolean
    : number;
};

export interface DigestJobDependencies {
  checkpoints: CheckpointReader;
  store: DigestStore;
  digester: DigestModel;
  clock: Clock;
  lock?: TurnLock;
  metrics?: MetricsSink;
  policy?: ToolPolicy | ToolPolicyInput;
  options?: Partial<DigestJobOptions>;
}

export const SKIP_REASONS = {
  disabled: "disabled",
  belowTrigger: "below_trigger",
  nothingNew: "nothing_new",
  turnLock: "turn_lock",
  noCheckpoint: "no_checkpoint",
  belowMinChars: "below_min_chars",
  budget: "budget",
} as const;
export type SkipReason = (typeof SKIP_REASONS)[keyof typeof SKIP_REASONS];

export interface DigestJobStats {
  digestsWritten: number;
  calls: number;
  costUsd: number;
  reused: number;
  stale: number;
  fallbacks: number;
  failedCalls: number;
  /** Candidates left for the next pass (call cap or budget). */
  deferred: number;
  charsSaved: number;
  droppedBullets: number;
}

export type DigestJobOutcome =
  | ({ status: "skipped"; reason: SkipReason; requeueAfterSeconds?: number } & DigestJobStats)
  | ({ status: "done" | "partial"; reason?: "call_cap" | "budget" | "digest_failed" } & DigestJobStats);

function emptyStats(): DigestJobStats {
  return {
    digestsWritten: 0,
    calls: 0,
    costUsd: 0,
    reused: 0,
    stale: 0,
    fallbacks: 0,
    failedCalls: 0,
    deferred: 0,
    charsSaved: 0,
    droppedBullets: 0,
  };
}

/**
 * One digest pass over a thread (DESIGN §8 steps 1–7): kill switch, trigger, coalescing,
 * turn-lock peek, read-only checkpoint read, classification, deterministic stubs, digests
 * (hash reuse first, then calls bounded by `maxCallsPerJob` and the org's daily budget),
 * idempotent upsert and the pass record. Running it twice writes the same rows and
 * spends nothing more.
 *
 * @throws {InvalidPayloadError} when the payload is not a valid post-turn event.
 */
export async function runDigestJob(
  payload: unknown,
  dependencies: DigestJobDependencies,
): Promise<DigestJobOutcome> {
  const options: DigestJobOptions = { ...DIGEST_JOB_DEFAULTS, ...dependencies.options };
  const job = parseDigestJobPayload(payload);
  const { store, clock } = dependencies;
  const started = clock.now().getTime();
  const stats = emptyStats();
  const metric = (
    name: string,
    value: number,
    unit: "Count" | "Milliseconds" | "None" = "Count",
    dimensions?: Record<string, string>,
  ) => dependencies.metrics?.record({ name, value, unit, ...(dimensions ? { dimensions } : {}) });
  const skip = (reason: SkipReason, extra: { requeueAfterSeconds?: number } = {}): DigestJobOutcome => {
    metric("SkippedJobs", 1, "Count", { reason });
    return { status: "skipped", reason, ...extra, ...stats };
  };

  if (options.disabled) return skip(SKIP_REASONS.disabled);
  if (job.rawToolChars < options.triggerChars) return skip(SKIP_REASONS.belowTrigger);

  const turnEndedAt = new Date(job.turnEndedAt);
  const pass = await store.getPass(job.orgId, job.threadId);
  if (pass?.coveredTurnEndedAt && pass.coveredTurnEndedAt >= turnEndedAt) {
    return skip(SKIP_REASONS.nothingNew);
  }
  const record = (
    status: "done" | "skipped" | "partial" | "failed",
    reason: string | null,
    covered: boolean,
  ) =>
    store.recordPass(job.orgId, job.threadId, {
      status,
      reason,
      ...(covered ? { coveredTurnEndedAt: turnEndedAt } : {}),
      turnEndedAt,
      rawToolChars: job.rawToolChars,
      digestsWritten: stats.digestsWritten,
      at: clock.now(),
    });

  if (await dependencies.lock?.isHeld(job.orgId, job.threadId)) {
    await record("skipped", SKIP_REASONS.turnLock, false);
    return skip(SKIP_REASONS.turnLock, { requeueAfterSeconds: options.lockRequeueDelaySeconds });
  }

  const messages = await dependencies.checkpoints.readThread(job.threadId);
  if (messages === null) {
    await record("skipped", SKIP_REASONS.noCheckpoint, false);
    return skip(SKIP_REASONS.noCheckpoint);
  }
  const policy = resolveToolPolicy(dependencies.policy);
  const existing: DigestMap = await store.loadThreadDigests(job.orgId, job.threadId);
  for (const message of messages) {
    if (message.role !== "tool") continue;
    const row = existing.get(message.toolCallId);
    if (row && row.contentSha256 !== messageContentSha256(message)) stats.stale++;
  }
  const classification = classifyThread(messages, policy, {
    recencyKeepExchanges: options.recencyKeepExchanges,
  });
  const pending = classification.candidates.filter(
    (candidate) => existing.get(candidate.message.toolCallId)?.contentSha256 !== candidate.contentSha256,
  );

  const rows: DigestRowInput[] = [];
  const toDigest: DigestCandidate[] = [];
  const reusableByHash = await store.findReusableDigests(
    job.orgId,
    pending
      .filter((candidate) => candidate.category !== CANDIDATE_CATEGORIES.supersededSearch)
      .map((candidate) => candidate.contentSha256),
  );
  for (const candidate of pending) {
    if (candidate.category === CANDIDATE_CATEGORIES.supersededSearch) {
      const row = supersededSearchRow(job.threadId, candidate);
      if (row) rows.push(row);
      continue;
    }
    const reused = reusedRow(job.threadId, candidate, reusableByHash.get(candidate.contentSha256));
    if (reused) {
      rows.push(reused);
      stats.reused++;
      continue;
    }
    if (candidate.originalChars >= options.minCandidateChars) toDigest.push(candidate);
  }

  // Prompt-cache awareness: change the prefix only for a pass that is worth it.
  const estimatedSavings =
    rows.reduce((sum, row) => sum + row.originalChars - row.digest.length, 0) +
    toDigest.reduce(
      (sum, candidate) => sum + Math.max(0, candidate.originalChars - options.digestCharCap),
      0,
    );
  if (estimatedSavings < options.minCharsPerPass) {
    await record("skipped", SKIP_REASONS.belowMinChars, true);
    return skip(SKIP_REASONS.belowMinChars);
  }

  let stopReason: "call_cap" | "budget" | undefined;
  const requests = digestRequests(toDigest, options.maxPagesPerCall);
  const day = utcDay(clock.now());
  for (const group of requests) {
    if (stats.calls >= options.maxCallsPerJob) {
      stopReason = "call_cap";
      stats.deferred += group.length;
      continue;
    }
    if (stopReason === "budget") {
      stats.deferred += group.length;
      continue;
    }
    const request = toRequest(group);
    const estimate = dependencies.digester.estimateCostUsd?.(request) ?? 0;
    if (estimate > 0) {
      const reservation = await store.reserveSpend(job.orgId, day, estimate, options.dailyBudgetUsd);
      if (!reservation.ok) {
        stopReason = "budget";
        stats.deferred += group.length;
        continue;
      }
    }
    stats.calls++;
    let result: Awaited<ReturnType<DigestModel["digest"]>>;
    try {
      result = await dependencies.digester.digest(request);
    } catch (error) {
      const billed = error instanceof DigestModelError ? error.costUsd : 0;
      if (estimate > 0) await store.settleSpend(job.orgId, day, estimate, billed);
      stats.costUsd += billed;
      if (!(error instanceof DigestModelError)) throw error;
      stats.failedCalls++;
      stats.deferred += group.length;
      continue;
    }
    if (estimate > 0) await store.settleSpend(job.orgId, day, estimate, result.costUsd);
    stats.costUsd += result.costUsd;
    if (result.fallback) stats.fallbacks += result.fallback.pages;
    group.forEach((candidate, position) => {
      const page =
        result.pages.find((entry) => entry.toolCallId === candidate.message.toolCallId) ??
        result.pages[position];
      if (!page) return;
      const digested = digestedRow(job.threadId, candidate, {
        page,
        result,
        source: request.pages[position]?.content ?? "",
        pagesInCall: group.length,
        caps: { digestCharCap: options.digestCharCap, digestCharCapMax: options.digestCharCapMax },
      });
      stats.droppedBullets += digested.droppedBullets;
      if (digested.row) rows.push(digested.row);
    });
  }

  stats.charsSaved = rows.reduce((sum, row) => sum + row.originalChars - row.digest.length, 0);
  // Paid digests are kept even below minCharsPerPass: dropping them would pay for the
  // same pages again next pass; the prompt-cache rule yields to money already spent.
  if (stats.charsSaved < options.minCharsPerPass && stats.costUsd === 0) {
    // A pass the budget stopped says so (the sweep re-enqueues `budget` skips), not "below min chars".
    const reason = stopReason === "budget" ? SKIP_REASONS.budget : SKIP_REASONS.belowMinChars;
    await record("skipped", reason, stopReason === undefined && stats.failedCalls === 0);
    stats.charsSaved = 0;
    return skip(reason);
  }
  stats.digestsWritten = await store.upsertDigests(job.orgId, rows);
  const reason = stopReason ?? (stats.failedCalls > 0 ? "digest_failed" : undefined);
  const status = reason ? "partial" : "done";
  await record(status, reason ?? null, status === "done");
  metric("DigestsWritten", stats.digestsWritten);
  metric("DigestCalls", stats.calls);
  metric("DigestCostUsd", stats.costUsd, "None");
  metric("CharsSaved", stats.charsSaved);
  metric("StaleDigests", stats.stale);
  metric("JobDuration", clock.now().getTime() - started, "Milliseconds");
  return { status, ...(reason ? { reason } : {}), ...stats };
}

export type { DigestJobPayload };
