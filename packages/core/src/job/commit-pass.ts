import type { DigestRow } from "../ports";
import { type JobContext, recordMetric, recordPass, skipped } from "./job-context";
import {
  type DigestJobOutcome,
  type DigestStopReason,
  PARTIAL_REASONS,
  SKIP_REASONS,
  type SkipReason,
} from "./outcome";

/**
 * Stage 4, the commit: applies the `minCharsPerPass` threshold, upserts the rows
 * (idempotent: unique per org, thread and tool call id), records the pass and emits the
 * job's metrics.
 */
export async function commitPass(
  context: JobContext,
  rows: readonly DigestRow[],
  stopReason: DigestStopReason | undefined,
): Promise<DigestJobOutcome> {
  const { job, ports, options, stats } = context;
  stats.charsSaved = rows.reduce((sum, row) => sum + row.originalChars - row.digest.length, 0);
  // Paid digests are kept even below minCharsPerPass: dropping them would pay for the
  // same pages again next pass; the prompt-cache rule yields to money already spent.
  if (stats.charsSaved < options.minCharsPerPass && stats.costUsd === 0) {
    // A pass the budget or the clock stopped says so (the sweep re-enqueues `budget` skips,
    // and a turn left uncovered as `active_since_pass`).
    const reason = skipReason(stopReason);
    await recordPass(context, "skipped", reason, stopReason === undefined && stats.failedCalls === 0);
    stats.charsSaved = 0;
    return skipped(context, reason);
  }
  stats.digestsWritten = await ports.store.upsertDigests(job.orgId, rows);
  const reason = stopReason ?? (stats.failedCalls > 0 ? PARTIAL_REASONS.digestFailed : undefined);
  const status = reason ? "partial" : "done";
  await recordPass(context, status, reason ?? null, status === "done");
  emitMetrics(context);
  return { status, ...(reason ? { reason } : {}), ...stats };
}

function skipReason(stopReason: DigestStopReason | undefined): SkipReason {
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
