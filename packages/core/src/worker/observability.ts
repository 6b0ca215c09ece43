import type { Metrics } from "@aws-lambda-powertools/metrics";
import { redactSecrets } from "@context-cleaner/assembler/internal";
import type { Context } from "aws-lambda";
import { CoreError, coreErrorMarker } from "../errors";
import type { Metric, MetricsSink } from "../index";

/** The CloudWatch namespace of every context-cleaner metric. */
export const METRICS_NAMESPACE = "ContextCleaner";

/**
 * Where the functions log: structured entries, a message and its attributes. Powertools'
 * `Logger` satisfies it (one JSON line per entry, with the Lambda context's request id).
 */
export interface FunctionLogger {
  info(message: string, ...attributes: Record<string, unknown>[]): void;
  warn(message: string, ...attributes: Record<string, unknown>[]): void;
  error(message: string, ...attributes: Record<string, unknown>[]): void;
  /** Adds the invocation's request id and function name to the entries that follow. */
  addContext?(context: Context): void;
}

/** A metrics sink the handler flushes at the end of each invocation. */
export interface FunctionMetrics extends MetricsSink {
  flush(): void;
}

/**
 * The error's name, code and retryability, and its message redacted (`redactSecrets`): what
 * a log entry carries of it. Never its cause, which may carry a query and its parameters.
 */
export function describeError(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: redactSecrets(String(error)) };
  const { code, retryable } = error as Error & { code?: unknown; retryable?: unknown };
  return {
    error: redactSecrets(error.message),
    errorName: error.name,
    ...(typeof code === "string" ? { errorCode: code } : {}),
    ...(typeof retryable === "boolean" ? { retryable } : {}),
  };
}

/**
 * The job's metrics as CloudWatch Embedded Metric Format through Powertools. A metric
 * without dimensions is buffered and printed with the others at `flush()`, one EMF line
 * per invocation; a metric with dimensions (`SkippedJobs{reason}`, `digest_fallback{reason}`)
 * is printed at once on its own line, since the dimensions of one EMF line apply to all of
 * its metrics. Never throws: a metric Powertools refuses is logged and dropped.
 *
 * @example
 * const metrics = powertoolsMetrics(new Metrics({ namespace: "ContextCleaner", serviceName: "digest" }), logger);
 */
export function powertoolsMetrics(metrics: Metrics, logger?: Pick<FunctionLogger, "warn">): FunctionMetrics {
  const dropped = (metric: Metric, error: unknown) => {
    try {
      logger?.warn("metric dropped", { metric: metric.name, ...describeError(error) });
    } catch {
      // A failing logger must not fail the job.
    }
  };
  return {
    record(metric: Metric) {
      try {
        if (metric.dimensions && Object.keys(metric.dimensions).length > 0) {
          const single = metrics.singleMetric();
          single.addDimensions({ ...metric.dimensions });
          single.addMetric(metric.name, metric.unit, metric.value);
        } else {
          metrics.addMetric(metric.name, metric.unit, metric.value);
        }
      } catch (error) {
        dropped(metric, error);
      }
    },
    flush() {
      try {
        if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
      } catch (error) {
        logger?.warn("metrics not published", describeError(error));
      }
    },
  };
}

/**
 * A failure the function handles (its invocation still succeeds) that an operator must see:
 * a failed job, a poison record, a refused tenant, a fallback rate over the alarm. Its
 * message names the kind of failure and stays the same across records, so the SST console
 * groups them into one issue; the record's ids (`orgId`, `threadId`, `messageId`, …) are
 * fields of the error, never the thread's content. `cause` is the error that failed the job.
 */
const functionIssueMarker = coreErrorMarker("FunctionIssue");
const functionIssueSymbol = Symbol.for(functionIssueMarker);

export class FunctionIssue extends CoreError {
  protected readonly [functionIssueSymbol] = true;

  constructor(
    name: string,
    message: string,
    readonly fields: Readonly<Record<string, string | number>>,
    options?: { cause?: unknown },
  ) {
    super(message, { code: "function_issue", cause: options?.cause });
    this.name = name;
    // Own fields: Node prints them with the stack, so the console's issue shows the ids.
    Object.assign(this, fields);
  }

  static override isInstance(error: unknown): error is FunctionIssue {
    return CoreError.hasMarker(error, functionIssueMarker);
  }
}

/** Where the functions report their handled failures as {@link FunctionIssue}s. */
export type IssueReporter = (issue: FunctionIssue) => void;

/**
 * Reports each issue as an Error object on `console.error`: the SST console's Issues tab
 * reports a Lambda function's failures and, for Node.js, the errors logged as
 * `console.error(errorObject)`, not a JSON log line at level ERROR. Never throws.
 */
export function consoleIssues(
  write: (error: Error) => void = (error) => console.error(error),
): IssueReporter {
  return (issue) => {
    try {
      write(issue);
    } catch {
      // A failing reporter must not fail the job.
    }
  };
}
