import { describe, expect, it } from "vitest";
import { InvalidTurnEventError } from "../errors";
import { type TurnEndedInput, toTurnEndedEvent } from "./turn-event";

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
