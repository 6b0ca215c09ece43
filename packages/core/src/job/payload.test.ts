import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import { InvalidPayloadError } from "../errors";
import type { DigestStore } from "../ports";
import { DIGEST_JOB_DEFAULTS } from "./options";
import { parseDigestJobPayload } from "./payload";
import { runDigestJob } from "./run-digest-job";

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

/** A store with nothing in it that records which methods the job called. */
function emptyStore(): DigestStore & { calls: string[] } {
  const calls: string[] = [];
  const called = <T>(name: string, value: T): T => {
    calls.push(name);
    return value;
  };
  return {
    calls,
    upsertDigests: async () => called("upsertDigests", 0),
    loadThreadDigests: async () => called("loadThreadDigests", new Map()),
    findReusableDigests: async () => called("findReusableDigests", new Map()),
    reserveSpend: async () => called("reserveSpend", { ok: true }),
    settleSpend: async () => called("settleSpend", undefined),
    recordPass: async () => called("recordPass", undefined),
    getPass: async () => called("getPass", null),
    recordLatestTurn: async () => called("recordLatestTurn", undefined),
    claimThread: async () => called("claimThread", { claimed: true, coveredTurnEndedAt: null }),
    releaseThread: async () => called("releaseThread", true),
  };
}

function runAt(turnEndedAt: Date, options: { maxTurnClockSkewSeconds?: number } = {}) {
  const store = emptyStore();
  const outcome = runDigestJob(
    { ...valid, turnEndedAt: turnEndedAt.toISOString() },
    {
      checkpoints: { readThread: async () => null },
      store,
      digester: { id: "unused", digest: async () => Promise.reject(new Error("not called")) },
      clock: fixedClock(at),
    },
    options,
  );
  return { store, outcome };
}

describe("parseDigestJobPayload: counts", () => {
  it("refuses rawToolChars beyond what the pass record stores (2^31 − 1), before any I/O", async () => {
    expect(payloadError({ ...valid, rawToolChars: 2 ** 31 }).issues.join()).toMatch(/^rawToolChars: /);
    expect(parseDigestJobPayload({ ...valid, rawToolChars: 2 ** 31 - 1 }).rawToolChars).toBe(2 ** 31 - 1);
    const store = emptyStore();
    const error = await runDigestJob(
      { ...valid, rawToolChars: 2 ** 31 },
      {
        checkpoints: { readThread: async () => null },
        store,
        digester: { id: "unused", digest: async () => Promise.reject(new Error("not called")) },
        clock: fixedClock(at),
      },
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidPayloadError);
    expect(store.calls).toEqual([]);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "410000"])("refuses rawToolChars %s", (value) => {
    expect(payloadError({ ...valid, rawToolChars: value }).issues.join()).toMatch(/^rawToolChars: /);
  });
});

describe("runDigestJob: a turn time ahead of the job's clock", () => {
  it("refuses a turn that ends more than the allowed skew ahead: non-retryable, before any I/O", async () => {
    const { store, outcome } = runAt(new Date(at.getTime() + 60 * 60_000));
    const error = await outcome.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidPayloadError);
    expect(error).toMatchObject({ code: "invalid_payload", retryable: false });
    expect((error as InvalidPayloadError).issues.join()).toMatch(/^turnEndedAt: .*ahead/);
    expect(store.calls).toEqual([]);
  });

  it("accepts a turn within the skew (default 5 minutes), and the skew is configurable", async () => {
    expect(DIGEST_JOB_DEFAULTS.maxTurnClockSkewSeconds).toBe(300);
    const within = runAt(new Date(at.getTime() + 4 * 60_000));
    expect(await within.outcome).toMatchObject({ status: "skipped", reason: "no_checkpoint" });
    const allowed = runAt(new Date(at.getTime() + 60 * 60_000), { maxTurnClockSkewSeconds: 7_200 });
    expect(await allowed.outcome).toMatchObject({ status: "skipped", reason: "no_checkpoint" });
    const strict = runAt(new Date(at.getTime() + 4 * 60_000), { maxTurnClockSkewSeconds: 60 });
    await expect(strict.outcome).rejects.toBeInstanceOf(InvalidPayloadError);
  });

  it("checks the skew at the edge too, when given the clock", () => {
    const ahead = { ...valid, turnEndedAt: new Date(at.getTime() + 60 * 60_000).toISOString() };
    expect(() => parseDigestJobPayload(ahead, { now: at })).toThrow(InvalidPayloadError);
    expect(parseDigestJobPayload(ahead, { now: at, maxTurnClockSkewSeconds: 7_200 }).turnEndedAt).toBe(
      ahead.turnEndedAt,
    );
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
