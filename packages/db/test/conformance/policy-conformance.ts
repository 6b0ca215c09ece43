import { InvalidOptionError, InvalidToolPolicyError } from "@context-cleaner/assembler";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Database } from "../../src/database-types";
import { createDigestRepository } from "../../src/digest-repository";
import { InvalidStorageInputError, RowSecurityError } from "../../src/errors";
import { orgPolicy } from "../../src/schema/org-policy";
import { type ConformanceHarness, digestRow, uniqueOrg } from "./conformance-harness";

const AUDIT = { updatedBy: "ops@example.com", updatedAt: new Date("2026-12-01T18:00:00.000Z") };

/**
 * `database` whose org-scoped transactions count the statements their work issues, so a
 * test can say how many queries an operation makes.
 */
function countingDatabase(database: Database): { database: Database; statements: () => number } {
  let statements = 0;
  const counted = new Set(["select", "insert", "update", "delete", "execute"]);
  return {
    statements: () => statements,
    database: {
      ...database,
      withOrganization: (orgId, work, options) =>
        database.withOrganization(
          orgId,
          (transaction) =>
            work(
              new Proxy(transaction, {
                get(target, property, receiver) {
                  const value = Reflect.get(target, property, receiver);
                  if (typeof property === "string" && counted.has(property) && typeof value === "function") {
                    return (...args: unknown[]) => {
                      statements++;
                      return value.apply(target, args);
                    };
                  }
                  return value;
                },
              }),
            ),
          options,
        ),
    },
  };
}

/** The per-org policy table: its repository methods and its row-level security, on a real engine. */
export function describePolicyConformance(engine: string, harness: () => ConformanceHarness): void {
  const repository = () => createDigestRepository(harness().database);

  describe(`org policy on ${engine}`, () => {
    it("no row: null, and the turn state carries the digests with a null policy", async () => {
      const org = uniqueOrg("pol-none");
      await repository().upsertDigests(org, [digestRow({ toolCallId: "a" })]);
      expect(await repository().getOrgPolicy(org)).toBeNull();
      const state = await repository().loadTurnState(org, "thread-1");
      expect(state.policy).toBeNull();
      expect(state.digests).toEqual(await repository().loadThreadDigests(org, "thread-1"));
      expect([...state.digests.keys()]).toEqual(["a"]);
    });

    it("sets, reads back and replaces a policy, with its audit fields", async () => {
      const org = uniqueOrg("pol-set");
      const set = await repository().setOrgPolicy(
        org,
        {
          mode: "shadow",
          triggerChars: 60_000,
          recencyKeepExchanges: 5,
          digestCharCap: 3_000,
          maxCallsPerJob: 4,
          dailyBudgetUsd: 1.25,
          toolRules: { exclude: ["run_sql"], protectedArgs: [{ arg: "path", pattern: "^/pinned/" }] },
        },
        AUDIT,
      );
      const expected = {
        mode: "shadow",
        overrides: {
          triggerChars: 60_000,
          recencyKeepExchanges: 5,
          digestCharCap: 3_000,
          maxCallsPerJob: 4,
          dailyBudgetUsd: 1.25,
        },
        toolRules: { exclude: ["run_sql"], protectedArgs: [{ arg: "path", pattern: "^/pinned/" }] },
        updatedBy: "ops@example.com",
        updatedAt: "2026-12-01T18:00:00.000Z",
      };
      expect(set).toEqual(expected);
      expect(await repository().getOrgPolicy(org)).toEqual(expected);
      // Setting again replaces the whole policy: what is left out is the deployment's again.
      const later = { updatedBy: "lead@example.com", updatedAt: new Date("2026-12-02T09:30:00.000Z") };
      expect(await repository().setOrgPolicy(org, { mode: "off" }, later)).toEqual({
        mode: "off",
        overrides: {},
        toolRules: undefined,
        updatedBy: "lead@example.com",
        updatedAt: "2026-12-02T09:30:00.000Z",
      });
      expect(await repository().deleteOrgPolicy(org)).toBe(true);
      expect(await repository().getOrgPolicy(org)).toBeNull();
      expect(await repository().deleteOrgPolicy(org)).toBe(false);
    });

    it("the turn state reads the policy and the digests in one query", async () => {
      const org = uniqueOrg("pol-turn");
      await repository().upsertDigests(org, [digestRow({ toolCallId: "a" }), digestRow({ toolCallId: "b" })]);
      await repository().setOrgPolicy(
        org,
        { mode: "shadow", toolRules: { neverCondense: ["save_memory"] } },
        AUDIT,
      );
      const counting = countingDatabase(harness().database);
      const state = await createDigestRepository(counting.database).loadTurnState(org, "thread-1");
      expect(counting.statements()).toBe(1);
      expect(state.policy).toEqual(await repository().getOrgPolicy(org));
      expect(state.policy?.mode).toBe("shadow");
      expect([...state.digests.keys()].sort()).toEqual(["a", "b"]);
      expect(state.digests).toEqual(await repository().loadThreadDigests(org, "thread-1"));
      // A thread with no digests still gets the org's policy.
      const empty = await repository().loadTurnState(org, "thread-without-digests");
      expect(empty.digests.size).toBe(0);
      expect(empty.policy?.mode).toBe("shadow");
    });

    it("sums the org's digests across its threads, and no other org's", async () => {
      const org = uniqueOrg("pol-sum");
      await repository().upsertDigests(org, [
        digestRow({ toolCallId: "a", originalChars: 1_000 }),
        digestRow({ threadId: "thread-2", toolCallId: "b", originalChars: 3_000 }),
      ]);
      await repository().upsertDigests(uniqueOrg("pol-other"), [digestRow({ toolCallId: "c" })]);
      const one = await repository().summarizeThreadDigests(org, "thread-1");
      const two = await repository().summarizeThreadDigests(org, "thread-2");
      expect(await repository().summarizeOrgDigests(org)).toEqual({
        threads: 2,
        digests: 2,
        originalChars: 4_000,
        digestChars: one.digestChars + two.digestChars,
      });
      expect(await repository().summarizeOrgDigests(uniqueOrg("pol-empty"))).toEqual({
        threads: 0,
        digests: 0,
        originalChars: 0,
        digestChars: 0,
      });
    });

    it("refuses a bad policy naming the field, and writes nothing", async () => {
      const org = uniqueOrg("pol-bad");
      const refused = await repository()
        .setOrgPolicy(org, { maxCallsPerJob: -1 }, AUDIT)
        .catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(InvalidOptionError);
      expect((refused as InvalidOptionError).field).toBe("maxCallsPerJob");
      await expect(
        repository().setOrgPolicy(org, { toolRules: { include: [""] } }, AUDIT),
      ).rejects.toBeInstanceOf(InvalidToolPolicyError);
      // A pattern no linear-time matcher runs (a backreference) is never stored.
      await expect(
        repository().setOrgPolicy(
          org,
          { toolRules: { protectedArgs: [{ arg: "path", pattern: "^(\\w+)/\\1$" }] } },
          AUDIT,
        ),
      ).rejects.toThrow(/toolRules\.protectedArgs\[0\]\.pattern has a backreference/);
      await expect(
        repository().setOrgPolicy(org, { mode: "on" }, { updatedBy: " ", updatedAt: new Date() }),
      ).rejects.toBeInstanceOf(InvalidStorageInputError);
      expect(await repository().getOrgPolicy(org)).toBeNull();
    });

    it("purging the org keeps its policy unless asked to delete it too, and no other org's", async () => {
      const org = uniqueOrg("pol-purge");
      const other = uniqueOrg("pol-purge-other");
      for (const id of [org, other]) {
        await repository().upsertDigests(id, [digestRow({ toolCallId: "a" })]);
        await repository().setOrgPolicy(id, { mode: "off" }, AUDIT);
      }
      // The recovery path: an org turned off while its digests are purged stays off.
      expect(await repository().purgeOrganization(org)).toEqual({
        digests: 1,
        threads: 1,
        policy: "kept",
      });
      expect((await repository().getOrgPolicy(org))?.mode).toBe("off");
      await repository().upsertDigests(org, [digestRow({ toolCallId: "b" })]);
      expect(await repository().purgeOrganization(org, { deletePolicy: true })).toEqual({
        digests: 1,
        threads: 1,
        policy: "deleted",
      });
      expect(await repository().getOrgPolicy(org)).toBeNull();
      expect((await repository().loadTurnState(org, "thread-1")).policy).toBeNull();
      expect(await repository().purgeOrganization(org, { deletePolicy: true })).toEqual({
        digests: 0,
        threads: 1,
        policy: "none",
      });
      expect((await repository().getOrgPolicy(other))?.mode).toBe("off");
      expect((await repository().loadThreadDigests(other, "thread-1")).size).toBe(1);
    });

    it("row-level security: an org reads and writes its own policy only", async () => {
      const orgA = uniqueOrg("pol-a");
      const orgB = uniqueOrg("pol-b");
      await repository().setOrgPolicy(orgB, { mode: "off" }, AUDIT);
      const seen = await harness().database.withOrganization(orgA, async (transaction) => ({
        rows: await transaction.select().from(orgPolicy).where(eq(orgPolicy.orgId, orgB)),
        all: await transaction.select({ orgId: orgPolicy.orgId }).from(orgPolicy),
        updated: await transaction
          .update(orgPolicy)
          .set({ mode: "on" })
          .where(eq(orgPolicy.orgId, orgB))
          .returning({ orgId: orgPolicy.orgId }),
        deleted: await transaction
          .delete(orgPolicy)
          .where(eq(orgPolicy.orgId, orgB))
          .returning({ orgId: orgPolicy.orgId }),
      }));
      expect(seen).toEqual({ rows: [], all: [], updated: [], deleted: [] });
      expect((await repository().loadTurnState(orgA, "thread-1")).policy).toBeNull();
      await expect(
        harness().database.withOrganization(orgA, (transaction) =>
          transaction.insert(orgPolicy).values({ orgId: orgB, mode: "on", ...AUDIT }),
        ),
      ).rejects.toBeInstanceOf(RowSecurityError);
      expect((await repository().getOrgPolicy(orgB))?.mode).toBe("off");
    });

    it("no org set: the app role sees no policy and writes none; the sweeper reads none", async () => {
      await repository().setOrgPolicy(uniqueOrg("pol-hidden"), { mode: "shadow" }, AUDIT);
      const visible = await harness().ownerTransaction([
        "set local role app_user",
        "select count(*)::int as n from org_policy",
      ]);
      expect(visible[0]?.n).toBe(0);
      const everything = await harness().ownerTransaction(["select count(*)::int as n from org_policy"]);
      expect(Number(everything[0]?.n)).toBeGreaterThan(0);
      await expect(
        harness().ownerTransaction([
          "set local role app_user",
          "insert into org_policy (org_id, mode, updated_by, updated_at) values ('anyone', 'on', 'x', now())",
        ]),
      ).rejects.toThrow();
      await expect(
        harness().database.withSweeper((transaction) => transaction.select().from(orgPolicy).limit(1)),
      ).rejects.toBeInstanceOf(RowSecurityError);
    });

    it("the table forces row-level security; its CHECKs refuse what validation would", async () => {
      const rows = await harness().ownerTransaction([
        "select relrowsecurity, relforcerowsecurity from pg_class where relname = 'org_policy'",
      ]);
      expect(rows[0]).toEqual({ relrowsecurity: true, relforcerowsecurity: true });
      const org = uniqueOrg("pol-check");
      for (const values of [sql`(${org}, 'paused', 'x', now())`, sql`(${org}, 'on', '', now())`]) {
        await expect(
          harness().database.withOrganization(org, (transaction) =>
            transaction.execute(
              sql`insert into org_policy (org_id, mode, updated_by, updated_at) values ${values}`,
            ),
          ),
        ).rejects.toThrow();
      }
    });
  });
}
