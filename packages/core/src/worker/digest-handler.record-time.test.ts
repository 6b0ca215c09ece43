import { describe, expect, it } from "vitest";
import { type ManualClock, manualClock } from "#test/core/fakes/manual-clock";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { heavyThread } from "#test/core/fixtures/threads";
import { contextWith, turnRecordOf } from "#test/core/fixtures/turn-records";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel, DigestStore, TurnLock } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { createDigestHandler, type DigestHandlerDependencies } from "./digest-handler";
import { sqsEvent } from "./sqs-event";

const ORG = "org-record-time";
const THREAD = "ground-lease";
const TURN_END = "2026-11-30T10:00:00.000Z";
const NOW = new Date("2026-11-30T10:05:00Z");

function turnRecord(body?: string) {
  return turnRecordOf(
    { orgId: ORG, threadId: THREAD, turnEndedAt: TURN_END },
    { messageId: "m-time", ...(body === undefined ? {} : { body }) },
  );
}

/**
 * Runs one record through a handler whose ports move `clock` as `build` makes them, and
 * returns the record's `RecordDuration` metrics and whether the record was handed back.
 */
async function timeOne(
  build: (clock: ManualClock) => {
    store?: DigestStore;
    lock?: TurnLock;
    digester?: DigestModel;
    deadLetters?: DigestHandlerDependencies["queue"]["deadLetters"];
    maxCallsPerJob?: number;
  },
  body?: string,
) {
  const clock = manualClock(NOW);
  const parts = build(clock);
  const metrics = recordingMetrics();
  const handler = createDigestHandler({
    ports: {
      checkpoints: createInMemoryCheckpointReader(new Map([[THREAD, heavyThread().messages]])),
      store: parts.store ?? createInMemoryDigestStore({ clock }),
      digester: parts.digester ?? createExtractiveDigester(),
      clock,
      ...(parts.lock ? { lock: parts.lock } : {}),
    },
    queue: {
      changeVisibility: async () => {},
      deadLetters: parts.deadLetters ?? { send: async () => ({ messageId: "dead-1" }) },
    },
    logger: recordingLogger(),
    metrics,
    issues: () => {},
    jobOptions: { maxCallsPerJob: parts.maxCallsPerJob ?? 100 },
  });
  const response = await handler(sqsEvent([turnRecord(body)]), contextWith(300_000));
  return {
    timed: metrics.metrics.filter((metric) => metric.name === "RecordDuration"),
    handedBack: response.batchItemFailures.length > 0,
  };
}

/** A digester that takes `seconds` of the clock per call. */
function slowDigester(clock: ManualClock, seconds: number): DigestModel {
  const inner = createExtractiveDigester();
  return {
    ...inner,
    digest: async (...args: Parameters<DigestModel["digest"]>) => {
      clock.advance(seconds);
      return inner.digest(...args);
    },
  };
}

const duration = (outcome: string, value: number) => ({
  name: "RecordDuration",
  value,
  unit: "Milliseconds",
  dimensions: { outcome },
});

describe("digest handler: each record's RecordDuration", () => {
  it("times a job that digests everything as done, from the record's start to its ack", async () => {
    const { timed, handedBack } = await timeOne((clock) => ({ digester: slowDigester(clock, 2) }));
    expect(handedBack).toBe(false);
    expect(timed).toHaveLength(1);
    expect(timed[0]?.dimensions).toEqual({ outcome: "done" });
    expect(timed[0]?.unit).toBe("Milliseconds");
    // Two seconds per digest call, at least one call.
    expect(timed[0]?.value).toBeGreaterThanOrEqual(2_000);
    expect((timed[0]?.value ?? 0) % 2_000).toBe(0);
  });

  it("times a pass cut short by its call cap as partial", async () => {
    const { timed } = await timeOne((clock) => ({ digester: slowDigester(clock, 3), maxCallsPerJob: 1 }));
    expect(timed).toEqual([duration("partial", 3_000)]);
  });

  it("times a record handed back while a turn runs as requeued", async () => {
    const { timed, handedBack } = await timeOne((clock) => ({
      lock: {
        isHeld: async () => {
          clock.advance(4);
          return true;
        },
      },
    }));
    expect(handedBack).toBe(true);
    expect(timed).toEqual([duration("requeued", 4_000)]);
  });

  it("times a job that throws as failed", async () => {
    const { timed, handedBack } = await timeOne((clock) => ({
      store: {
        ...createInMemoryDigestStore({ clock }),
        getPass: async () => {
          clock.advance(5);
          throw new Error("connection reset");
        },
      },
    }));
    expect(handedBack).toBe(true);
    expect(timed).toEqual([duration("failed", 5_000)]);
  });

  it("times a poison record dead-lettered as poison", async () => {
    const { timed, handedBack } = await timeOne(
      (clock) => ({
        deadLetters: {
          send: async () => {
            clock.advance(6);
            return { messageId: "dead-1" };
          },
        },
      }),
      "{not json",
    );
    expect(handedBack).toBe(false);
    expect(timed).toEqual([duration("poison", 6_000)]);
  });

  it("times a poison record acked for want of its dead letters as poison, not requeued or failed", async () => {
    const { timed, handedBack } = await timeOne(
      (clock) => ({
        deadLetters: {
          send: async () => {
            clock.advance(7);
            throw new Error("dead-letter queue unreachable");
          },
        },
      }),
      "{not json",
    );
    expect(handedBack).toBe(false);
    expect(timed).toEqual([duration("poison", 7_000)]);
  });

  it("never records a negative time when the clock steps back during a record", async () => {
    const { timed } = await timeOne(
      (clock) => ({
        deadLetters: {
          send: async () => {
            clock.advance(-8);
            return { messageId: "dead-1" };
          },
        },
      }),
      "{not json",
    );
    expect(timed).toEqual([duration("poison", 0)]);
  });
});
