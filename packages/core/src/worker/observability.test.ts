import { Metrics } from "@aws-lambda-powertools/metrics";
import { afterEach, describe, expect, it, vi } from "vitest";
import { recordingLogger } from "#test/core/fakes/recorders";
import { consoleIssues, describeError, FunctionIssue, powertoolsMetrics } from "./observability";

/** The EMF documents Powertools printed to stdout while `run` ran. */
function emfLines(run: () => void): Record<string, unknown>[] {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return written
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((document) => "_aws" in document);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("powertoolsMetrics", () => {
  it("writes the job's metrics as CloudWatch EMF: plain ones together at flush, dimensioned ones on their own line", () => {
    const metrics = powertoolsMetrics(new Metrics({ namespace: "ContextCleaner", serviceName: "digest" }));
    const documents = emfLines(() => {
      metrics.record({ name: "DigestsWritten", value: 7, unit: "Count" });
      metrics.record({ name: "JobDuration", value: 1250, unit: "Milliseconds" });
      metrics.record({ name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "turn_lock" } });
      metrics.flush();
    });
    expect(documents).toHaveLength(2);
    const [skipped, plain] = documents as [Record<string, unknown>, Record<string, unknown>];
    expect(skipped).toMatchObject({ SkippedJobs: 1, reason: "turn_lock", service: "digest" });
    expect(skipped._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: "ContextCleaner",
          Dimensions: [["service", "reason"]],
          Metrics: [{ Name: "SkippedJobs", Unit: "Count" }],
        },
      ],
    });
    expect(plain).toMatchObject({ DigestsWritten: 7, JobDuration: 1250, service: "digest" });
    expect(plain._aws).toMatchObject({
      CloudWatchMetrics: [
        {
          Namespace: "ContextCleaner",
          Metrics: [
            { Name: "DigestsWritten", Unit: "Count" },
            { Name: "JobDuration", Unit: "Milliseconds" },
          ],
        },
      ],
    });
  });

  it("prints nothing and warns nothing when an invocation recorded nothing", () => {
    const logger = recordingLogger();
    const metrics = powertoolsMetrics(
      new Metrics({ namespace: "ContextCleaner", serviceName: "digest" }),
      logger,
    );
    expect(emfLines(() => metrics.flush())).toEqual([]);
    expect(logger.entries).toEqual([]);
  });

  it("drops a metric Powertools refuses, with a warning, instead of failing the job", () => {
    const logger = recordingLogger();
    const metrics = powertoolsMetrics(
      new Metrics({ namespace: "ContextCleaner", serviceName: "digest" }),
      logger,
    );
    expect(() => metrics.record({ name: "Bad", value: 1, unit: "Parsecs" as "Count" })).not.toThrow();
    expect(logger.at("warn")[0]).toMatchObject({ message: "metric dropped", attributes: { metric: "Bad" } });
  });
});

describe("describeError", () => {
  it("keeps an error's message, name, code and retryability, and nothing else", () => {
    const error = Object.assign(new Error("refused"), {
      code: "database_unreachable",
      retryable: true,
      secret: "x",
    });
    expect(describeError(error)).toEqual({
      error: "refused",
      errorName: "Error",
      errorCode: "database_unreachable",
      retryable: true,
    });
    expect(describeError("plain")).toEqual({ error: "plain" });
  });
});

describe("consoleIssues", () => {
  afterEach(() => vi.restoreAllMocks());

  it("writes each issue to console.error as an Error object carrying its fields, and never throws", () => {
    const spy = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const cause = new Error("connection reset");
    const issue = new FunctionIssue(
      "DigestJobFailed",
      "digest job failed",
      { orgId: "acme", threadId: "t1" },
      { cause },
    );
    consoleIssues()(issue);
    expect(spy).toHaveBeenCalledTimes(1);
    const [written] = spy.mock.calls[0] ?? [];
    expect(written).toBe(issue);
    expect(written).toBeInstanceOf(Error);
    expect(written).toMatchObject({ name: "DigestJobFailed", orgId: "acme", threadId: "t1", cause });

    const failing = consoleIssues(() => {
      throw new Error("stderr closed");
    });
    expect(() => failing(issue)).not.toThrow();
  });
});
