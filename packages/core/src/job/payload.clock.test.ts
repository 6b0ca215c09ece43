import { describe, expect, it } from "vitest";
import { InvalidPayloadError } from "../errors";
import { parseDigestJobPayload, turnAheadProblem } from "./payload";

const now = new Date("2026-11-30T10:00:00.000Z");
const later = (ms: number) => new Date(now.getTime() + ms);

describe("turnAheadProblem", () => {
  it("accepts a turn that ends exactly the allowed skew ahead, or behind the clock", () => {
    expect(turnAheadProblem(later(300_000), { now })).toBeUndefined();
    expect(turnAheadProblem(later(60_000), { now, maxTurnClockSkewSeconds: 60 })).toBeUndefined();
    expect(turnAheadProblem(later(-3_600_000), { now, maxTurnClockSkewSeconds: 0 })).toBeUndefined();
  });

  it("names how far ahead a turn ends, in whole seconds rounded up, and the skew allowed", () => {
    expect(turnAheadProblem(later(300_001), { now })).toBe(
      "turnEndedAt: 301 s ahead of the worker's clock (at most 300 s allowed)",
    );
    expect(turnAheadProblem(later(90_400), { now, maxTurnClockSkewSeconds: 60 })).toBe(
      "turnEndedAt: 91 s ahead of the worker's clock (at most 60 s allowed)",
    );
  });
});

describe("parseDigestJobPayload: what it returns", () => {
  it("returns the event's four fields only", () => {
    const event = { orgId: "acme", threadId: "t-1", rawToolChars: 5, turnEndedAt: now.toISOString() };
    expect(parseDigestJobPayload({ ...event, extra: "ignored" }, { now })).toStrictEqual(event);
  });

  it("refuses a turn just past the skew with that one problem", () => {
    const event = {
      orgId: "acme",
      threadId: "t-1",
      rawToolChars: 5,
      turnEndedAt: later(300_001).toISOString(),
    };
    let caught: unknown;
    try {
      parseDigestJobPayload(event, { now });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidPayloadError);
    expect((caught as InvalidPayloadError).issues).toEqual([
      "turnEndedAt: 301 s ahead of the worker's clock (at most 300 s allowed)",
    ]);
  });
});
