import type { DigestRow } from "../ports";
import { commitLeased, type JobContext, recordMetric, skipped } from "./job-context";
import {
  type DigestJobOutcome,
  type DigestStopReason,
  PARTIAL_REASONS,
  type RecordedSkipReason,
  SKIP_REASONS,
} from "./outcome";

/**
 * Stage 4, the commit: applies the `minCharsPerPass` threshold, then upserts the rows
 * (idempotent: unique per org, thread and tool call id) and records the pass in one step
 * fenced by this run's lease, and emits the job's metrics. A run that no longer holds the
 * lease (it lapsed, or another run took it over) writes nothing and ends `lease_lost`.
 */
export async function commitPass(
  context: JobContext,
  rows: readonly DigestRow[],
  stopReason: DigestStopReason | undefined,
): Promise<DigestJobOutcome> {
  const { options, stats } = context;
  stats.charsSaved = rows.reduce((sum, row) => sum + row.originalChars - row.digest.length, 0);
  // Paid digests are kept even below minCharsPerPass: dropping them would pay for the
  // same pages again next pass; the prompt-cache rule yields to money already spent.
  if (stats.charsSaved < options.minCharsPerPass && stats.costUsd === 0) {
    // A pass the budget or the clock stopped says so (the sweep re-enqueues `budget` skips,
    // and a turn left uncovered as `active_since_pass`).
    const reason = skipReason(stopReason);
    stats.charsSaved = 0;
    const covered = stopReason === undefined && stats.failedCalls === 0;
    if (!(await commitLeased(context, [], "skipped", reason, covered))) return leaseLost(context);
    return skipped(context, reason);
  }
  const reason = stopReason ?? (stats.failedCalls > 0 ? PARTIAL_REASONS.digestFailed : undefined);
  const status = reason ? "partial" : "done";
  if (!(await commitLeased(context, rows, status, reason ?? null, status === "done"))) {
    return leaseLost(context);
  }
  emitMetrics(context);
  return { status, ...(reason ? { reason } : {}), ...stats };
}

/**
 * The end of a run that lost its lease mid-pass: nothing was written (the new holder's rows
 * and pass record stand); what its calls cost is still counted, once.
 */
export function leaseLost(context: JobContext): DigestJobOutcome {
  context.stats.digestsWritten = 0;
  context.stats.charsSaved = 0;
  emitMetrics(context);
  return skipped(context, SKIP_REASONS.leaseLost);
}

function skipReason(stopReason: DigestStopReason | undefined): RecordedSkipReason {
  if (stopReason === PARTIAL_REASONS.budget) return SKIP_REASONS.budget;
  if (stopReason === PARTIAL_REASONS.outOfTime) return SKIP_REASONS.outOfTime;
  return SKIP_REASONS.belowMinChars;
}

function emitMetrics(context: JobContext): void {
  const { stats } = context;
  recordMetric(context, "DigestsWritten", stats.digestsWritten);
  recordMetric(context, "DigestCalls", stats.calls);
  recordMetric(context, "DigestCostUsd", stats.costUsd, "None");
  recordMetric(context, "CharsSaved", stats.charsSaved);
  // Per org: what the digests of a shadow pass would save once the org is switched on.
  if (context.mode === "shadow")
    recordMetric(context, "ShadowCharsSaved", stats.charsSaved, "Count", { orgId: context.job.orgId });
  recordMetric(context, "StaleDigests", stats.stale);
  recordMetric(
    context,
    "JobDuration",
    context.ports.clock.now().getTime() - context.startedAt,
    "Milliseconds",
  );
}
