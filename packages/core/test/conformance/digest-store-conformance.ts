import { setTimeout as sleep } from "node:timers/promises";
import { ContextCleanerError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
// The same rows and org ids as the storage package's own conformance suite.
import { digestRow, uniqueOrg } from "../../../db/test/conformance/conformance-harness";
import type { DigestStore } from "../../src/ports";

/**
 * The `DigestStore` port's behaviour, adapter-independent: run it against every store (the
 * in-memory store, and the storage package's repository on PGlite). It mirrors, through the
 * port's methods only, the storage package's repository conformance suite.
 */

/** How far a database server's clock may be from the test's (PGlite and the in-memory store share it). */
const CLOCK_TOLERANCE_MS = 5_000;

/** The error a store answered with: a non-retryable context-cleaner error. */
async function refusal(work: Promise<unknown>): Promise<ContextCleanerError> {
  const error = await work.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ContextCleanerError);
  expect((error as ContextCleanerError).retryable).toBe(false);
  return error as ContextCleanerError;
}

export function describeDigestStoreConformance(adapter: string, store: () => DigestStore): void {
  describe(`DigestStore conformance: ${adapter}`, () => {
    it("upserts idempotently and loads one thread's digests as a DigestMap", async () => {
      const org = uniqueOrg("load");
      const rows = [
        digestRow({ toolCallId: "a" }),
        digestRow({ toolCallId: "b", kind: "superseded-search" }),
      ];
      expect(await store().upsertDigests(org, rows)).toBe(2);
      await store().upsertDigests(org, [digestRow({ threadId: "thread-2", toolCallId: "a" })]);
      const digests = await store().loadThreadDigests(org, "thread-1");
      expect([...digests.keys()].sort()).toEqual(["a", "b"]);
      expect(digests.get("a")).toEqual({
        digest: rows[0]?.digest,
        contentSha256: rows[0]?.contentSha256,
        digestChars: rows[0]?.digestChars,
        kind: "digest",
      });
      // A redelivered job writes nothing; a changed digest is one write.
      expect(await store().upsertDigests(org, rows)).toBe(0);
      const changed = digestRow({ toolCallId: "a", digest: "new text", digestChars: 8 });
      expect(await store().upsertDigests(org, [changed])).toBe(1);
      expect((await store().loadThreadDigests(org, "thread-1")).get("a")?.digest).toBe("new text");
      expect((await store().loadThreadDigests(org, "thread-2")).size).toBe(1);
      expect((await store().loadThreadDigests(uniqueOrg("other"), "thread-1")).size).toBe(0);
    });

    it("keeps the last of duplicate keys in one batch and counts code points", async () => {
      const org = uniqueOrg("dup");
      const emoji = "figures: 📄 $5";
      const written = await store().upsertDigests(org, [
        digestRow({ toolCallId: "x", digest: "first", digestChars: 5 }),
        digestRow({ toolCallId: "x", digest: emoji, digestChars: [...emoji].length }),
      ]);
      expect(written).toBe(1);
      expect((await store().loadThreadDigests(org, "thread-1")).get("x")?.digest).toBe(emoji);
    });

    it("finds reusable digests for many hashes in one call, the newest per hash, within the org only", async () => {
      const org = uniqueOrg("reuse");
      const older = digestRow({ toolCallId: "m1", threadId: "t-old", digest: "[older] m1", digestChars: 10 });
      const newer = digestRow({
        toolCallId: "m2",
        threadId: "t-new",
        contentSha256: older.contentSha256,
        digest: "[newer] m2",
        digestChars: 10,
      });
      const other = digestRow({ toolCallId: "m3", costUsd: 0.123456 });
      await store().upsertDigests(org, [older]);
      await store().upsertDigests(org, [newer, other]);
      const found = await store().findReusableDigests(org, [
        older.contentSha256,
        other.contentSha256,
        "f".repeat(64),
      ]);
      expect([...found.keys()].sort()).toEqual([older.contentSha256, other.contentSha256].sort());
      expect(found.get(older.contentSha256)).toMatchObject({ toolCallId: "m2", digest: "[newer] m2" });
      expect(found.get(other.contentSha256)).toMatchObject({ ...other });
      expect((await store().findReusableDigests(uniqueOrg("other"), [other.contentSha256])).size).toBe(0);
      expect((await store().findReusableDigests(org, [])).size).toBe(0);
      await refusal(store().findReusableDigests(org, ["ABC"]));
    });

    it.each([
      ["an uppercase hash", { contentSha256: "A".repeat(64) }],
      ["a short hash", { contentSha256: "a".repeat(63) }],
      ["digest chars that do not match the digest", { digest: "abc", digestChars: 4 }],
      ["negative original chars", { originalChars: -1 }],
      ["negative tokens", { inputTokens: -5 }],
      ["an empty tool call id", { toolCallId: "" }],
      ["provenance that is not an object", { provenanceArgs: [] as unknown as Record<string, unknown> }],
      ["a negative cost", { costUsd: -1 }],
      ["a NUL in the digest", { digest: "rent\u0000$5", digestChars: 7 }],
      ["a lone surrogate in a provenance arg", { provenanceArgs: { file_id: "cd\ud800" } }],
      ["a thread id with surrounding spaces", { threadId: " thread-1 " }],
      ["a tool call id over 500 bytes", { toolCallId: "c".repeat(501) }],
    ])("refuses a row with %s, storing nothing of the batch", async (_label, overrides) => {
      const org = uniqueOrg("check");
      const error = await refusal(
        store().upsertDigests(org, [digestRow({ toolCallId: "good" }), digestRow(overrides)]),
      );
      expect(["constraint_violation", "invalid_storage_input"]).toContain(error.code);
      expect(error.message).not.toContain("\u0000");
      expect((await store().loadThreadDigests(org, "thread-1")).size).toBe(0);
    });

    it.each([
      ["empty", ""],
      ["blank", "   "],
      ["missing", undefined as unknown as string],
    ])("refuses an %s org id on every method", async (_label, orgId) => {
      const calls: Array<() => Promise<unknown>> = [
        () => store().upsertDigests(orgId, [digestRow()]),
        () => store().loadThreadDigests(orgId, "thread-1"),
        () => store().findReusableDigests(orgId, ["a".repeat(64)]),
        () => store().reserveSpend(orgId, "2026-11-30", 1, 5),
        () => store().settleSpend(orgId, "2026-11-30", 1, 1),
        () => store().recordPass(orgId, "thread-1", { status: "done", at: new Date() }),
        () => store().getPass(orgId, "thread-1"),
      ];
      for (const call of calls) expect((await refusal(call())).code).toBe("missing_organization");
    });

    it.each([
      ["surrounding spaces", "  acme  "],
      ["a control character", "ac\tme"],
      ["a NUL", "acme\u0000"],
      ["more than 200 bytes", "a".repeat(201)],
    ])("refuses an org id with %s, never trimming it", async (_label, orgId) => {
      const calls: Array<() => Promise<unknown>> = [
        () => store().upsertDigests(orgId, [digestRow()]),
        () => store().loadThreadDigests(orgId, "thread-1"),
        () => store().reserveSpend(orgId, "2026-11-30", 1, 5),
        () => store().recordPass(orgId, "thread-1", { status: "done", at: new Date() }),
        () => store().getPass(orgId, "thread-1"),
      ];
      for (const call of calls) {
        const error = await refusal(call());
        expect(error.code).toBe("invalid_storage_input");
        expect(error.message).toContain("orgId");
      }
    });

    it("never overspends under 50 parallel reservations, and settling reconciles", async () => {
      const org = uniqueOrg("spend");
      const day = "2026-11-30";
      const reservations = await Promise.all(
        Array.from({ length: 50 }, () => store().reserveSpend(org, day, 0.1, 1)),
      );
      expect(reservations.filter((reservation) => reservation.ok)).toHaveLength(10);
      await Promise.all(
        reservations
          .filter((reservation) => reservation.ok)
          .map(() => store().settleSpend(org, day, 0.1, 0.07)),
      );
      // 0.7 spent, nothing reserved: 0.3 fits, then nothing more.
      expect((await store().reserveSpend(org, day, 0.3, 1)).ok).toBe(true);
      expect((await store().reserveSpend(org, day, 0.000001, 1)).ok).toBe(false);
      // Other days and other orgs have their own budgets.
      expect((await store().reserveSpend(org, "2026-12-01", 1, 1)).ok).toBe(true);
      expect((await store().reserveSpend(uniqueOrg("spend"), day, 1, 1)).ok).toBe(true);
    });

    it("lets the reservations of a run that died lapse after their hold: the day's budget is free again", async () => {
      const org = uniqueOrg("lapse");
      const day = "2026-11-30";
      expect((await store().reserveSpend(org, day, 0.2, 1, 50)).ok).toBe(true);
      await store().settleSpend(org, day, 0.2, 0.2);
      // A run reserves 0.7 and dies: while its hold lasts, the day has 0.1 left.
      expect((await store().reserveSpend(org, day, 0.7, 1, 60_000)).ok).toBe(true);
      expect((await store().reserveSpend(org, day, 0.5, 1, 60_000)).ok).toBe(false);
      await sleep(150);
      // Past a hold of 50 ms it no longer counts; what was spent still does.
      expect((await store().reserveSpend(org, day, 0.8, 1, 50)).ok).toBe(true);
      expect((await store().reserveSpend(org, day, 0.000001, 1, 60_000)).ok).toBe(false);
    });

    it("refuses settling more than is reserved, and bad days or amounts", async () => {
      const org = uniqueOrg("settle");
      await store().reserveSpend(org, "2026-11-30", 0.5, 1);
      expect((await refusal(store().settleSpend(org, "2026-11-30", 0.6, 0.6))).code).toBe(
        "constraint_violation",
      );
      expect((await refusal(store().settleSpend(org, "2026-11-29", 0.1, 0.1))).code).toBe(
        "invalid_storage_input",
      );
      expect((await refusal(store().reserveSpend(org, "2026-02-30", 0.1, 1))).message).toMatch(/day/);
      expect((await refusal(store().reserveSpend(org, "2026-11-30", Number.NaN, 1))).message).toMatch(
        /amountUsd/,
      );
      // The refused calls changed nothing: 0.5 is still reserved.
      expect((await store().reserveSpend(org, "2026-11-30", 0.5, 1)).ok).toBe(true);
      expect((await store().reserveSpend(org, "2026-11-30", 0.000001, 1)).ok).toBe(false);
    });

    it("records the latest pass; turn times never move backwards; the store's clock orders and stamps passes", async () => {
      const org = uniqueOrg("pass");
      expect(await store().getPass(org, "t")).toBeNull();
      const turn1 = new Date("2026-11-30T10:00:00Z");
      const turn2 = new Date("2026-11-30T11:00:00Z");
      await store().recordPass(org, "t", {
        status: "done",
        coveredTurnEndedAt: turn2,
        rawToolChars: 250_000,
        digestsWritten: 4,
        // A run whose clock runs an hour ahead.
        at: new Date(Date.now() + 3_600_000),
      });
      await store().recordPass(org, "t", {
        status: "skipped",
        reason: "turn_lock",
        turnEndedAt: turn1,
        coveredTurnEndedAt: turn1,
        at: new Date(),
      });
      expect(await store().getPass(org, "t")).toMatchObject({ coveredTurnEndedAt: turn2 });
      // A later pass whose run's clock reads a day behind is still the latest: it was recorded last.
      const before = Date.now();
      await store().recordPass(org, "t", {
        status: "done",
        coveredTurnEndedAt: new Date("2026-11-30T12:00:00Z"),
        at: new Date(Date.now() - 86_400_000),
      });
      const latest = (await store().getPass(org, "t")) as { status: string; at: Date } | null;
      expect(latest).toMatchObject({ status: "done", coveredTurnEndedAt: new Date("2026-11-30T12:00:00Z") });
      expect(latest?.at.getTime()).toBeGreaterThanOrEqual(before - CLOCK_TOLERANCE_MS);
      expect(latest?.at.getTime()).toBeLessThanOrEqual(Date.now() + CLOCK_TOLERANCE_MS);
      await store().recordPass(org, "t2", { status: "skipped", reason: "nothing_new", at: new Date() });
      expect(await store().getPass(org, "t2")).toMatchObject({ coveredTurnEndedAt: null });
      await refusal(store().recordPass(org, "t", { status: "weird" as "done", at: new Date() }));
      await refusal(store().recordPass(org, "t", { status: "done", rawToolChars: 2 ** 31, at: new Date() }));
      await refusal(store().recordPass(org, " t", { status: "done", at: new Date() }));
    });

    it("lets exactly one of concurrent claims win; a lease expires, and only its owner releases it", async () => {
      const org = uniqueOrg("claim");
      const at = new Date("2026-11-30T10:00:00Z");
      const before = Date.now();
      const claims = await Promise.all(
        ["run-a", "run-b", "run-c"].map((owner) =>
          store().claimThread(org, "t", { owner, at, leaseMs: 60_000 }),
        ),
      );
      const after = Date.now();
      expect(claims.filter((claim) => claim.claimed)).toHaveLength(1);
      const winner = ["run-a", "run-b", "run-c"][claims.findIndex((claim) => claim.claimed)] as string;
      const loser = winner === "run-a" ? "run-b" : "run-a";
      // The lease runs leaseMs from the store's now, not from the claimant's `at`.
      const heldUntil = (claims.find((claim) => !claim.claimed) as { heldUntil: Date }).heldUntil;
      expect(heldUntil.getTime()).toBeGreaterThanOrEqual(before + 60_000 - CLOCK_TOLERANCE_MS);
      expect(heldUntil.getTime()).toBeLessThanOrEqual(after + 60_000 + CLOCK_TOLERANCE_MS);
      // The owner may claim again; another run may not, until the lease expires.
      expect((await store().claimThread(org, "t", { owner: winner, at, leaseMs: 60_000 })).claimed).toBe(
        true,
      );
      expect((await store().claimThread(org, "t", { owner: loser, at, leaseMs: 60_000 })).claimed).toBe(
        false,
      );
      expect(await store().releaseThread(org, "t", loser)).toBe(false);
      // A lease of 1 ms has expired by the store's clock once 20 ms have passed.
      expect((await store().claimThread(org, "t", { owner: winner, at, leaseMs: 1 })).claimed).toBe(true);
      await sleep(20);
      expect((await store().claimThread(org, "t", { owner: loser, at, leaseMs: 60_000 })).claimed).toBe(true);
      expect(await store().releaseThread(org, "t", winner)).toBe(false);
      expect(await store().releaseThread(org, "t", loser)).toBe(true);
      expect((await store().claimThread(org, "t", { owner: winner, at, leaseMs: 60_000 })).claimed).toBe(
        true,
      );
      await refusal(store().claimThread(org, "t", { owner: "", at, leaseMs: 60_000 }));
      await refusal(store().claimThread(org, "t", { owner: "run-d", at, leaseMs: 0 }));
    });

    it("judges a lease by the store's clock, whatever the claimant's says", async () => {
      const org = uniqueOrg("claim-clock");
      const farAhead = new Date(Date.now() + 30 * 86_400_000);
      const farBehind = new Date("2000-01-01T00:00:00Z");
      // A claimant whose clock runs a month ahead does not see a live lease as expired.
      expect(
        (await store().claimThread(org, "live", { owner: "holder", at: farBehind, leaseMs: 60_000 })).claimed,
      ).toBe(true);
      expect(
        (await store().claimThread(org, "live", { owner: "ahead", at: farAhead, leaseMs: 60_000 })).claimed,
      ).toBe(false);
      expect(await store().holdsLease(org, "live", "holder")).toBe(true);
      // One whose clock runs decades behind still takes a lease that expired by the store's clock.
      expect(
        (await store().claimThread(org, "lapsed", { owner: "dead", at: farAhead, leaseMs: 1 })).claimed,
      ).toBe(true);
      await sleep(20);
      expect(await store().holdsLease(org, "lapsed", "dead")).toBe(false);
      expect(
        (await store().claimThread(org, "lapsed", { owner: "behind", at: farBehind, leaseMs: 60_000 }))
          .claimed,
      ).toBe(true);
      expect(await store().holdsLease(org, "lapsed", "behind")).toBe(true);
      expect(await store().holdsLease(org, "lapsed", "dead")).toBe(false);
    });

    it("commits a pass only under its run's lease: a stale holder's commit after a takeover writes nothing", async () => {
      const org = uniqueOrg("fence");
      const at = new Date("2026-11-30T10:00:00Z");
      const pass = { status: "done" as const, coveredTurnEndedAt: at, turnEndedAt: at, at };
      await store().claimThread(org, "thread-1", { owner: "stale", at, leaseMs: 1 });
      await sleep(20);
      // Its lease lapsed: even before anyone takes it over, the stale run writes nothing.
      const staleRow = digestRow({
        toolCallId: "a",
        digest: "[Condensed by context-cleaner] the stale run's text",
      });
      expect(
        await store().commitLeasedPass(org, "thread-1", { owner: "stale", rows: [staleRow], pass }),
      ).toEqual({
        committed: false,
      });
      expect((await store().loadThreadDigests(org, "thread-1")).size).toBe(0);
      expect(await store().getPass(org, "thread-1")).toMatchObject({ status: "skipped", reason: "claimed" });
      // The new holder commits; its rows and pass stand against the stale run's late commit.
      expect(
        (await store().claimThread(org, "thread-1", { owner: "new", at, leaseMs: 60_000 })).claimed,
      ).toBe(true);
      const newRow = digestRow({
        toolCallId: "a",
        digest: "[Condensed by context-cleaner] the new holder's text",
      });
      expect(await store().commitLeasedPass(org, "thread-1", { owner: "new", rows: [newRow], pass })).toEqual(
        {
          committed: true,
          digestsWritten: 1,
        },
      );
      const committedAt = ((await store().getPass(org, "thread-1")) as { at: Date } | null)?.at;
      const later = new Date(at.getTime() + 60_000);
      expect(
        await store().commitLeasedPass(org, "thread-1", {
          owner: "stale",
          rows: [staleRow, digestRow({ toolCallId: "b" })],
          pass: { status: "failed", at: later },
        }),
      ).toEqual({ committed: false });
      const digests = await store().loadThreadDigests(org, "thread-1");
      expect([...digests.keys()]).toEqual(["a"]);
      expect(digests.get("a")?.digest).toBe(newRow.digest);
      expect(await store().getPass(org, "thread-1")).toMatchObject({
        status: "done",
        coveredTurnEndedAt: at,
        digestsWritten: 1,
      });
      // The holder's replay writes nothing new; after its release its commit is refused too.
      expect(await store().commitLeasedPass(org, "thread-1", { owner: "new", rows: [newRow], pass })).toEqual(
        {
          committed: true,
          digestsWritten: 0,
        },
      );
      expect(await store().releaseThread(org, "thread-1", "new")).toBe(true);
      expect(await store().holdsLease(org, "thread-1", "new")).toBe(false);
      expect(
        await store().commitLeasedPass(org, "thread-1", {
          owner: "new",
          rows: [],
          pass: { status: "failed", at: later },
        }),
      ).toEqual({ committed: false });
      expect(await store().getPass(org, "thread-1")).toMatchObject({ status: "done" });
      // A row of another thread would escape the lease: refused, and nothing is written.
      await store().claimThread(org, "thread-1", { owner: "next", at, leaseMs: 60_000 });
      await refusal(
        store().commitLeasedPass(org, "thread-1", {
          owner: "next",
          rows: [digestRow({ threadId: "thread-2" })],
          pass: { status: "done", at: later },
        }),
      );
      expect((await store().loadThreadDigests(org, "thread-2")).size).toBe(0);
      // The holder's replay recorded its pass again; nothing since.
      expect(await store().getPass(org, "thread-1")).toMatchObject({ status: "done" });
      expect(
        ((await store().getPass(org, "thread-1")) as { at: Date } | null)?.at.getTime(),
      ).toBeGreaterThanOrEqual(committedAt?.getTime() ?? Number.NaN);
    });

    it("records a claimed thread that had no pass as skipped / claimed at its turn, and moves an existing record's latest turn only forward", async () => {
      const org = uniqueOrg("claim-record");
      const at = new Date("2026-11-30T10:00:00Z");
      const turn = new Date("2026-11-30T09:59:00Z");
      await store().claimThread(org, "new", { owner: "run-a", at, leaseMs: 60_000, turnEndedAt: turn });
      // A run that dies now leaves a record the sweep sees (active since its pass).
      expect(await store().getPass(org, "new")).toMatchObject({
        status: "skipped",
        reason: "claimed",
        coveredTurnEndedAt: null,
        latestTurnEndedAt: turn,
      });
      const covered = new Date("2026-11-30T09:00:00Z");
      await store().recordPass(org, "old", { status: "done", coveredTurnEndedAt: covered, at: covered });
      await store().claimThread(org, "old", { owner: "run-b", at, leaseMs: 60_000, turnEndedAt: turn });
      expect(await store().getPass(org, "old")).toMatchObject({
        status: "done",
        reason: null,
        coveredTurnEndedAt: covered,
        latestTurnEndedAt: turn,
      });
      await store().releaseThread(org, "old", "run-b");
      await store().claimThread(org, "old", { owner: "run-c", at, leaseMs: 60_000, turnEndedAt: covered });
      expect(await store().getPass(org, "old")).toMatchObject({ latestTurnEndedAt: turn });
    });

    it("raises a thread's latest turn without touching its status, reason, covered turn or lease", async () => {
      const org = uniqueOrg("latest-turn");
      const at = new Date("2026-11-30T10:00:00Z");
      const covered = new Date("2026-11-30T09:00:00Z");
      const newer = new Date("2026-11-30T09:59:00Z");
      await store().recordPass(org, "t", { status: "done", coveredTurnEndedAt: covered, at: covered });
      const recordedAt = ((await store().getPass(org, "t")) as { at: Date } | null)?.at;
      await store().claimThread(org, "t", { owner: "holder", at, leaseMs: 60_000, turnEndedAt: covered });
      // A run that found the lease held raises the latest turn; the holder's record stays its own.
      await store().recordLatestTurn(org, "t", { turnEndedAt: newer, at });
      expect(await store().getPass(org, "t")).toMatchObject({
        status: "done",
        reason: null,
        coveredTurnEndedAt: covered,
        latestTurnEndedAt: newer,
        at: recordedAt,
      });
      // Never backwards; the holder still holds the lease and its later pass still records.
      await store().recordLatestTurn(org, "t", { turnEndedAt: covered, at });
      expect(await store().getPass(org, "t")).toMatchObject({ latestTurnEndedAt: newer });
      expect((await store().claimThread(org, "t", { owner: "other", at, leaseMs: 60_000 })).claimed).toBe(
        false,
      );
      await store().recordPass(org, "t", {
        status: "partial",
        reason: "call_cap",
        at: new Date("2026-11-30T10:01:00Z"),
      });
      expect(await store().getPass(org, "t")).toMatchObject({ status: "partial", latestTurnEndedAt: newer });
      // A thread with no record gets one the sweep sees: skipped / claimed, nothing covered.
      await store().recordLatestTurn(org, "new", { turnEndedAt: newer, at });
      expect(await store().getPass(org, "new")).toMatchObject({
        status: "skipped",
        reason: "claimed",
        coveredTurnEndedAt: null,
        latestTurnEndedAt: newer,
      });
      await refusal(store().recordLatestTurn(org, " t", { turnEndedAt: newer, at }));
      await refusal(store().recordLatestTurn(org, "t", { turnEndedAt: new Date(Number.NaN), at }));
    });
  });
}
