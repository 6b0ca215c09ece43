import type { DigestCandidate } from "../classify/classify-thread";
import type { DigestCall } from "./digest-call";
import { toRequest } from "./group-requests";
import type { JobContext } from "./job-context";
import { type DigestStopReason, PARTIAL_REASONS, SKIP_REASONS } from "./outcome";

/**
 * Whether the next call may start, decided in request order, one call at a time, before it
 * starts. The limits are checked in a fixed order, and the first one reached stops the
 * stage:
 *
 * 1. `call_cap`: `maxCallsPerJob` calls were admitted already;
 * 2. `out_of_time`: the function's remaining time is below one call's timeout
 *    (`digestCallTimeoutMs`) plus the time kept for the commit (`commitReserveMs`);
 * 3. `lease_lost`: this run no longer holds the thread's lease (it lapsed by the store's
 *    clock, or another run took it over): the new holder pays for the pass, not this run;
 * 4. `budget`: the call's estimated cost (an upper bound) does not fit the org's daily
 *    budget. Reserved atomically in the ledger while every earlier call of the pass still
 *    holds its own reservation (the stage settles them all at its end), so for a given
 *    ledger the stage stops at the same call whatever the concurrency or completion order.
 *
 * @returns the admitted call, or the reason the stage stops here.
 */
export async function admitCall(
  context: JobContext,
  group: readonly DigestCandidate[],
  day: string,
): Promise<DigestCall | DigestStopReason | typeof SKIP_REASONS.leaseLost> {
  const { job, ports, options, stats } = context;
  if (stats.calls >= options.maxCallsPerJob) return PARTIAL_REASONS.callCap;
  const remainingMs = ports.remainingTimeMs?.() ?? Number.POSITIVE_INFINITY;
  if (remainingMs < options.digestCallTimeoutMs + options.commitReserveMs) return PARTIAL_REASONS.outOfTime;
  if (!(await ports.store.holdsLease(job.orgId, job.threadId, context.runId))) return SKIP_REASONS.leaseLost;
  const request = toRequest(group);
  const estimate = ports.digester.estimateCostUsd?.(request) ?? 0;
  if (estimate > 0) {
    // Held as long as the run's lease: a run that dies leaves no reservation past it.
    const reservation = await ports.store.reserveSpend(
      job.orgId,
      day,
      estimate,
      options.dailyBudgetUsd,
      options.leaseDurationMs,
    );
    if (!reservation.ok) return PARTIAL_REASONS.budget;
  }
  stats.calls++;
  return { group, request, reservedUsd: estimate, costUsd: 0, rows: [] };
}
