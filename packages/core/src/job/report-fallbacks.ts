import { type JobContext, recordMetric } from "./job-context";

/**
 * After the digest stage: how many digested pages came from the fallback digester
 * (`DigestFallbacks`) and what share of the pass's digested pages they are (`FallbackRate`).
 * A rate above `fallbackAlarmRate` is logged as a warning: a primary digester that always
 * falls back (a rejected request, a lost key) is an outage that still looks like savings.
 */
export function reportFallbacks(context: JobContext): void {
  const { job, options, ports, stats } = context;
  if (stats.digestedPages === 0) return;
  const rate = stats.fallbacks / stats.digestedPages;
  recordMetric(context, "DigestFallbacks", stats.fallbacks);
  recordMetric(context, "FallbackRate", rate, "None");
  if (rate > options.fallbackAlarmRate) {
    ports.logger?.warn("digest fallback rate above the alarm threshold: is the primary digester down?", {
      orgId: job.orgId,
      threadId: job.threadId,
      digester: ports.digester.id,
      fallbackRate: rate,
      fallbacks: stats.fallbacks,
      digestedPages: stats.digestedPages,
      fallbackAlarmRate: options.fallbackAlarmRate,
    });
  }
}
