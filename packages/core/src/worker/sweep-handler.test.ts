import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { lambdaContext } from "./lambda-context";
import { createSweepHandler, SweepSendError } from "./sweep-handler";

const NOW = new Date("2026-12-01T03:00:00Z");
const storage = usePgliteRepository();

beforeAll(async () => {
  await storage.recordPassAt("acme", "locked", {
    status: "skipped",
    reason: "turn_lock",
    turnEndedAt: new Date("2026-11-30T20:00:00Z"),
    at: new Date("2026-11-30T20:00:00Z"),
  });
  await storage.recordPassAt("acme", "failed", {
    status: "failed",
    at: new Date("2026-11-30T21:00:00Z"),
  });
});

const context = lambdaContext({ functionName: "sweep", timeoutMs: 300_000 });

describe("createSweepHandler", () => {
  it("enqueues what it found, returns and logs the figures, counts by reason in EMF, flushes once", async () => {
    const clock = manualClock(NOW);
    const queue = createInProcessDigestQueue({ clock });
    const logger = recordingLogger();
    const metrics = recordingMetrics();
    const handler = createSweepHandler({
      ports: { store: storage.repository, queue, clock },
      logger,
      metrics,
    });
    const summary = await handler({ "detail-type": "Scheduled Event" }, context);
    expect(summary).toEqual({
      dryRun: false,
      enqueued: 2,
      failed: 0,
      notOwned: 0,
      givenUp: 0,
      truncated: false,
      unreadableActivity: 0,
      byReason: { failed: 1, turn_lock: 1 },
    });
    expect((await queue.receive(10)).map((message) => JSON.parse(message.body).threadId).sort()).toEqual([
      "failed",
      "locked",
    ]);
    expect(logger.at("info")[0]).toMatchObject({ message: "sweep finished", attributes: { enqueued: 2 } });
    expect(metrics.count("SweptThreads", { reason: "turn_lock" })).toBe(1);
    expect(metrics.flushes).toBe(1);
  });

  it("fails the invocation when a send failed, naming each thread it could not enqueue", async () => {
    const clock = manualClock(NOW);
    const logger = recordingLogger();
    const metrics = recordingMetrics();
    const queue = {
      async send(): Promise<{ messageId: string }> {
        throw new Error("SQS unreachable");
      },
    };
    const handler = createSweepHandler({
      ports: { store: storage.repository, queue, clock },
      logger,
      metrics,
    });
    const error = await handler({}, context).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SweepSendError);
    expect(error).toMatchObject({ failed: 2 });
    // Oldest record first.
    expect(logger.at("error").map((entry) => entry.attributes.threadId)).toEqual(["locked", "failed"]);
    expect(metrics.count("SweepSendFailures")).toBe(2);
    expect(metrics.flushes).toBe(1);
  });

  it("logs once, counts and goes on when the directory passed over records it could not read", async () => {
    const clock = manualClock(NOW);
    const logger = recordingLogger();
    const metrics = recordingMetrics();
    // A message table whose text updated-at column holds two values that are no date-time.
    const directory = {
      async listActiveThreads() {
        return { threads: [], nextCursor: null, unreadable: 2 };
      },
    };
    const handler = createSweepHandler({
      ports: { store: storage.repository, directory, clock },
      logger,
      metrics,
      options: { dryRun: true },
    });
    const summary = await handler({}, context);
    expect(summary).toMatchObject({ unreadableActivity: 2, enqueued: 2 });
    expect(logger.at("warn")).toEqual([
      {
        level: "warn",
        message: "sweep passed over records of the thread directory whose activity time is not a date-time",
        attributes: { unreadableActivity: 2 },
      },
    ]);
    expect(metrics.count("SweepUnreadableActivity")).toBe(2);
  });
});
