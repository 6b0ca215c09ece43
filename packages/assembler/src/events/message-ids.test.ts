import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidTurnEventError } from "../errors";
import { midTurnEventDeduplicationId, turnEventDeduplicationId, turnEventGroupId } from "./message-ids";

// SQS FIFO group and deduplication ids: 1–128 characters, alphanumeric or ASCII punctuation.
const SQS_ID = /^[\x21-\x7e]{1,128}$/;
// Property runs: 1,000 in CI, as for every property test.
const NUM_RUNS = process.env.CI ? 1_000 : 200;

describe("turnEventGroupId", () => {
  it("is readable for ordinary ids and the same for every event of a thread", () => {
    expect(turnEventGroupId("org_1", "thread-9")).toBe("org_1:thread-9");
    expect(turnEventGroupId("org_1", "thread-9")).toBe(turnEventGroupId("org_1", "thread-9"));
  });

  it("keeps threads apart when an id contains the separator", () => {
    expect(turnEventGroupId("a:b", "c")).not.toBe(turnEventGroupId("a", "b:c"));
    expect(turnEventGroupId("a:b", "c")).toMatch(SQS_ID);
  });

  it("hashes pairs that would not fit 128 characters, or have no UTF-8 form", () => {
    const long = turnEventGroupId("org", "t".repeat(200));
    expect(long).toMatch(/^[0-9a-f]{64}$/);
    expect(long).not.toBe(turnEventGroupId("org", "t".repeat(201)));
    expect(turnEventGroupId("org", "broken \ud800 surrogate")).toMatch(/^[0-9a-f]{64}$/);
    expect(turnEventGroupId("é", "ü")).toBe("%C3%A9:%C3%BC");
  });

  it("always gives a valid SQS id, distinct for distinct threads", () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 500 })),
        fc.tuple(fc.string({ minLength: 1, maxLength: 200 }), fc.string({ minLength: 1, maxLength: 500 })),
        ([orgA, threadA], [orgB, threadB]) => {
          const a = turnEventGroupId(orgA, threadA);
          expect(a).toMatch(SQS_ID);
          if (orgA !== orgB || threadA !== threadB) expect(a).not.toBe(turnEventGroupId(orgB, threadB));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe("turnEventDeduplicationId", () => {
  it("is the sha256 hex of org, thread and the UTC instant", () => {
    const expected = createHash("sha256")
      .update(JSON.stringify(["turn-ended", "org_1", "t1", "2026-03-01T12:00:00.000Z"]))
      .digest("hex");
    expect(turnEventDeduplicationId("org_1", "t1", "2026-03-01T12:00:00Z")).toBe(expected);
  });

  it("is the same for one instant however it is written, and differs per turn, thread and org", () => {
    const id = turnEventDeduplicationId("org_1", "t1", new Date("2026-03-01T12:00:00Z"));
    expect(turnEventDeduplicationId("org_1", "t1", "2026-03-01T14:00:00+02:00")).toBe(id);
    expect(turnEventDeduplicationId("org_1", "t1", "2026-03-01T12:00:00.001Z")).not.toBe(id);
    expect(turnEventDeduplicationId("org_1", "t2", "2026-03-01T12:00:00Z")).not.toBe(id);
    expect(turnEventDeduplicationId("org_2", "t1", "2026-03-01T12:00:00Z")).not.toBe(id);
    expect(id).toMatch(SQS_ID);
  });

  it("rejects an instant that is not one", () => {
    expect(() => turnEventDeduplicationId("org_1", "t1", "yesterday")).toThrow(InvalidTurnEventError);
    expect(() => turnEventDeduplicationId("org_1", "t1", "2026-03-01T12:00:00")).toThrow(/offset/);
    expect(() => turnEventDeduplicationId("org_1", "t1", new Date(Number.NaN))).toThrow(
      InvalidTurnEventError,
    );
  });
});

describe("midTurnEventDeduplicationId", () => {
  it("differs from the turn-ended id of the same instant and between successive counts, and is stable for a retry", () => {
    const instant = "2026-03-01T12:00:00Z";
    const first = midTurnEventDeduplicationId("org_1", "t1", instant, 12);
    expect(first).toMatch(SQS_ID);
    expect(midTurnEventDeduplicationId("org_1", "t1", "2026-03-01T13:00:00+01:00", 12)).toBe(first);
    expect(first).not.toBe(turnEventDeduplicationId("org_1", "t1", instant));
    expect(midTurnEventDeduplicationId("org_1", "t1", instant, 20)).not.toBe(first);
    expect(midTurnEventDeduplicationId("org_1", "t1", instant)).not.toBe(first);
    expect(midTurnEventDeduplicationId("org_1", "t1", "2026-03-01T12:00:01Z", 12)).not.toBe(first);
    expect(midTurnEventDeduplicationId("org_1", "t2", instant, 12)).not.toBe(first);
  });
});
