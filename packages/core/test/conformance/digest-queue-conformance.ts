import { afterEach, describe, expect, it } from "vitest";
import { DigestQueueError } from "../../src/errors";
import type { DigestQueue, ReceivedDigestMessage } from "../../src/queue/digest-queue";

/** The queue settings a conformance test asks for. */
export interface DigestQueueSettings {
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  delaySeconds: number;
}

/** A fresh, empty queue with a dead-letter queue, and a way to let time pass for it. */
export interface DigestQueueHarness {
  queue: DigestQueue;
  /** Lets `seconds` pass: a fake clock moves; a real queue is waited for. */
  advance(seconds: number): Promise<void>;
  /** The queue's time now (the fake clock's, or the wall clock). */
  now(): Date;
  close(): Promise<void>;
}

/** What an adapter's double of SQS models, where doubles differ from SQS itself. */
export interface DigestQueueCapabilities {
  /**
   * Whether a receive hands out several messages of one group, in order, as SQS FIFO does.
   * fauxqs hands out one message per group per receive, so the test of this runs only
   * against doubles that model it (the in-process queue).
   */
  severalPerGroup: boolean;
}

const DEFAULT_SETTINGS: DigestQueueSettings = {
  visibilityTimeoutSeconds: 1,
  maxReceiveCount: 5,
  delaySeconds: 0,
};

function message(body: string, groupId = "org_1:thread_1", deduplicationId = body) {
  return { body, groupId, deduplicationId };
}

/**
 * The digest queue port's contract, run against every adapter: FIFO order per group with
 * one receive in flight per group, deduplication that outlives deletes, visibility timeouts
 * and redelivery, dead letters and redrive, the queue delay, and the SQS request limits.
 * Timeouts are 1 s so a real queue can be waited for.
 */
export function describeDigestQueueConformance(
  adapter: string,
  createHarness: (settings: DigestQueueSettings) => Promise<DigestQueueHarness>,
  capabilities: DigestQueueCapabilities,
): void {
  describe(`DigestQueue conformance: ${adapter}`, () => {
    const open: DigestQueueHarness[] = [];

    async function harness(settings: Partial<DigestQueueSettings> = {}): Promise<DigestQueueHarness> {
      const created = await createHarness({ ...DEFAULT_SETTINGS, ...settings });
      open.push(created);
      return created;
    }

    /** Receives and deletes until the queue gives nothing; returns bodies in delivery order. */
    async function drain(queue: DigestQueue): Promise<string[]> {
      const bodies: string[] = [];
      for (let round = 0; round < 50; round += 1) {
        const batch = await queue.receive(10);
        if (batch.length === 0) return bodies;
        for (const received of batch) {
          bodies.push(received.body);
          await queue.delete(received.receiptHandle);
        }
      }
      throw new Error("the queue did not drain in 50 receives");
    }

    afterEach(async () => {
      await Promise.all(open.splice(0).map((created) => created.close()));
    });

    it("delivers a sent message with its body, group, deduplication id and first receive count", async () => {
      const { queue, now } = await harness();
      const before = now().getTime();
      const { messageId } = await queue.send(message('{"orgId":"org_1"}', "org_1:t1", "dedupe-1"));

      const [received, ...rest] = await queue.receive(10);

      expect(rest).toEqual([]);
      expect(received).toMatchObject({
        messageId,
        body: '{"orgId":"org_1"}',
        groupId: "org_1:t1",
        deduplicationId: "dedupe-1",
        receiveCount: 1,
      });
      expect(received?.receiptHandle).toEqual(expect.any(String));
      expect(received?.sentAt).toBeInstanceOf(Date);
      expect(Math.abs((received?.sentAt.getTime() ?? 0) - before)).toBeLessThan(60_000);
    });

    it("forgets a deleted message", async () => {
      const { queue } = await harness();
      await queue.send(message("a"));
      const [received] = await queue.receive(1);
      await queue.delete(received?.receiptHandle ?? "");
      expect(await queue.receive(10)).toEqual([]);
    });

    it("accepts and drops a send whose deduplication id was seen, even after the first was deleted", async () => {
      const { queue } = await harness();
      await queue.send(message("first", "g1", "turn-1"));
      await queue.send(message("again", "g1", "turn-1"));
      expect(await drain(queue)).toEqual(["first"]);

      await queue.send(message("after delete", "g1", "turn-1"));
      expect(await queue.receive(10)).toEqual([]);
      await queue.send(message("next turn", "g1", "turn-2"));
      expect(await drain(queue)).toEqual(["next turn"]);
    });

    it("delivers each group in send order", async () => {
      const { queue } = await harness();
      for (const [body, group] of [
        ["a1", "A"],
        ["b1", "B"],
        ["a2", "A"],
        ["a3", "A"],
        ["b2", "B"],
      ] as const) {
        await queue.send(message(body, group));
      }
      const bodies = await drain(queue);
      expect(bodies.filter((body) => body.startsWith("a"))).toEqual(["a1", "a2", "a3"]);
      expect(bodies.filter((body) => body.startsWith("b"))).toEqual(["b1", "b2"]);
    });

    it("holds back a group while one of its messages is in flight; other groups flow", async () => {
      const { queue } = await harness({ visibilityTimeoutSeconds: 30 });
      await queue.send(message("a1", "A"));
      await queue.send(message("a2", "A"));
      await queue.send(message("b1", "B"));

      const [first] = await queue.receive(1);
      expect(first?.body).toBe("a1");
      const others = await queue.receive(10);
      expect(others.map((received) => received.body)).toEqual(["b1"]);
      expect(await queue.receive(10)).toEqual([]);

      await queue.delete(first?.receiptHandle ?? "");
      expect((await queue.receive(10)).map((received) => received.body)).toEqual(["a2"]);
    });

    // SQS FIFO returns as many messages of one group as it can in a receive, in order, and
    // none of that group in later receives until those are deleted or visible again.
    if (capabilities.severalPerGroup) {
      it("hands several messages of one group to one receive, in order, up to maxMessages, then none of the group while they are in flight", async () => {
        const { queue } = await harness({ visibilityTimeoutSeconds: 30 });
        for (const body of ["a1", "a2", "a3", "a4"]) await queue.send(message(body, "A"));
        await queue.send(message("b1", "B"));

        const first = await queue.receive(3);
        expect(first.map((received) => received.body)).toEqual(["a1", "a2", "a3"]);
        // a4 waits while a1–a3 are in flight; other groups flow.
        expect((await queue.receive(10)).map((received) => received.body)).toEqual(["b1"]);
        await queue.delete(first[0]?.receiptHandle ?? "");
        await queue.delete(first[1]?.receiptHandle ?? "");
        expect(await queue.receive(10)).toEqual([]);
        await queue.delete(first[2]?.receiptHandle ?? "");
        expect((await queue.receive(10)).map((received) => received.body)).toEqual(["a4"]);
      });

      it("hands a group's messages back together once they are visible again, in order", async () => {
        const { queue } = await harness({ visibilityTimeoutSeconds: 30 });
        for (const body of ["a1", "a2", "a3"]) await queue.send(message(body, "A"));
        const first = await queue.receive(10);
        expect(first.map((received) => received.body)).toEqual(["a1", "a2", "a3"]);
        for (const received of first) await queue.changeVisibility(received.receiptHandle, 0);
        const again = await queue.receive(10);
        expect(again.map((received) => [received.body, received.receiveCount])).toEqual([
          ["a1", 2],
          ["a2", 2],
          ["a3", 2],
        ]);
      });
    }

    it("redelivers a message not deleted within the visibility timeout, one receive count higher", async () => {
      const { queue, advance } = await harness({ visibilityTimeoutSeconds: 1 });
      await queue.send(message("job"));
      const [first] = await queue.receive(1);
      expect(await queue.receive(10)).toEqual([]);

      await advance(1.5);
      const [again] = await queue.receive(1);

      expect(again?.messageId).toBe(first?.messageId);
      expect(again?.receiveCount).toBe(2);
      expect(again?.receiptHandle).not.toBe(first?.receiptHandle);
    });

    it("takes a visibility timeout per receive", async () => {
      const { queue } = await harness({ visibilityTimeoutSeconds: 30 });
      await queue.send(message("job"));
      const [first] = await queue.receive(1, { visibilityTimeoutSeconds: 0 });
      const [again] = await queue.receive(1);
      expect(again?.messageId).toBe(first?.messageId);
      expect(again?.receiveCount).toBe(2);
    });

    it("changes a message's visibility: 0 hands it back now, more keeps it away longer", async () => {
      const { queue, advance } = await harness({ visibilityTimeoutSeconds: 1 });
      await queue.send(message("job"));
      const [first] = await queue.receive(1);
      await queue.changeVisibility(first?.receiptHandle ?? "", 0);
      const [second] = await queue.receive(1);
      expect(second?.receiveCount).toBe(2);

      await queue.changeVisibility(second?.receiptHandle ?? "", 60);
      await advance(1.5);
      expect(await queue.receive(10)).toEqual([]);
    });

    it("refuses to change the visibility of a message that is no longer in flight", async () => {
      const { queue } = await harness();
      await queue.send(message("job"));
      const [received] = await queue.receive(1);
      await queue.delete(received?.receiptHandle ?? "");
      await expect(queue.changeVisibility(received?.receiptHandle ?? "", 10)).rejects.toBeInstanceOf(
        DigestQueueError,
      );
    });

    it("moves a message to the dead letters after maxReceiveCount receives, and redrives it", async () => {
      const { queue } = await harness({ maxReceiveCount: 3 });
      await queue.send(message("poison", "org_1:t9", "poison-1"));
      const counts: number[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        const [received] = await queue.receive(1);
        counts.push(received?.receiveCount ?? 0);
        await queue.changeVisibility(received?.receiptHandle ?? "", 0);
      }
      expect(counts).toEqual([1, 2, 3]);
      expect(await queue.receive(10)).toEqual([]);

      const deadLetters = queue.deadLetters;
      if (deadLetters === undefined) throw new Error("the harness must give a queue with dead letters");
      const [dead, ...more] = await deadLetters.receive(10);
      expect(more).toEqual([]);
      expect(dead).toMatchObject({ body: "poison", groupId: "org_1:t9", deduplicationId: "poison-1" });
      // Released after a look, it can be received again.
      expect(await deadLetters.receive(10)).toEqual([]);
      await deadLetters.changeVisibility(dead?.receiptHandle ?? "", 0);
      const [again] = await deadLetters.receive(10);
      expect(again).toMatchObject({ body: "poison", messageId: dead?.messageId });

      await deadLetters.redrive(again as ReceivedDigestMessage);
      const [back] = await queue.receive(10);
      expect(back).toMatchObject({ body: "poison", groupId: "org_1:t9", receiveCount: 1 });
      expect(back?.deduplicationId).not.toBe("poison-1");
      expect(await deadLetters.receive(10)).toEqual([]);
    });

    it("takes a message straight into the dead letters with its reason, once per source message", async () => {
      const { queue } = await harness();
      const deadLetters = queue.deadLetters;
      if (deadLetters === undefined) throw new Error("the harness must give a queue with dead letters");
      const poison = message("{not json", "org_1:t3", "turn-3");
      await deadLetters.send(poison, "body is not JSON", "source-1");
      await deadLetters.send(poison, "body is not JSON", "source-1");
      const [dead, ...more] = await deadLetters.receive(10);
      expect(more).toEqual([]);
      expect(dead).toMatchObject({
        body: "{not json",
        groupId: "org_1:t3",
        deadLetterReason: "body is not JSON",
      });
      expect(await queue.receive(10)).toEqual([]);
    });

    it("counts the dead letters visible and not received", async () => {
      const { queue } = await harness();
      const deadLetters = queue.deadLetters;
      if (deadLetters === undefined) throw new Error("the harness must give a queue with dead letters");
      expect(await deadLetters.countVisible()).toBe(0);
      await deadLetters.send(message("a", "org_1:ta"), "poison", "source-a");
      await deadLetters.send(message("b", "org_1:tb"), "poison", "source-b");
      expect(await deadLetters.countVisible()).toBe(2);
      const [received] = await deadLetters.receive(1);
      expect(await deadLetters.countVisible()).toBe(1);
      await deadLetters.delete(received?.receiptHandle ?? "");
      expect(await deadLetters.countVisible()).toBe(1);
    });

    it("holds every message back for the queue's delivery delay", async () => {
      const { queue, advance } = await harness({ delaySeconds: 1 });
      await queue.send(message("settling"));
      expect(await queue.receive(10)).toEqual([]);
      await advance(1.5);
      expect((await queue.receive(10)).map((received) => received.body)).toEqual(["settling"]);
    });

    it("rejects requests SQS would refuse, as DigestQueueError", async () => {
      const { queue } = await harness();
      const refusals = [
        queue.send(message("no group", "")),
        queue.send(message("bad group", "g".repeat(129))),
        queue.send(message("bad dedupe", "g", "has space")),
        queue.send(message("", "g", "empty-body")),
        queue.receive(0),
        queue.receive(11),
        queue.receive(1, { visibilityTimeoutSeconds: 43_201 }),
        queue.receive(1, { waitTimeSeconds: 21 }),
        queue.receive(1, { waitTimeSeconds: -1 }),
      ];
      for (const refusal of refusals) {
        await expect(refusal).rejects.toBeInstanceOf(DigestQueueError);
      }
    });

    it("takes a wait time (long polling) and answers with what is visible", async () => {
      const { queue } = await harness();
      await queue.send(message("waiting"));
      const received = await queue.receive(10, { waitTimeSeconds: 1 });
      expect(received.map((item) => item.body)).toEqual(["waiting"]);
    });

    it("abandons a receive whose signal is aborted, taking nothing", async () => {
      const { queue } = await harness();
      await queue.send(message("kept"));
      await expect(queue.receive(10, { signal: AbortSignal.abort() })).rejects.toThrow();
      expect((await queue.receive(10)).map((item) => item.body)).toEqual(["kept"]);
    });
  });
}
