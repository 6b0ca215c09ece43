import { describe, expect, it } from "vitest";
import { InvalidTurnEventError } from "../errors";
import { turnEventMessage } from "./message-ids";
import { type TurnEndedInput, toTurnEndedEvent, turnAnnouncement, turnEventProblems } from "./turn-event";

const VALID: TurnEndedInput = {
  orgId: "org_1",
  threadId: "thread_1",
  rawToolChars: 150_000,
  turnEndedAt: "2026-03-01T14:00:00+02:00",
};

function fieldOf(input: unknown): string | undefined {
  try {
    toTurnEndedEvent(input as TurnEndedInput);
  } catch (error) {
    if (error instanceof InvalidTurnEventError) return error.field;
    throw error;
  }
  return undefined;
}

describe("toTurnEndedEvent", () => {
  it("keeps the ids and writes the instant in UTC", () => {
    expect(toTurnEndedEvent(VALID)).toEqual({
      orgId: "org_1",
      threadId: "thread_1",
      rawToolChars: 150_000,
      turnEndedAt: "2026-03-01T12:00:00.000Z",
    });
  });

  it("names the field that is wrong", () => {
    expect(fieldOf(null)).toBe("event");
    expect(fieldOf({ ...VALID, orgId: " " })).toBe("orgId");
    expect(fieldOf({ ...VALID, orgId: "o".repeat(201) })).toBe("orgId");
    expect(fieldOf({ ...VALID, threadId: 7 })).toBe("threadId");
    expect(fieldOf({ ...VALID, threadId: "t".repeat(501) })).toBe("threadId");
    expect(fieldOf({ ...VALID, rawToolChars: -1 })).toBe("rawToolChars");
    expect(fieldOf({ ...VALID, rawToolChars: 1.5 })).toBe("rawToolChars");
    expect(fieldOf({ ...VALID, rawToolChars: "9" })).toBe("rawToolChars");
    expect(fieldOf({ ...VALID, turnEndedAt: "2026-02-30T12:00:00Z" })).toBe("turnEndedAt");
    expect(fieldOf({ ...VALID, turnEndedAt: "2026-03-01T24:00:00Z" })).toBe("turnEndedAt");
    expect(fieldOf({ ...VALID, turnEndedAt: 1_772_366_400_000 })).toBe("turnEndedAt");
    expect(fieldOf({ ...VALID, turnEndedAt: "2024-02-29T23:59:59.5-05:30" })).toBeUndefined();
    expect(fieldOf({ ...VALID, orgId: "o".repeat(200), threadId: "t".repeat(500) })).toBeUndefined();
  });
});

describe("the announced turn", () => {
  const ANNOUNCED = { ...VALID, messageCount: 27, lastMessageId: "msg_01HX" };

  it("keeps the message count and the latest message id the runtime saw, and sends them", () => {
    const event = toTurnEndedEvent(ANNOUNCED);
    expect(event).toEqual({
      orgId: "org_1",
      threadId: "thread_1",
      rawToolChars: 150_000,
      turnEndedAt: "2026-03-01T12:00:00.000Z",
      messageCount: 27,
      lastMessageId: "msg_01HX",
    });
    expect(JSON.parse(turnEventMessage(event).body)).toEqual(event);
  });

  it("is optional: an event without it has exactly its four fields, as an older runtime sends them", () => {
    const event = toTurnEndedEvent(VALID);
    expect(Object.keys(event)).toEqual(["orgId", "threadId", "rawToolChars", "turnEndedAt"]);
    expect(Object.keys(JSON.parse(turnEventMessage(event).body))).toEqual(Object.keys(event));
    expect(turnEventProblems({ ...VALID, turnEndedAt: "2026-03-01T12:00:00Z" })).toEqual([]);
  });

  it("does not change the deduplication id: a retried publish announces the same turn", () => {
    expect(turnEventMessage(toTurnEndedEvent(ANNOUNCED)).deduplicationId).toBe(
      turnEventMessage(toTurnEndedEvent(VALID)).deduplicationId,
    );
  });

  it("names a bad message count or message id", () => {
    expect(fieldOf({ ...VALID, messageCount: -1 })).toBe("messageCount");
    expect(fieldOf({ ...VALID, messageCount: 2.5 })).toBe("messageCount");
    expect(fieldOf({ ...VALID, messageCount: null })).toBe("messageCount");
    expect(fieldOf({ ...VALID, messageCount: 2 ** 31 })).toBe("messageCount");
    expect(fieldOf({ ...VALID, lastMessageId: "" })).toBe("lastMessageId");
    expect(fieldOf({ ...VALID, lastMessageId: 42 })).toBe("lastMessageId");
    expect(fieldOf({ ...VALID, lastMessageId: "m\u0000" })).toBe("lastMessageId");
    expect(fieldOf({ ...VALID, lastMessageId: "m".repeat(501) })).toBe("lastMessageId");
    expect(fieldOf({ ...VALID, messageCount: 0, lastMessageId: "m".repeat(500) })).toBeUndefined();
  });

  it("is read from the thread as the runtime holds it: its length and its latest message's id", () => {
    expect(turnAnnouncement([{ id: "a" }, {}, { id: "c" }])).toEqual({ messageCount: 3, lastMessageId: "c" });
    // A latest message without an id, or with one the event cannot carry, announces the count only.
    expect(turnAnnouncement([{ id: "a" }, {}])).toEqual({ messageCount: 2 });
    expect(turnAnnouncement([{ id: "x".repeat(501) }])).toEqual({ messageCount: 1 });
    expect(turnAnnouncement([])).toEqual({ messageCount: 0 });
  });
});

describe("the mid-turn mark", () => {
  it("keeps midTurn: true, drops midTurn: false (a turn-ended event, as before), and refuses anything else", () => {
    expect(toTurnEndedEvent({ ...VALID, midTurn: true })).toMatchObject({ midTurn: true });
    expect(toTurnEndedEvent({ ...VALID, midTurn: false })).not.toHaveProperty("midTurn");
    expect(fieldOf({ ...VALID, midTurn: "yes" })).toBe("midTurn");
    expect(turnEventProblems({ ...toTurnEndedEvent(VALID), midTurn: 1 })).toEqual([
      { field: "midTurn", problem: "must be a boolean" },
    ]);
    // An event of an older runtime, without the mark, is valid.
    expect(turnEventProblems(toTurnEndedEvent(VALID))).toEqual([]);
  });

  it("is in the message body only for a mid-turn event", () => {
    const midTurn = turnEventMessage(toTurnEndedEvent({ ...VALID, midTurn: true, messageCount: 4 }));
    expect(JSON.parse(midTurn.body)).toMatchObject({ midTurn: true, messageCount: 4 });
    const ended = turnEventMessage(toTurnEndedEvent({ ...VALID, midTurn: false, messageCount: 4 }));
    expect(JSON.parse(ended.body)).not.toHaveProperty("midTurn");
    expect(ended.deduplicationId).not.toBe(midTurn.deduplicationId);
  });
});
