import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { createDigestRepository } from "../../src/digest-repository";
import {
  ConstraintViolationError,
  InvalidStorageInputError,
  MissingOrganizationError,
} from "../../src/errors";
import type { DigestRepository, PassInput } from "../../src/repository-types";
import { type ConformanceHarness, digestRow, uniqueOrg } from "./conformance-harness";

/** How far a database server's clock may be from the test's (PGlite's is the test's own). */
const CLOCK_TOLERANCE_MS = 5_000;

/**
 * The repository's behaviour, engine-independent: run it against every adapter
 * (PGlite in the unit tier, Debian's postgres and the Neon driver in the services tier).
 */
export function describeRepositoryConformance(engine: string, harness: () => ConformanceHarness): void {
  const repository = (): DigestRepository => createDigestRepository(harness().database);
  /** Records a pass as if the database's clock had read `pass.at` (the repository stamps its own now). */
  const recordPassAt = async (orgId: string, threadId: string, pass: PassInput & { at: Date }) => {
    await repository().recordPass(orgId, threadId, pass);
    await harness().ownerTransaction([
      `update thread_pass set recorded_at = '${pass.at.toISOString()}' where org_id = '${orgId}' and thread_id = '${threadId}'`,
    ]);
  };

  describe(`digest repository on ${engine}`, () => {
    it("upserts idempotently and loads one thread's digests as a DigestMap", async () => {
      const org = uniqueOrg("load");
      const rows = [
        digestRow({ toolCallId: "a" }),
        digestRow({ toolCallId: "b", kind: "superseded-search" }),
      ];
      expect(await repository().upsertDigests(org, rows)).toBe(2);
      await repository().upsertDigests(org, [digestRow({ threadId: "thread-2", toolCallId: "a" })]);

      const digests = await repository().loadThreadDigests(org, "thread-1");
      expect([...digests.keys()].sort()).toEqual(["a", "b"]);
      expect(digests.get("a")).toEqual({
        digest: rows[0]?.digest,
        contentSha256: rows[0]?.contentSha256,
        digestChars: rows[0]?.digestChars,
        kind: "digest",
      });
      expect(digests.get("b")?.kind).toBe("superseded-search");

      // A redelivered job writes nothing; a changed digest is one write.
      expect(await repository().upsertDigests(org, rows)).toBe(0);
      const changed = digestRow({ toolCallId: "a", digest: "new text", digestChars: 8 });
      expect(await repository().upsertDigests(org, [changed])).toBe(1);
      expect((await repository().loadThreadDigests(org, "thread-1")).get("a")?.digest).toBe("new text");
      expect((await repository().loadThreadDigests(org, "thread-2")).size).toBe(1);
    });

    it("keeps the last of duplicate keys in one batch and counts code points", async () => {
      const org = uniqueOrg("dup");
      const emoji = "figures: 📄 $5";
      const written = await repository().upsertDigests(org, [
        digestRow({ toolCallId: "x", digest: "first", digestChars: 5 }),
        digestRow({ toolCallId: "x", digest: emoji, digestChars: [...emoji].length }),
      ]);
      expect(written).toBe(1);
      expect((await repository().loadThreadDigests(org, "thread-1")).get("x")?.digest).toBe(emoji);
    });

    it("finds a reusable digest by content hash within the org only", async () => {
      const org = uniqueOrg("reuse");
      const row = digestRow({ toolCallId: "r1", costUsd: 0.123456 });
      await repository().upsertDigests(org, [row]);
      const found = await repository().findReusableDigest(org, row.contentSha256);
      expect(found).toMatchObject({ orgId: org, toolCallId: "r1", digest: row.digest, costUsd: 0.123456 });
      expect(found?.createdAt).toBeInstanceOf(Date);
      expect(await repository().findReusableDigest(uniqueOrg("other"), row.contentSha256)).toBeNull();
      await expect(repository().findReusableDigest(org, "ABC")).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
    });

    it("finds reusable digests for many hashes in one call, the newest per hash, within the org only", async () => {
      const org = uniqueOrg("reuse-many");
      const older = digestRow({ toolCallId: "m1", threadId: "t-old", digest: "[older] m1" });
      const newer = digestRow({
        toolCallId: "m2",
        threadId: "t-new",
        contentSha256: older.contentSha256,
        digest: "[newer] m2",
      });
      const other = digestRow({ toolCallId: "m3" });
      await repository().upsertDigests(org, [older]);
      await repository().upsertDigests(org, [newer, other]);
      const missing = "f".repeat(64);
      const found = await repository().findReusableDigests(org, [
        older.contentSha256,
        other.contentSha256,
        missing,
      ]);
      expect([...found.keys()].sort()).toEqual([older.contentSha256, other.contentSha256].sort());
      expect(found.get(older.contentSha256)?.toolCallId).toBe("m2");
      expect((await repository().findReusableDigests(uniqueOrg("other"), [other.contentSha256])).size).toBe(
        0,
      );
      expect((await repository().findReusableDigests(org, [])).size).toBe(0);
    });

    it("deletes a thread's digests (recovery) and nothing else", async () => {
      const org = uniqueOrg("delete");
      await repository().upsertDigests(org, [digestRow(), digestRow(), digestRow({ threadId: "keep" })]);
      expect(await repository().deleteThreadDigests(org, "thread-1")).toBe(2);
      expect((await repository().loadThreadDigests(org, "thread-1")).size).toBe(0);
      expect((await repository().loadThreadDigests(org, "keep")).size).toBe(1);
    });

    it("summarizes a thread's digests: rows, original and digest chars, that thread only", async () => {
      const org = uniqueOrg("summary");
      const first = digestRow({ originalChars: 58_000 });
      const second = digestRow({ originalChars: 20_000 });
      await repository().upsertDigests(org, [first, second, digestRow({ threadId: "other" })]);
      expect(await repository().summarizeThreadDigests(org, "thread-1")).toEqual({
        digests: 2,
        originalChars: 78_000,
        digestChars: first.digestChars + second.digestChars,
      });
      expect(await repository().summarizeThreadDigests(org, "none")).toEqual({
        digests: 0,
        originalChars: 0,
        digestChars: 0,
      });
      expect(await repository().summarizeThreadDigests(uniqueOrg("other-org"), "thread-1")).toMatchObject({
        digests: 0,
      });
    });

    it.each([
      ["uppercase hash", { contentSha256: "A".repeat(64) }, "context_digest_sha256_hex"],
      ["short hash", { contentSha256: "a".repeat(63) }, "context_digest_sha256_hex"],
      [
        "digest chars that do not match the digest",
        { digest: "abc", digestChars: 4 },
        "context_digest_digest_chars_match",
      ],
      ["negative original chars", { originalChars: -1 }, "context_digest_original_chars_nonnegative"],
      ["negative tokens", { inputTokens: -5 }, "context_digest_usage_nonnegative"],
      ["an empty tool call id", { toolCallId: "" }, "context_digest_tool_call_id_nonempty"],
      [
        "provenance that is not an object",
        { provenanceArgs: [] as unknown as Record<string, unknown> },
        "context_digest_provenance_object",
      ],
    ])("refuses a row with %s, storing nothing of the batch", async (_label, overrides, constraint) => {
      const org = uniqueOrg("check");
      const error = await repository()
        .upsertDigests(org, [digestRow({ toolCallId: "good" }), digestRow(overrides)])
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConstraintViolationError);
      expect(error).toMatchObject({ code: "constraint_violation", sqlState: "23514", constraint });
      expect((await repository().loadThreadDigests(org, "thread-1")).size).toBe(0);
    });

    it("refuses a negative cost before the database", async () => {
      await expect(
        repository().upsertDigests(uniqueOrg("cost"), [digestRow({ costUsd: -1 })]),
      ).rejects.toThrow(/costUsd/);
    });

    it.each([
      ["empty", ""],
      ["blank", "   "],
      ["missing", undefined as unknown as string],
      ['"undefined" (a stringified missing)', "undefined"],
    ])("refuses an %s org id on every org-scoped method", async (_label, orgId) => {
      const calls: Array<() => Promise<unknown>> = [
        () => repository().upsertDigests(orgId, [digestRow()]),
        () => repository().loadThreadDigests(orgId, "thread-1"),
        () => repository().findReusableDigest(orgId, "a".repeat(64)),
        () => repository().deleteThreadDigests(orgId, "thread-1"),
        () => repository().reserveSpend(orgId, "2026-11-30", 1, 5),
        () => repository().settleSpend(orgId, "2026-11-30", 1, 1),
        () => repository().getSpend(orgId, "2026-11-30"),
        () => repository().recordPass(orgId, "thread-1", { status: "done", at: new Date() }),
        () => repository().getPass(orgId, "thread-1"),
        () => repository().claimThread(orgId, "thread-1", { owner: "run", at: new Date(), leaseMs: 1_000 }),
        () => repository().releaseThread(orgId, "thread-1", "run"),
      ];
      for (const call of calls) {
        await expect(call()).rejects.toBeInstanceOf(MissingOrganizationError);
      }
    });

    it("never overspends under 50 parallel reservations, and settling reconciles", async () => {
      const org = uniqueOrg("spend");
      const day = "2026-11-30";
      const reservations = await Promise.all(
        Array.from({ length: 50 }, () => repository().reserveSpend(org, day, 0.1, 1)),
      );
      const granted = reservations.filter((reservation) => reservation.ok);
      expect(granted).toHaveLength(10);
      expect(reservations.every((reservation) => reservation.remainingUsd >= 0)).toBe(true);
      expect(reservations.filter((reservation) => !reservation.ok).every((r) => r.reservedUsd === 0)).toBe(
        true,
      );
      expect(await repository().getSpend(org, day)).toEqual({ reservedUsd: 1, spentUsd: 0 });

      await Promise.all(
        granted.map((reservation) => repository().settleSpend(org, day, reservation.reservedUsd, 0.07)),
      );
      expect(await repository().getSpend(org, day)).toEqual({ reservedUsd: 0, spentUsd: 0.7 });
      expect(await repository().reserveSpend(org, day, 0.3, 1)).toEqual({
        ok: true,
        reservedUsd: 0.3,
        remainingUsd: 0,
      });
      expect((await repository().reserveSpend(org, day, 0.000001, 1)).ok).toBe(false);
      // Other days and other orgs have their own budgets.
      expect((await repository().reserveSpend(org, "2026-12-01", 1, 1)).ok).toBe(true);
      expect((await repository().reserveSpend(uniqueOrg("spend"), day, 1, 1)).ok).toBe(true);
    });

    it("refuses settling more than is reserved, and bad days or amounts", async () => {
      const org = uniqueOrg("settle");
      await repository().reserveSpend(org, "2026-11-30", 0.5, 1);
      await expect(repository().settleSpend(org, "2026-11-30", 0.6, 0.6)).rejects.toBeInstanceOf(
        ConstraintViolationError,
      );
      await expect(repository().settleSpend(org, "2026-11-29", 0.1, 0.1)).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
      await expect(repository().reserveSpend(org, "2026-02-30", 0.1, 1)).rejects.toThrow(/day/);
      await expect(repository().reserveSpend(org, "2026-11-30", Number.NaN, 1)).rejects.toThrow(/amountUsd/);
      expect(await repository().getSpend(org, "2026-11-30")).toEqual({ reservedUsd: 0.5, spentUsd: 0 });
    });

    it("records the latest pass; turn times never move backwards; the database's clock orders and stamps passes", async () => {
      const org = uniqueOrg("pass");
      expect(await repository().getPass(org, "t")).toBeNull();
      const turn1 = new Date("2026-11-30T10:00:00Z");
      const turn2 = new Date("2026-11-30T11:00:00Z");
      // A worker whose clock runs an hour ahead records a pass first.
      const ahead = new Date(Date.now() + 3_600_000);
      const before = Date.now();
      await repository().recordPass(org, "t", {
        status: "done",
        coveredTurnEndedAt: turn2,
        rawToolChars: 250_000,
        digestsWritten: 4,
        at: ahead,
      });
      // A worker whose clock is right records the next one: it is the latest, whatever the clocks say.
      await repository().recordPass(org, "t", {
        status: "skipped",
        reason: "turn_lock",
        turnEndedAt: turn1,
        coveredTurnEndedAt: turn1,
        at: new Date(),
      });
      const after = Date.now();
      const record = await repository().getPass(org, "t");
      expect(record).toEqual({
        orgId: org,
        threadId: "t",
        status: "skipped",
        reason: "turn_lock",
        coveredTurnEndedAt: turn2,
        latestTurnEndedAt: turn2,
        rawToolChars: 0,
        digestsWritten: 0,
        at: expect.any(Date),
        leaseOwner: null,
        leaseExpiresAt: null,
      });
      // Stamped by the database's clock, not the worker's.
      expect(record?.at.getTime()).toBeGreaterThanOrEqual(before - CLOCK_TOLERANCE_MS);
      expect(record?.at.getTime()).toBeLessThanOrEqual(after + CLOCK_TOLERANCE_MS);
      // A pass whose worker's clock runs a day behind still records: it came last.
      await repository().recordPass(org, "t", { status: "failed", at: new Date(Date.now() - 86_400_000) });
      expect(await repository().getPass(org, "t")).toMatchObject({
        status: "failed",
        coveredTurnEndedAt: turn2,
      });
      await expect(
        repository().recordPass(org, "t", { status: "weird" as "done", at: new Date() }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
    });

    it("commits a pass under its lease after one recorded by a worker whose clock runs ahead", async () => {
      const org = uniqueOrg("pass-clock");
      const turn = new Date(Date.now() - 60_000);
      await repository().recordPass(org, "t", {
        status: "skipped",
        reason: "turn_lock",
        turnEndedAt: turn,
        at: new Date(Date.now() + 3_600_000),
      });
      await repository().claimThread(org, "t", { owner: "run", at: new Date(), leaseMs: 60_000 });
      expect(
        await repository().commitLeasedPass(org, "t", {
          owner: "run",
          rows: [digestRow({ threadId: "t" })],
          pass: { status: "done", coveredTurnEndedAt: turn, turnEndedAt: turn, at: new Date() },
        }),
      ).toEqual({ committed: true, digestsWritten: 1 });
      expect(await repository().getPass(org, "t")).toMatchObject({
        status: "done",
        reason: null,
        coveredTurnEndedAt: turn,
        digestsWritten: 1,
      });
    });

    it("purges a thread with the database's clock: turns up to its now count as covered", async () => {
      const org = uniqueOrg("purge-clock");
      await repository().upsertDigests(org, [digestRow({ threadId: "t" })]);
      await repository().recordPass(org, "t", { status: "partial", reason: "call_cap", at: new Date() });
      const before = Date.now();
      expect(await repository().purgeThread(org, "t")).toEqual({ digests: 1, threads: 1 });
      const after = Date.now();
      const record = await repository().getPass(org, "t");
      expect(record).toMatchObject({ status: "skipped", reason: "purged", digestsWritten: 0 });
      for (const instant of [record?.coveredTurnEndedAt, record?.latestTurnEndedAt, record?.at]) {
        expect(instant?.getTime()).toBeGreaterThanOrEqual(before - CLOCK_TOLERANCE_MS);
        expect(instant?.getTime()).toBeLessThanOrEqual(after + CLOCK_TOLERANCE_MS);
      }
      // An instant where the options go (the signature that took the operator's time) is refused.
      await expect(
        repository().purgeOrganization(org, new Date() as unknown as { deletePolicy?: boolean }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
    });

    it("fences a pass in flight when it purges: its later commit writes nothing and the purge stands", async () => {
      const org = uniqueOrg("purge-race");
      const turn = new Date(Date.now() - 60_000);
      const claim = { at: new Date(), leaseMs: 60_000, turnEndedAt: turn };
      // Two passes in flight: one in the purged thread, one in a sibling that may copy the content back.
      await repository().claimThread(org, "t", { owner: "run", ...claim });
      await repository().claimThread(org, "sibling", { owner: "other", ...claim });
      const bad = digestRow({ threadId: "t", toolCallId: "a" });
      await repository().upsertDigests(org, [bad]);
      await repository().purgeContent(org, bad.contentSha256);
      expect(await repository().holdsLease(org, "t", "run")).toBe(false);
      expect(await repository().holdsLease(org, "sibling", "other")).toBe(false);
      const pass = { status: "done" as const, coveredTurnEndedAt: turn, turnEndedAt: turn, at: new Date() };
      expect(await repository().commitLeasedPass(org, "t", { owner: "run", rows: [bad], pass })).toEqual({
        committed: false,
      });
      expect(
        await repository().commitLeasedPass(org, "sibling", {
          owner: "other",
          rows: [{ ...bad, threadId: "sibling" }],
          pass,
        }),
      ).toEqual({ committed: false });
      expect(await repository().getPass(org, "t")).toMatchObject({
        status: "skipped",
        reason: "purged",
        leaseOwner: null,
      });
      expect((await repository().findReusableDigests(org, [bad.contentSha256])).size).toBe(0);
      // The same for a thread's purge and an org's: the run holding the lease loses it.
      for (const purge of [
        () => repository().purgeThread(org, "t"),
        () => repository().purgeOrganization(org),
      ]) {
        await repository().claimThread(org, "t", { owner: "next", ...claim });
        await purge();
        expect(await repository().commitLeasedPass(org, "t", { owner: "next", rows: [bad], pass })).toEqual({
          committed: false,
        });
        expect(await repository().getPass(org, "t")).toMatchObject({ status: "skipped", reason: "purged" });
        expect(await repository().summarizeThreadDigests(org, "t")).toMatchObject({ digests: 0 });
      }
    });

    it("lets exactly one of many concurrent claims take a thread's lease, until it expires by the database's clock", async () => {
      const org = uniqueOrg("claim");
      // The claimants' clock reads a day before the database's: the lease ignores it.
      const at = new Date(Date.now() - 86_400_000);
      const before = Date.now();
      const claims = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          repository().claimThread(org, "t", { owner: `run-${index}`, at, leaseMs: 60_000 }),
        ),
      );
      const after = Date.now();
      const winners = claims.flatMap((claim, index) => (claim.claimed ? [index] : []));
      expect(winners).toHaveLength(1);
      const won = claims[winners[0] as number];
      const expiresAt = won?.claimed ? won.expiresAt : new Date(Number.NaN);
      // leaseMs from the database's now; a server's clock may be a little off the test's.
      expect(expiresAt.getTime()).toBeGreaterThanOrEqual(before + 60_000 - CLOCK_TOLERANCE_MS);
      expect(expiresAt.getTime()).toBeLessThanOrEqual(after + 60_000 + CLOCK_TOLERANCE_MS);
      for (const claim of claims) {
        expect(claim).toEqual(
          claim.claimed
            ? { claimed: true, coveredTurnEndedAt: null, expiresAt }
            : { claimed: false, heldUntil: expiresAt },
        );
      }
      // A first claim creates the record at the database's now, not the claimant's; the lease shows on it.
      const created = await repository().getPass(org, "t");
      expect(created).toMatchObject({
        status: "skipped",
        reason: "claimed",
        leaseOwner: `run-${winners[0]}`,
        leaseExpiresAt: expiresAt,
      });
      expect(created?.at.getTime()).toBeGreaterThanOrEqual(before - CLOCK_TOLERANCE_MS);
      expect(created?.at.getTime()).toBeLessThanOrEqual(after + CLOCK_TOLERANCE_MS);
      // Still held for a run whose clock reads past the expiry.
      const ahead = new Date(expiresAt.getTime() + 3_600_000);
      expect(
        (await repository().claimThread(org, "t", { owner: "late", at: ahead, leaseMs: 1_000 })).claimed,
      ).toBe(false);
      expect(await repository().holdsLease(org, "t", `run-${winners[0]}`)).toBe(true);
      expect(await repository().holdsLease(org, "t", "late")).toBe(false);
      // Once a 1 ms lease has lapsed by the database's clock, a run whose clock reads far behind takes it.
      expect(
        (await repository().claimThread(org, "t", { owner: `run-${winners[0]}`, at, leaseMs: 1 })).claimed,
      ).toBe(true);
      await sleep(20);
      expect(await repository().holdsLease(org, "t", `run-${winners[0]}`)).toBe(false);
      const takeover = await repository().claimThread(org, "t", {
        owner: "late",
        at: new Date("2000-01-01T00:00:00Z"),
        leaseMs: 1_000,
      });
      expect(takeover.claimed).toBe(true);
      // The dead run's release does not free the lease another run took over.
      expect(await repository().releaseThread(org, "t", `run-${winners[0]}`)).toBe(false);
      expect((await repository().getPass(org, "t"))?.leaseOwner).toBe("late");
      expect(await repository().releaseThread(org, "t", "late")).toBe(true);
      expect(await repository().getPass(org, "t")).toMatchObject({ leaseOwner: null, leaseExpiresAt: null });
      expect((await repository().claimThread(org, "t", { owner: "next", at, leaseMs: 1_000 })).claimed).toBe(
        true,
      );
    });

    it("commits rows and pass together only under the run's unlapsed lease", async () => {
      const org = uniqueOrg("claim-commit");
      const at = new Date("2026-11-30T10:00:00Z");
      const row = digestRow({ threadId: "t", toolCallId: "a" });
      const pass = { status: "done" as const, coveredTurnEndedAt: at, at };
      await repository().claimThread(org, "t", { owner: "holder", at, leaseMs: 60_000 });
      expect(await repository().commitLeasedPass(org, "t", { owner: "other", rows: [row], pass })).toEqual({
        committed: false,
      });
      expect(await repository().summarizeThreadDigests(org, "t")).toMatchObject({ digests: 0 });
      expect(await repository().commitLeasedPass(org, "t", { owner: "holder", rows: [row], pass })).toEqual({
        committed: true,
        digestsWritten: 1,
      });
      // The pass records the rows this commit wrote; the lease stays until released.
      expect(await repository().getPass(org, "t")).toMatchObject({
        status: "done",
        coveredTurnEndedAt: at,
        digestsWritten: 1,
        leaseOwner: "holder",
      });
      // A bad row rolls the whole commit back: neither rows nor pass.
      await expect(
        repository().commitLeasedPass(org, "t", {
          owner: "holder",
          rows: [
            digestRow({ threadId: "t", toolCallId: "b" }),
            digestRow({ threadId: "t", originalChars: -1 }),
          ],
          pass: { status: "partial", reason: "call_cap", at: new Date(at.getTime() + 1) },
        }),
      ).rejects.toBeInstanceOf(ConstraintViolationError);
      expect(await repository().summarizeThreadDigests(org, "t")).toMatchObject({ digests: 1 });
      expect(await repository().getPass(org, "t")).toMatchObject({ status: "done" });
      await expect(
        repository().commitLeasedPass(org, "t", { owner: "holder", rows: [digestRow()], pass }),
      ).rejects.toThrow(/rows\[0\]\.threadId/);
    });

    it("keeps the claimed turn as the latest, so a run that dies before its pass leaves the thread to the sweep", async () => {
      const org = uniqueOrg("claim-dies");
      const at = new Date("2026-11-30T10:00:00Z");
      const turnEndedAt = new Date("2026-11-30T09:59:00Z");
      await repository().claimThread(org, "t", { owner: "dies", at, leaseMs: 1_000, turnEndedAt });
      expect(await repository().getPass(org, "t")).toMatchObject({ latestTurnEndedAt: turnEndedAt });
      const found = (await repository().listLeftBehind({ limit: 1000 })).threads.find(
        (thread) => thread.orgId === org,
      );
      expect(found).toMatchObject({
        threadId: "t",
        reason: "active_since_pass",
        latestTurnEndedAt: turnEndedAt,
      });
      // A later claim for an older turn does not move it back.
      await repository().claimThread(org, "t", {
        owner: "next",
        at: new Date(at.getTime() + 1_000),
        leaseMs: 1_000,
        turnEndedAt: new Date("2026-11-30T09:00:00Z"),
      });
      expect((await repository().getPass(org, "t"))?.latestTurnEndedAt).toEqual(turnEndedAt);
    });

    it("keeps the pass record under a claim: recording a pass leaves the lease, releasing leaves the pass", async () => {
      const org = uniqueOrg("claim-pass");
      const covered = new Date("2026-11-30T09:00:00Z");
      await repository().recordPass(org, "t", {
        status: "done",
        coveredTurnEndedAt: covered,
        digestsWritten: 3,
        at: new Date("2026-11-30T09:01:00Z"),
      });
      const at = new Date("2026-11-30T10:00:00Z");
      expect(await repository().claimThread(org, "t", { owner: "run", at, leaseMs: 60_000 })).toEqual({
        claimed: true,
        coveredTurnEndedAt: covered,
        expiresAt: expect.any(Date),
      });
      expect(await repository().getPass(org, "t")).toMatchObject({ status: "done", digestsWritten: 3 });
      // The same run may claim again (a retried statement), and nobody else may.
      expect((await repository().claimThread(org, "t", { owner: "run", at, leaseMs: 60_000 })).claimed).toBe(
        true,
      );
      await repository().recordPass(org, "t", { status: "partial", reason: "out_of_time", at });
      expect((await repository().getPass(org, "t"))?.leaseOwner).toBe("run");
      expect(await repository().releaseThread(org, "t", "run")).toBe(true);
      expect(await repository().getPass(org, "t")).toMatchObject({
        status: "partial",
        reason: "out_of_time",
        coveredTurnEndedAt: covered,
        leaseOwner: null,
      });
      await expect(repository().claimThread(org, "t", { owner: "", at, leaseMs: 1 })).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
      await expect(repository().claimThread(org, "t", { owner: "run", at, leaseMs: 0 })).rejects.toThrow(
        /leaseMs/,
      );
    });

    it("lists threads left behind across orgs, in pages, with their reason", async () => {
      const orgA = uniqueOrg("sweep-a");
      const orgB = uniqueOrg("sweep-b");
      const at = new Date("2026-11-30T03:00:00Z");
      const covered = new Date("2026-11-30T02:00:00Z");
      const later = new Date("2026-11-30T02:30:00Z");
      await recordPassAt(orgA, "failed", { status: "failed", reason: "Error", at });
      await recordPassAt(orgA, "lock", {
        status: "skipped",
        reason: "turn_lock",
        turnEndedAt: later,
        at,
      });
      await recordPassAt(orgA, "nothing-new", { status: "skipped", reason: "nothing_new", at });
      // The checkpoint is gone (the thread was deleted): terminal, though a turn is uncovered.
      await recordPassAt(orgA, "deleted", {
        status: "skipped",
        reason: "no_checkpoint",
        turnEndedAt: later,
        at,
      });
      await recordPassAt(orgB, "budget", { status: "skipped", reason: "budget", at });
      await recordPassAt(orgB, "partial", { status: "partial", reason: "call_cap", at });
      await recordPassAt(orgB, "clean", { status: "done", coveredTurnEndedAt: covered, at });
      await recordPassAt(orgB, "active", {
        status: "done",
        coveredTurnEndedAt: covered,
        turnEndedAt: later,
        at,
      });

      const found: string[] = [];
      const lock = (await repository().listLeftBehind({ limit: 1000 })).threads.find(
        (thread) => thread.orgId === orgA && thread.threadId === "lock",
      );
      expect(lock).toMatchObject({ latestTurnEndedAt: later, recordedAt: at });
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await repository().listLeftBehind({ limit: 2, cursor });
        pages += 1;
        expect(page.threads.length).toBeLessThanOrEqual(2);
        for (const thread of page.threads) {
          if (thread.orgId === orgA || thread.orgId === orgB) {
            found.push(`${thread.orgId === orgA ? "A" : "B"}/${thread.threadId}:${thread.reason}`);
          }
        }
        cursor = page.nextCursor;
      } while (cursor !== null && pages < 10_000);
      // The orgs in turns: each org's oldest, then each org's second oldest, …
      expect(found).toEqual([
        "A/failed:failed",
        "B/active:active_since_pass",
        "A/lock:turn_lock",
        "B/budget:budget",
        "B/partial:partial",
      ]);

      const recent = await repository().listLeftBehind({ limit: 1000, recordedBefore: at });
      expect(recent.threads.some((thread) => thread.orgId === orgA || thread.orgId === orgB)).toBe(false);
      await expect(repository().listLeftBehind({ cursor: "not-a-cursor" })).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
      await expect(repository().listLeftBehind({ limit: 0 })).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
    });

    it("lists threads left behind oldest record first, so a thread tried again goes behind the rest", async () => {
      const org = uniqueOrg("sweep-order");
      // A window no other test writes in.
      const since = new Date("2031-01-01T00:00:00Z");
      const hour = (hours: number) => new Date(since.getTime() + hours * 3_600_000);
      const listed = async (limit: number): Promise<string[]> => {
        const found: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page = await repository().listLeftBehind({ limit, cursor, recordedSince: since });
          pages += 1;
          for (const thread of page.threads) if (thread.orgId === org) found.push(thread.threadId);
          cursor = page.nextCursor;
        } while (cursor !== null && pages < 1_000);
        return found;
      };
      await recordPassAt(org, "z", { status: "failed", at: hour(1) });
      await recordPassAt(org, "a", { status: "failed", at: hour(2) });
      await recordPassAt(org, "m", { status: "partial", reason: "call_cap", at: hour(2) });
      // The key does not decide; the record time does, then (org, thread).
      expect(await listed(1)).toEqual(["z", "a", "m"]);
      // "z" is tried again and fails again: it goes behind the threads not tried since.
      await recordPassAt(org, "z", { status: "failed", at: hour(3) });
      expect(await listed(1)).toEqual(["a", "m", "z"]);
      // Record times finer than a millisecond page exactly: each thread once.
      await harness().ownerTransaction([
        `update thread_pass set recorded_at = '2031-01-01T04:00:00.000700Z' where org_id = '${org}' and thread_id = 'a'`,
        `update thread_pass set recorded_at = '2031-01-01T04:00:00.000300Z' where org_id = '${org}' and thread_id = 'm'`,
        `update thread_pass set recorded_at = '2031-01-01T04:00:00.000500Z' where org_id = '${org}' and thread_id = 'z'`,
      ]);
      expect(await listed(1)).toEqual(["m", "z", "a"]);
      // A cursor of another listing is refused.
      await expect(
        repository().listLeftBehind({
          cursor: Buffer.from(JSON.stringify([org, "a"])).toString("base64url"),
        }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
      await expect(
        repository().listLeftBehind({
          cursor: Buffer.from(JSON.stringify(["0", "2031-01-01T04:00:00.000700Z", org, "a"])).toString(
            "base64url",
          ),
        }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
    });

    it("bounds threads left behind by the turn they wait on, and counts them", async () => {
      const org = uniqueOrg("sweep-turn");
      // A window no other test writes in.
      const since = new Date("2032-01-01T00:00:00Z");
      const hour = (hours: number) => new Date(since.getTime() + hours * 3_600_000);
      const ids = async (query: { turnEndedSince?: Date }): Promise<string[]> =>
        (await repository().listLeftBehind({ limit: 1000, recordedSince: since, ...query })).threads
          .filter((thread) => thread.orgId === org)
          .map((thread) => thread.threadId);
      // Retried long after its turn; retried soon after; no turn at all (its record time stands in).
      await recordPassAt(org, "old", { status: "failed", turnEndedAt: hour(0), at: hour(30) });
      await recordPassAt(org, "new", { status: "failed", turnEndedAt: hour(20), at: hour(21) });
      await recordPassAt(org, "no-turn", { status: "partial", reason: "call_cap", at: hour(5) });
      await recordPassAt(org, "done", {
        status: "done",
        coveredTurnEndedAt: hour(1),
        at: hour(1),
      });
      expect(await ids({})).toEqual(["no-turn", "new", "old"]);
      expect(await ids({ turnEndedSince: hour(4) })).toEqual(["no-turn", "new"]);
      expect(await ids({ turnEndedSince: hour(10) })).toEqual(["new"]);
      expect(await repository().countLeftBehind({ recordedSince: since })).toBe(3);
      expect(await repository().countLeftBehind({ recordedSince: since, turnEndedBefore: hour(10) })).toBe(2);
      expect(
        await repository().countLeftBehind({
          recordedSince: since,
          recordedBefore: hour(21),
          turnEndedBefore: hour(10),
        }),
      ).toBe(1);
      await expect(
        repository().countLeftBehind({ turnEndedBefore: new Date("not a date") }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
    });

    it("says which threads have a pass record and what it covers, across orgs, in the order asked", async () => {
      const orgA = uniqueOrg("known-a");
      const orgB = uniqueOrg("known-b");
      const at = new Date("2026-11-30T03:00:00Z");
      const turn = new Date("2026-11-30T02:00:00Z");
      await repository().recordPass(orgA, "t1", { status: "done", coveredTurnEndedAt: turn, at });
      await repository().recordPass(orgB, "t2", {
        status: "skipped",
        reason: "turn_lock",
        turnEndedAt: turn,
        at,
      });
      const asked = [
        { orgId: orgB, threadId: "t2" },
        { orgId: orgA, threadId: "lost" },
        { orgId: orgA, threadId: "t1" },
        // Same thread id in another org: a different thread.
        { orgId: orgB, threadId: "t1" },
      ];
      expect(await repository().threadsWithPass(asked)).toEqual([
        { orgId: orgB, threadId: "t2", coveredTurnEndedAt: null, latestTurnEndedAt: turn },
        { orgId: orgA, threadId: "t1", coveredTurnEndedAt: turn, latestTurnEndedAt: turn },
      ]);
      expect(await repository().threadsWithPass([])).toEqual([]);
      await expect(repository().threadsWithPass([{ orgId: orgA, threadId: "" }])).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
    });
    it("records a thread's owner once: the first org keeps it, another org learns only that it is taken", async () => {
      const owner = uniqueOrg("owner");
      const other = uniqueOrg("other");
      const threadId = `owned-${owner}`;
      expect(await repository().getThreadOwner(threadId)).toBeNull();
      expect(await repository().recordThreadOwner(owner, threadId)).toBe(true);
      // Recording again is a no-op that still says yes.
      expect(await repository().recordThreadOwner(owner, threadId)).toBe(true);
      expect(await repository().recordThreadOwner(other, threadId)).toBe(false);
      expect(await repository().getThreadOwner(threadId)).toBe(owner);
      await expect(repository().recordThreadOwner(owner, "")).rejects.toBeInstanceOf(
        InvalidStorageInputError,
      );
      await expect(repository().getThreadOwner(" padded ")).rejects.toBeInstanceOf(InvalidStorageInputError);
    });
  });
}
