import { describe, expect, it } from "vitest";
import { InvalidPayloadError } from "../errors";
import { DIGEST_JOB_DEFAULTS } from "./options";
import { parseDigestJobPayload } from "./payload";

const at = new Date("2026-11-30T10:00:00.000Z");
const valid = { orgId: "acme", threadId: "thread-42", rawToolChars: 410_000, turnEndedAt: at.toISOString() };

function payloadError(value: unknown): InvalidPayloadError {
  try {
    parseDigestJobPayload(value);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidPayloadError);
    return error as InvalidPayloadError;
  }
  throw new Error("expected an InvalidPayloadError");
}

describe("parseDigestJobPayload: counts", () => {
  it("refuses rawToolChars beyond what the pass record stores (2^31 − 1)", () => {
    expect(payloadError({ ...valid, rawToolChars: 2 ** 31 }).issues.join()).toMatch(/^rawToolChars: /);
    expect(parseDigestJobPayload({ ...valid, rawToolChars: 2 ** 31 - 1 }).rawToolChars).toBe(2 ** 31 - 1);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "410000"])("refuses rawToolChars %s", (value) => {
    expect(payloadError({ ...valid, rawToolChars: value }).issues.join()).toMatch(/^rawToolChars: /);
  });
});

describe("parseDigestJobPayload: a turn time ahead of the worker's clock", () => {
  const ahead = (ms: number) => ({ ...valid, turnEndedAt: new Date(at.getTime() + ms).toISOString() });

  it("refuses a turn that ends more than the allowed skew ahead: non-retryable", () => {
    const error = (() => {
      try {
        parseDigestJobPayload(ahead(60 * 60_000), { now: at });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidPayloadError);
    expect(error).toMatchObject({ code: "invalid_payload", retryable: false });
    expect((error as InvalidPayloadError).issues.join()).toMatch(/^turnEndedAt: .*ahead/);
  });

  it("accepts a turn within the skew (default 5 minutes), and the skew is configurable", () => {
    expect(DIGEST_JOB_DEFAULTS.maxTurnClockSkewSeconds).toBe(300);
    expect(parseDigestJobPayload(ahead(4 * 60_000), { now: at }).turnEndedAt).toBe(
      ahead(4 * 60_000).turnEndedAt,
    );
    expect(
      parseDigestJobPayload(ahead(60 * 60_000), { now: at, maxTurnClockSkewSeconds: 7_200 }).turnEndedAt,
    ).toBe(ahead(60 * 60_000).turnEndedAt);
    expect(() => parseDigestJobPayload(ahead(4 * 60_000), { now: at, maxTurnClockSkewSeconds: 60 })).toThrow(
      InvalidPayloadError,
    );
    // Without a clock, only the event's own rules apply.
    expect(parseDigestJobPayload(ahead(60 * 60_000)).turnEndedAt).toBe(ahead(60 * 60_000).turnEndedAt);
  });
});

describe("parseDigestJobPayload: ids are taken as given, never trimmed", () => {
  it.each([
    ["a plain id", true, "acme"],
    ["letters beyond ASCII", true, "org_01J9Z-ü"],
    ["200 ASCII chars", true, "a".repeat(200)],
    ["201 ASCII chars", false, "a".repeat(201)],
    ["200 bytes of UTF-8", true, "é".repeat(100)],
    ["202 bytes of UTF-8", false, "é".repeat(101)],
    ["surrounding spaces", false, "  acme  "],
    ["a trailing newline", false, "acme\n"],
    ["a tab inside", false, "ac\tme"],
    ["a NUL", false, "ac\u0000me"],
    ["a lone surrogate", false, "ac\ud800me"],
    ["an empty string", false, ""],
    ["only spaces", false, "   "],
  ])("org id with %s: accepted %s", (_label, accepted, orgId) => {
    if (accepted) expect(parseDigestJobPayload({ ...valid, orgId }).orgId).toBe(orgId);
    else expect(payloadError({ ...valid, orgId }).issues.join()).toMatch(/^orgId: /);
  });

  it.each([
    ["a plain id", true, "thread-42"],
    ["500 chars", true, "t".repeat(500)],
    ["501 chars", false, "t".repeat(501)],
    ["a leading space", false, " thread-42"],
    ["a carriage return", false, "thread\r42"],
  ])("thread id with %s: accepted %s", (_label, accepted, threadId) => {
    if (accepted) expect(parseDigestJobPayload({ ...valid, threadId }).threadId).toBe(threadId);
    else expect(payloadError({ ...valid, threadId }).issues.join()).toMatch(/^threadId: /);
  });
});

describe("parseDigestJobPayload: the announced turn", () => {
  it("keeps the message count and latest message id the runtime announced", () => {
    expect(parseDigestJobPayload({ ...valid, messageCount: 31, lastMessageId: "run-7" })).toEqual({
      ...valid,
      messageCount: 31,
      lastMessageId: "run-7",
    });
  });

  it("reads an event without them as before, and drops fields it does not know", () => {
    expect(parseDigestJobPayload({ ...valid, extra: true })).toEqual(valid);
  });

  it("refuses a message count or message id that is not one", () => {
    expect(payloadError({ ...valid, messageCount: -3 }).issues.join()).toMatch(/^messageCount: /);
    expect(payloadError({ ...valid, lastMessageId: "" }).issues.join()).toMatch(/^lastMessageId: /);
  });
});

describe("parseDigestJobPayload: the mid-turn mark", () => {
  it("keeps midTurn: true, reads an event without it (or with false) as a turn-ended one, and refuses anything else", () => {
    expect(parseDigestJobPayload({ ...valid, midTurn: true })).toEqual({ ...valid, midTurn: true });
    expect(parseDigestJobPayload({ ...valid, midTurn: false })).toEqual(valid);
    expect(parseDigestJobPayload(valid)).toEqual(valid);
    expect(payloadError({ ...valid, midTurn: "true" }).issues).toEqual(["midTurn: must be a boolean"]);
  });
});
