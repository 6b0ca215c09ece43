import { assembleModelView } from "@context-cleaner/assembler";
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { heavyThread, probeRetention, rawToolChars, viewChars } from "#test/core/fixtures/threads";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { systemClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { inProcessSqsClient } from "./in-process-sqs-client";
import { startLocalWorker } from "./local-worker";

const storage = usePgliteRepository();

describe("startLocalWorker", () => {
  it("runs publisher → in-process queue → the Lambda handler in one process; the next view is smaller and keeps its probes", async () => {
    const fixture = heavyThread();
    const { messages } = fixture;
    const queue = createInProcessDigestQueue();
    const logger = recordingLogger();
    const worker = startLocalWorker({
      queue,
      pollIntervalMs: 5,
      dependencies: {
        ports: {
          checkpoints: createInMemoryCheckpointReader(new Map([["ground-lease", messages]])),
          store: storage.repository,
          digester: createExtractiveDigester(),
          clock: systemClock,
        },
        logger,
        metrics: recordingMetrics(),
        jobOptions: { maxCallsPerJob: 100 },
      },
    });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    try {
      const before = assembleModelView(
        messages,
        await storage.repository.loadThreadDigests("acme", "ground-lease"),
      );
      const published = await events.publishTurnEnded({
        orgId: "acme",
        threadId: "ground-lease",
        rawToolChars: rawToolChars(messages),
        turnEndedAt: new Date("2026-11-30T10:00:00Z"),
      });
      expect(published.status).toBe("sent");
      await worker.idle();

      const digests = await storage.repository.loadThreadDigests("acme", "ground-lease");
      expect(digests.size).toBeGreaterThan(10);
      const after = assembleModelView(messages, digests);
      expect(after.report.substitutions).toBeGreaterThan(10);
      expect(viewChars(after.messages)).toBeLessThan(viewChars(before.messages) * 0.6);
      const probes = probeRetention(fixture, after.messages);
      expect(probes.lost).toEqual([]);
      expect(probes.inView + probes.oneReReadAway).toBe(fixture.probes.length);
      expect(await storage.repository.getPass("acme", "ground-lease")).toMatchObject({ status: "done" });
      expect(worker.invocations).toBe(1);
      expect(await queue.receive(10)).toEqual([]);
      expect(logger.at("error")).toEqual([]);
    } finally {
      await worker.stop();
    }
  });

  it("leaves the batch of a handler that throws to the queue, reports it, and stops cleanly", async () => {
    const queue = createInProcessDigestQueue({ visibilityTimeoutSeconds: 600 });
    const errors: unknown[] = [];
    const worker = startLocalWorker({
      queue,
      pollIntervalMs: 5,
      handler: async () => {
        throw new Error("handler crashed");
      },
      onError: (error) => errors.push(error),
    });
    await queue.send({ body: "{}", groupId: "g", deduplicationId: "d" });
    await worker.idle();
    await worker.stop();
    expect(worker.invocations).toBe(1);
    expect(String(errors[0])).toContain("handler crashed");
    // Still in flight (not deleted): it comes back after its visibility timeout.
    expect(await queue.receive(10)).toEqual([]);
    await expect(worker.idle()).resolves.toBeUndefined();
  });
});
