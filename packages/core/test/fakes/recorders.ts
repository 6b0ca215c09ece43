import type { Metric } from "../../src/ports";
import type { FunctionLogger, FunctionMetrics } from "../../src/worker/observability";

export interface LogEntry {
  level: "info" | "warn" | "error";
  message: string;
  attributes: Record<string, unknown>;
}

/** A logger that keeps its entries. */
export function recordingLogger(): FunctionLogger & {
  entries: LogEntry[];
  at(level: LogEntry["level"]): LogEntry[];
} {
  const entries: LogEntry[] = [];
  const write =
    (level: LogEntry["level"]) =>
    (message: string, ...attributes: Record<string, unknown>[]) =>
      entries.push({ level, message, attributes: Object.assign({}, ...attributes) });
  return {
    entries,
    at: (level) => entries.filter((entry) => entry.level === level),
    info: write("info"),
    warn: write("warn"),
    error: write("error"),
  };
}

/** Metrics kept in an array; `flushes` counts the handler's flushes. */
export function recordingMetrics(): FunctionMetrics & {
  metrics: Metric[];
  flushes: number;
  count(name: string, dimensions?: Record<string, string>): number;
} {
  const recorder = {
    metrics: [] as Metric[],
    flushes: 0,
    record(metric: Metric) {
      recorder.metrics.push(metric);
    },
    flush() {
      recorder.flushes += 1;
    },
    count(name: string, dimensions?: Record<string, string>) {
      return recorder.metrics
        .filter(
          (metric) =>
            metric.name === name &&
            (dimensions === undefined || JSON.stringify(metric.dimensions) === JSON.stringify(dimensions)),
        )
        .reduce((sum, metric) => sum + metric.value, 0);
    },
  };
  return recorder;
}
