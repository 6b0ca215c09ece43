import { InvalidOptionError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { describeDigestQueueConformance } from "#test/core/conformance/digest-queue-conformance";
import { manualClock } from "#test/core/fakes/manual-clock";
import { createInProcessDigestQueue } from "./in-process-queue";

describeDigestQueueConformance(
  "in-process",
  async (settings) => {
    const clock = manualClock();
    return {
      queue: createInProcessDigestQueue({ clock, ...settings }),
      advance: async (seconds) => clock.advance(seconds),
      now: () => clock.now(),
      close: async () => {},
    };
  },
  { severalPerGroup: true },
);

describe("createInProcessDigestQueue", () => {
  it("remembers a deduplication id for the window only", async () => {
    const clock = manualClock();
    const queue = createInProcessDigestQueue({ clock, dedupeWindowSeconds: 300 });
    await queue.send({ body: "first", groupId: "g", deduplicationId: "turn-1" });
    const [first] = await queue.receive(1);
    await queue.delete(first?.receiptHandle ?? "");

    clock.advance(299);
    await queue.send({ body: "inside the window", groupId: "g", deduplicationId: "turn-1" });
    expect(await queue.receive(10)).toEqual([]);

    clock.advance(1);
    await queue.send({ body: "after the window", groupId: "g", deduplicationId: "turn-1" });
    expect((await queue.receive(10)).map((received) => received.body)).toEqual(["after the window"]);
  });

  it("gives a duplicate send the first message's id", async () => {
    const queue = createInProcessDigestQueue({ clock: manualClock() });
    const first = await queue.send({ body: "a", groupId: "g", deduplicationId: "d" });
    const second = await queue.send({ body: "b", groupId: "g", deduplicationId: "d" });
    expect(second.messageId).toBe(first.messageId);
  });

  it("keeps a delayed head of a group ahead of the group's later messages", async () => {
    const clock = manualClock();
    const queue = createInProcessDigestQueue({ clock, delaySeconds: 10 });
    await queue.send({ body: "a1", groupId: "A", deduplicationId: "1" });
    clock.advance(5);
    await queue.send({ body: "a2", groupId: "A", deduplicationId: "2" });
    clock.advance(5);
    expect((await queue.receive(10)).map((received) => received.body)).toEqual(["a1"]);
  });

  it("lets a stale receipt handle delete nothing once the message was received again", async () => {
    const clock = manualClock();
    const queue = createInProcessDigestQueue({ clock, visibilityTimeoutSeconds: 10 });
    await queue.send({ body: "job", groupId: "g", deduplicationId: "d" });
    const [first] = await queue.receive(1);
    clock.advance(10);
    const [second] = await queue.receive(1);

    await queue.delete(first?.receiptHandle ?? "");
    await queue.changeVisibility(second?.receiptHandle ?? "", 0);
    expect((await queue.receive(1))[0]?.receiveCount).toBe(3);
  });

  it("rejects options out of range, naming the option", () => {
    expect(() => createInProcessDigestQueue({ maxReceiveCount: 0 })).toThrow(InvalidOptionError);
    expect(() => createInProcessDigestQueue({ delaySeconds: 901 })).toThrow(/delaySeconds/);
    expect(() => createInProcessDigestQueue({ visibilityTimeoutSeconds: 1.5 })).toThrow(
      /visibilityTimeoutSeconds/,
    );
  });
});
