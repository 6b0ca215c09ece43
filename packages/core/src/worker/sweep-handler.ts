import type { Context } from "aws-lambda";
import { CoreError, coreErrorMarker } from "../errors";
import { runSweep, type SweepOptions, type SweepPorts, type SweepReport } from "../sweep/index";
import { describeError, type FunctionLogger, type FunctionMetrics } from "./observability";

/** What the sweep handler runs on; the edge (functions/sweep.ts) builds it from the environment. */
export interface SweepHandlerDependencies {
  /** The sweep's ports; the handler adds `metrics`. */
  ports: Omit<SweepPorts, "metrics">;
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  options?: SweepOptions;
}

/** What an invocation returns: the report's figures, without the thread list. */
export type SweepSummary = Omit<SweepReport, "threads"> & { enqueued: number };

/** A scheduled Lambda handler; the event (EventBridge's) carries nothing the sweep needs. */
export type SweepHandler = (event: unknown, context: Context) => Promise<SweepSummary>;

/** Sends failed: the invocation fails so the scheduler retries it; sends already made collapse. */
const sweepSendMarker = coreErrorMarker("SweepSendError");
const sweepSendSymbol = Symbol.for(sweepSendMarker);

export class SweepSendError extends CoreError {
  protected readonly [sweepSendSymbol] = true;

  constructor(readonly failed: number) {
    super(`sweep: ${failed} job(s) could not be enqueued`, { code: "sweep_send_failed", retryable: true });
    this.name = "SweepSendError";
  }

  static override isInstance(error: unknown): error is SweepSendError {
    return CoreError.hasMarker(error, sweepSendMarker);
  }
}

/**
 * The nightly sweep function: runs {@link runSweep}, logs what it enqueued by reason (and
 * each thread it could not enqueue), counts `SweptThreads{reason}` and `SweepSendFailures`
 * in EMF, and fails the invocation when a send failed — the retry sends the same
 * deduplication ids, so the jobs already enqueued are not sent twice.
 */
export function createSweepHandler(dependencies: SweepHandlerDependencies): SweepHandler {
  const { logger, metrics } = dependencies;
  return async (_event, context) => {
    logger.addContext?.(context);
    try {
      const report = await runSweep({ ...dependencies.ports, metrics }, dependencies.options);
      const { threads, ...figures } = report;
      const summary: SweepSummary = { ...figures, enqueued: threads.length - report.failed };
      for (const thread of threads) {
        if (thread.error !== undefined) {
          logger.error("sweep could not enqueue a thread", {
            orgId: thread.orgId,
            threadId: thread.threadId,
            reason: thread.reason,
            error: thread.error,
          });
        }
      }
      if (report.unreadableActivity > 0)
        logger.warn(
          "sweep passed over records of the thread directory whose activity time is not a date-time",
          { unreadableActivity: report.unreadableActivity },
        );
      if (report.truncated)
        logger.warn("sweep stopped at its bound: the rest waits for the next run", summary);
      logger.info(report.dryRun ? "sweep dry run finished" : "sweep finished", summary);
      if (report.failed > 0) throw new SweepSendError(report.failed);
      return summary;
    } catch (error) {
      if (!SweepSendError.isInstance(error)) logger.error("sweep failed", describeError(error));
      throw error;
    } finally {
      metrics.flush();
    }
  };
}
