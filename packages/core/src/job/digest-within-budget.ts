import type { DigestCandidate } from "../classify/classify-thread";
import type { DigestRow } from "../ports";
import { admitCall } from "./admit-call";
import { type DigestCall, runDigestCall } from "./digest-call";
import { groupRequests } from "./group-requests";
import type { JobContext } from "./job-context";
import type { DigestStopReason, SKIP_REASONS } from "./outcome";
import { reportFallbacks } from "./report-fallbacks";

/** Why the digest stage stopped before every candidate had its call. */
export type StageStop = DigestStopReason | typeof SKIP_REASONS.leaseLost;

/** What the digest stage produced. */
export interface DigestStageResult {
  /** In request order (thread order per document), whatever order the calls ended in. */
  readonly rows: DigestRow[];
  /**
   * Set when a limit left candidates for the next pass, or to `lease_lost` when the run
   * found before a call that it no longer holds the thread's lease (its rows must not be written).
   */
  readonly stopReason?: StageStop;
}

/**
 * Stage 3, the digests: the pages of one document per call, at most `digestConcurrency`
 * calls in flight. Calls are admitted in request order, one at a time, within
 * `maxCallsPerJob`, the org's daily budget and this run's lease ({@link admitCall}); the first limit reached
 * stops the stage and what it leaves is deferred to the next pass. A failed call defers its
 * pages and the stage goes on. Every reservation is settled at the end, however the stage
 * ends; an error that is not a digest failure is rethrown after that. Then the fallback
 * metrics are reported ({@link reportFallbacks}).
 */
export async function digestWithinBudget(
  context: JobContext,
  toDigest: readonly DigestCandidate[],
): Promise<DigestStageResult> {
  const day = utcDay(context.ports.clock.now());
  const calls: DigestCall[] = [];
  // Stryker disable next-line ArrayDeclaration: equivalent — Promise.all passes a value that is no promise through at once
  const running: Promise<void>[] = [];
  let stopReason: StageStop | undefined;
  try {
    stopReason = await startCalls(context, toDigest, day, { calls, running });
  } finally {
    await Promise.all(running);
    await settleCalls(context, calls, day);
  }
  const failed = calls.find((call) => call.error !== undefined);
  if (failed) throw failed.error;
  reportFallbacks(context);
  return { rows: calls.flatMap((call) => call.rows), ...(stopReason ? { stopReason } : {}) };
}

/** Admits and starts calls in request order while a slot is free; returns why it stopped early. */
async function startCalls(
  context: JobContext,
  toDigest: readonly DigestCandidate[],
  day: string,
  { calls, running }: { calls: DigestCall[]; running: Promise<void>[] },
): Promise<StageStop | undefined> {
  const inFlight = new Set<Promise<void>>();
  const groups = groupRequests(toDigest, context.options.maxPagesPerCall);
  for (const [index, group] of groups.entries()) {
    while (inFlight.size >= context.options.digestConcurrency) await Promise.race(inFlight);
    // A call that hit an unexpected error fails the job: start nothing more.
    const broken = calls.some((call) => call.error !== undefined);
    const admitted = broken ? undefined : await admitCall(context, group, day);
    if (typeof admitted !== "object") {
      for (const left of groups.slice(index)) context.stats.deferred += left.length;
      return admitted;
    }
    calls.push(admitted);
    const done = runDigestCall(context, admitted).finally(() => inFlight.delete(done));
    inFlight.add(done);
    running.push(done);
  }
  return undefined;
}

/** Releases each call's reservation and books what it actually cost. */
async function settleCalls(context: JobContext, calls: readonly DigestCall[], day: string): Promise<void> {
  const { job, ports, stats } = context;
  for (const call of calls) {
    if (call.reservedUsd > 0) await ports.store.settleSpend(job.orgId, day, call.reservedUsd, call.costUsd);
    stats.costUsd += call.costUsd;
  }
}

/** The UTC calendar day of an instant, `YYYY-MM-DD`: the spend ledger's key. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
