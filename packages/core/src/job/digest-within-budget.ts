import type { DigestCandidate } from "../classify/classify-thread";
import { DigestModelError } from "../errors";
import type { DigestRequest, DigestResult, DigestRow } from "../ports";
import { digestedRow } from "./build-rows";
import { groupRequests, toRequest } from "./group-requests";
import type { JobContext } from "./job-context";
import { type DigestStopReason, PARTIAL_REASONS } from "./outcome";

/** What the digest stage produced. */
export interface DigestStageResult {
  readonly rows: DigestRow[];
  /** Set when the call cap or the budget left candidates for the next pass. */
  readonly stopReason?: DigestStopReason;
}

/** A request cleared to run, with the budget it reserved. */
interface AdmittedRequest {
  readonly request: DigestRequest;
  readonly reservedUsd: number;
}

/**
 * Stage 3, the digests: the pages of one document per call, within `maxCallsPerJob` and the
 * org's daily budget (reserved before each call, settled after it, so concurrent jobs never
 * overspend). The first limit reached stops the stage; what it leaves is deferred to the
 * next pass. A failed call defers its pages and the stage goes on.
 */
export async function digestWithinBudget(
  context: JobContext,
  toDigest: readonly DigestCandidate[],
): Promise<DigestStageResult> {
  const day = utcDay(context.ports.clock.now());
  const rows: DigestRow[] = [];
  let stopReason: DigestStopReason | undefined;
  for (const group of groupRequests(toDigest, context.options.maxPagesPerCall)) {
    const admitted = stopReason ? stopReason : await admit(context, group, day);
    if (typeof admitted === "string") {
      stopReason = admitted;
      context.stats.deferred += group.length;
      continue;
    }
    rows.push(...(await digestGroup(context, group, admitted, day)));
  }
  return { rows, ...(stopReason ? { stopReason } : {}) };
}

/** Clears one request against the call cap, then reserves its estimated cost. */
async function admit(
  context: JobContext,
  group: readonly DigestCandidate[],
  day: string,
): Promise<AdmittedRequest | DigestStopReason> {
  const { job, ports, options, stats } = context;
  if (stats.calls >= options.maxCallsPerJob) return PARTIAL_REASONS.callCap;
  const request = toRequest(group);
  const estimate = ports.digester.estimateCostUsd?.(request) ?? 0;
  if (estimate > 0) {
    const reservation = await ports.store.reserveSpend(job.orgId, day, estimate, options.dailyBudgetUsd);
    if (!reservation.ok) return PARTIAL_REASONS.budget;
  }
  return { request, reservedUsd: estimate };
}

/** One digest call; settles its reservation whatever happens, and renders its pages to rows. */
async function digestGroup(
  context: JobContext,
  group: readonly DigestCandidate[],
  { request, reservedUsd }: AdmittedRequest,
  day: string,
): Promise<DigestRow[]> {
  const { job, ports, stats } = context;
  const settle = async (actualUsd: number) => {
    if (reservedUsd > 0) await ports.store.settleSpend(job.orgId, day, reservedUsd, actualUsd);
    stats.costUsd += actualUsd;
  };
  stats.calls++;
  let result: DigestResult;
  try {
    result = await ports.digester.digest(request);
  } catch (error) {
    // A response that arrived but broke the contract was still billed.
    await settle(error instanceof DigestModelError ? error.costUsd : 0);
    if (!(error instanceof DigestModelError)) throw error;
    stats.failedCalls++;
    stats.deferred += group.length;
    return [];
  }
  await settle(result.costUsd);
  if (result.fallback) stats.fallbacks += result.fallback.pages;
  return pageRows(context, group, request, result);
}

/** The rows of a call's pages: matched by tool call id, else by position. */
function pageRows(
  context: JobContext,
  group: readonly DigestCandidate[],
  request: DigestRequest,
  result: DigestResult,
): DigestRow[] {
  const { job, options, stats } = context;
  const rows: DigestRow[] = [];
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
  return rows;
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the spend ledger's key. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
