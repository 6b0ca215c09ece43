import { randomUUID } from "node:crypto";
import type { Message } from "@context-cleaner/assembler";
import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { heavyThread, rawToolChars } from "#test/core/fixtures/threads";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { CheckpointReader } from "../ports";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { createDigestHandler } from "./digest-handler";
import { deliverOnce } from "./local-worker";

const storage = usePgliteRepository();

/**
 * A thread whose runtime published its turn-ended event (announcing the turn's message
 * count) a moment before it wrote the turn's last checkpoint: the checkpoint the worker
 * reads holds all but the turn's last messages until the test writes it.
 */
function setup() {
  const thread = heavyThread().messages;
  const orgId = `org-${randomUUID()}`;
  const threadId = "ground-lease";
  const checkpoint: { messages: readonly Message[] } = { messages: thread.slice(0, -4) };
  const checkpoints: CheckpointReader = { readThread: async () => [...checkpoint.messages] };
  const clock = manualClock(new Date("2026-11-30T10:00:01Z"));
  const queue = createInProcessDigestQueue({ clock, visibilityTimeoutSeconds: 600 });
  const logger = recordingLogger();
  const metrics = recordingMetrics();
  const finished: string[] = [];
  const handler = createDigestHandler({
    ports: { checkpoints, store: storage.repository, digester: createExtractiveDigester(), clock },
    queue: { changeVisibility: queue.changeVisibility, deadLetters: queue.deadLetters },
    logger,
    metrics,
    issues: () => {},
    jobOptions: {},
    onJobFinished: (outcome) => finished.push(outcome.reason ?? outcome.status),
  });
  const turnEndedAt = "2026-11-30T10:00:00.000Z";
  const event = {
    orgId,
    threadId,
    rawToolChars: rawToolChars(thread),
    turnEndedAt,
    messageCount: thread.length,
  };
  const message = {
    body: JSON.stringify(event),
    groupId: turnEventGroupId(orgId, threadId),
    deduplicationId: turnEventDeduplicationId(orgId, threadId, turnEndedAt),
  };
  return { thread, orgId, threadId, checkpoint, clock, queue, logger, metrics, finished, handler, message };
}

describe("createDigestHandler: an event ahead of its checkpoint", () => {
  it("hands the record back for a few seconds until the checkpoint shows the announced turn, then digests it", async () => {
    const { thread, orgId, threadId, checkpoint, clock, queue, logger, metrics, finished, handler, message } =
      setup();
    await queue.send(message);

    const first = await deliverOnce(queue, handler);
    expect(first?.failed).toHaveLength(1);
    expect(metrics.count("CheckpointWaits")).toBe(1);
    expect(logger.at("info").map((entry) => entry.message)).toContain(
      "the checkpoint does not show the announced turn yet: handed back to the queue",
    );
    expect(logger.at("error")).toEqual([]);
    expect(metrics.count("FailedJobs")).toBe(0);
    expect(finished).toEqual([]);
    // Back after the job's wait (3 s), not the queue's visibility timeout.
    clock.advance(2);
    expect(await queue.receive(10)).toEqual([]);
    checkpoint.messages = thread;
    clock.advance(1);

    const second = await deliverOnce(queue, handler);
    expect(second?.received[0]?.receiveCount).toBe(2);
    expect(second?.failed).toEqual([]);
    expect(finished).toEqual(["done"]);
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(0);
    expect((await storage.repository.getPass(orgId, threadId))?.coveredTurnEndedAt).not.toBeNull();
    expect(metrics.count("CheckpointWaitsCapped")).toBe(0);
  });

  it("on the record's third receive goes on with the checkpoint as it is and leaves the turn uncovered", async () => {
    const { orgId, threadId, clock, queue, metrics, finished, handler, message } = setup();
    await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    clock.advance(3);
    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    clock.advance(3);
    const third = await deliverOnce(queue, handler);
    expect(third?.received[0]?.receiveCount).toBe(3);
    expect(third?.failed).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);

    expect(metrics.count("CheckpointWaits")).toBe(2);
    expect(metrics.count("CheckpointWaitsCapped")).toBe(1);
    expect(finished).toEqual(["done"]);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({
      coveredTurnEndedAt: null,
      latestTurnEndedAt: new Date("2026-11-30T10:00:00.000Z"),
    });
  });
});
