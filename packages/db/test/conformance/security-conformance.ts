import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDigestRepository } from "../../src/digest-repository";
import { RowSecurityError } from "../../src/errors";
import { defaultMigrationsFolder } from "../../src/migrations-folder";
import { contextDigest } from "../../src/schema/context-digest";
import { spendLedger } from "../../src/schema/spend-ledger";
import { threadOwner } from "../../src/schema/thread-owner";
import { threadPass } from "../../src/schema/thread-pass";
import { type ConformanceHarness, digestRow, uniqueOrg } from "./conformance-harness";

const FINGERPRINT_QUERIES = [
  `select string_agg(c.relname || ':' || c.relrowsecurity || ':' || c.relforcerowsecurity || ':' || pg_get_userbyid(c.relowner), ',' order by c.relname) as tables
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind = 'r'`,
  `select string_agg(tablename || '.' || policyname || ':' || cmd || ':' || array_to_string(roles, '|'), ',' order by tablename, policyname) as policies from pg_policies where schemaname = 'public'`,
  `select string_agg(conname, ',' order by conname) as constraints from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public'`,
  `select string_agg(indexname, ',' order by indexname) as indexes from pg_indexes where schemaname = 'public'`,
  `select string_agg(grantee || ':' || table_name || ':' || privilege_type, ',' order by grantee, table_name, privilege_type) as grants
     from information_schema.role_table_grants where table_schema = 'public' and grantee like 'app_%'`,
  `select string_agg(grantee || ':' || column_name, ',' order by grantee, column_name) as column_grants
     from information_schema.column_privileges where table_schema = 'public' and grantee = 'app_sweeper'`,
  `select count(*)::int as applied from drizzle.__drizzle_migrations`,
];

async function fingerprint(harness: ConformanceHarness): Promise<Record<string, unknown>> {
  const result: Record<string, unknown> = {};
  for (const statement of FINGERPRINT_QUERIES) {
    const rows = await harness.ownerTransaction([statement]);
    Object.assign(result, rows[0]);
  }
  return result;
}

/** Row-level security, roles and migrations, checked on a real engine as the app role. */
export function describeSecurityConformance(engine: string, harness: () => ConformanceHarness): void {
  const repository = () => createDigestRepository(harness().database);

  describe(`row-level security on ${engine}`, () => {
    async function seedTwoOrgs(): Promise<{ orgA: string; orgB: string }> {
      const orgA = uniqueOrg("rls-a");
      const orgB = uniqueOrg("rls-b");
      await repository().upsertDigests(orgA, [digestRow({ toolCallId: "a1" })]);
      await repository().upsertDigests(orgB, [
        digestRow({ toolCallId: "b1" }),
        digestRow({ toolCallId: "b2" }),
      ]);
      await repository().reserveSpend(orgB, "2026-11-30", 1, 5);
      await repository().recordPass(orgB, "thread-1", { status: "done", at: new Date() });
      return { orgA, orgB };
    }

    async function ownerCount(table: string, orgId: string): Promise<number> {
      const rows = await harness().ownerTransaction([
        `select count(*)::int as n from ${table} where org_id = '${orgId}'`,
      ]);
      return Number(rows[0]?.n);
    }

    it("org A cannot read org B's rows in any table", async () => {
      const { orgA, orgB } = await seedTwoOrgs();
      const seen = await harness().database.withOrganization(orgA, async (transaction) => ({
        digests: await transaction.select().from(contextDigest).where(eq(contextDigest.orgId, orgB)),
        allDigests: await transaction.select({ orgId: contextDigest.orgId }).from(contextDigest),
        spend: await transaction.select().from(spendLedger).where(eq(spendLedger.orgId, orgB)),
        passes: await transaction.select().from(threadPass).where(eq(threadPass.orgId, orgB)),
      }));
      expect(seen.digests).toEqual([]);
      expect(seen.spend).toEqual([]);
      expect(seen.passes).toEqual([]);
      expect(new Set(seen.allDigests.map((row) => row.orgId))).toEqual(new Set([orgA]));
      expect(await ownerCount("context_digest", orgB)).toBe(2);
    });

    it("org A cannot update or delete org B's rows", async () => {
      const { orgA, orgB } = await seedTwoOrgs();
      const outcome = await harness().database.withOrganization(orgA, async (transaction) => ({
        updated: await transaction
          .update(contextDigest)
          .set({ digest: "pwned", digestChars: 5 })
          .where(eq(contextDigest.orgId, orgB))
          .returning({ id: contextDigest.toolCallId }),
        deleted: await transaction
          .delete(contextDigest)
          .where(eq(contextDigest.orgId, orgB))
          .returning({ id: contextDigest.toolCallId }),
        spend: await transaction
          .update(spendLedger)
          .set({ reservedMicroUsd: 0 })
          .where(and(eq(spendLedger.orgId, orgB)))
          .returning({ day: spendLedger.day }),
        passes: await transaction
          .delete(threadPass)
          .where(eq(threadPass.orgId, orgB))
          .returning({ id: threadPass.threadId }),
      }));
      expect(outcome).toEqual({ updated: [], deleted: [], spend: [], passes: [] });
      expect(await ownerCount("context_digest", orgB)).toBe(2);
      const digests = await repository().loadThreadDigests(orgB, "thread-1");
      expect([...digests.values()].some((entry) => entry.digest === "pwned")).toBe(false);
      expect(await repository().getSpend(orgB, "2026-11-30")).toEqual({ reservedUsd: 1, spentUsd: 0 });
      expect(await ownerCount("thread_pass", orgB)).toBe(1);
    });

    it("refuses an insert (or a move) carrying another org's id", async () => {
      const { orgA, orgB } = await seedTwoOrgs();
      const insert = harness().database.withOrganization(orgA, (transaction) =>
        transaction
          .insert(contextDigest)
          .values({ ...digestRow({ toolCallId: "smuggled" }), costMicroUsd: 0, orgId: orgB }),
      );
      await expect(insert).rejects.toBeInstanceOf(RowSecurityError);
      const move = harness().database.withOrganization(orgA, (transaction) =>
        transaction.update(contextDigest).set({ orgId: orgB }).where(eq(contextDigest.orgId, orgA)),
      );
      await expect(move).rejects.toBeInstanceOf(RowSecurityError);
      expect(await ownerCount("context_digest", orgB)).toBe(2);
      expect(await ownerCount("context_digest", orgA)).toBe(1);
    });

    it("a session as the app role with no org set sees nothing and cannot write", async () => {
      await seedTwoOrgs();
      const visible = await harness().ownerTransaction([
        "set local role app_user",
        "select (select count(*) from context_digest)::int + (select count(*) from spend_ledger)::int + (select count(*) from thread_pass)::int as n",
      ]);
      expect(visible[0]?.n).toBe(0);
      const everything = await harness().ownerTransaction(["select count(*)::int as n from context_digest"]);
      expect(Number(everything[0]?.n)).toBeGreaterThan(0);
      // After a transaction that set the org ended, the setting reads '' — still nothing.
      const afterReset = await harness().ownerTransaction([
        "select set_config('app.organization_id', '', false)",
        "set local role app_user",
        "select count(*)::int as n from context_digest",
      ]);
      expect(afterReset[0]?.n).toBe(0);
      await expect(
        harness().ownerTransaction([
          "set local role app_user",
          "insert into spend_ledger (org_id, day) values ('anyone', '2026-11-30')",
        ]),
      ).rejects.toThrow();
    });

    it("the app role neither owns the tables nor bypasses RLS; tables force RLS", async () => {
      const rows = await harness().ownerTransaction([
        `select r.rolsuper, r.rolbypassrls,
                (select count(*)::int from pg_class c where c.relowner = r.oid and c.relname in ('context_digest','spend_ledger','thread_pass')) as owned,
                (select count(*)::int from pg_class c where c.relname in ('context_digest','spend_ledger','thread_pass') and c.relrowsecurity and c.relforcerowsecurity) as forced
           from pg_roles r where r.rolname = 'app_user'`,
      ]);
      expect(rows[0]).toEqual({ rolsuper: false, rolbypassrls: false, owned: 0, forced: 3 });
    });

    it("the sweeper reads routing columns of passes only: no digests, no spend, no counts", async () => {
      await seedTwoOrgs();
      await expect(
        harness().database.withSweeper((transaction) => transaction.select().from(contextDigest).limit(1)),
      ).rejects.toBeInstanceOf(RowSecurityError);
      await expect(
        harness().database.withSweeper((transaction) => transaction.select().from(spendLedger).limit(1)),
      ).rejects.toBeInstanceOf(RowSecurityError);
      await expect(
        harness().database.withSweeper((transaction) =>
          transaction.select({ chars: threadPass.rawToolChars }).from(threadPass).limit(1),
        ),
      ).rejects.toBeInstanceOf(RowSecurityError);
      await expect(
        harness().database.withSweeper((transaction) =>
          transaction.execute(sql`update thread_pass set status = 'done' where false`),
        ),
      ).rejects.toThrow();
    });
  });

  describe(`thread owner rows on ${engine}`, () => {
    it("an org sees only its own owner rows and can change none, not even its own", async () => {
      const orgA = uniqueOrg("own-a");
      const orgB = uniqueOrg("own-b");
      await repository().recordThreadOwner(orgA, `t-${orgA}`);
      await repository().recordThreadOwner(orgB, `t-${orgB}`);
      const seenByA = await harness().database.withOrganization(orgA, (transaction) =>
        transaction.select().from(threadOwner),
      );
      expect(seenByA.map((row) => row.orgId)).toEqual([orgA]);
      for (const statement of [
        sql`update thread_owner set org_id = ${orgA} where thread_id = ${`t-${orgA}`}`,
        sql`delete from thread_owner where thread_id = ${`t-${orgA}`}`,
      ]) {
        await expect(
          harness().database.withOrganization(orgA, (transaction) => transaction.execute(statement)),
        ).rejects.toBeInstanceOf(RowSecurityError);
      }
      await expect(
        harness().database.withOrganization(orgA, (transaction) =>
          transaction.insert(threadOwner).values({ orgId: orgB, threadId: `t2-${orgB}` }),
        ),
      ).rejects.toBeInstanceOf(RowSecurityError);
      const rowsOfB = await harness().ownerTransaction([
        `select count(*)::int as n from thread_owner where org_id = '${orgB}'`,
      ]);
      expect(Number(rowsOfB[0]?.n)).toBe(1);
    });

    it("the sweeper reads an owner row's thread and org only, and writes none", async () => {
      const org = uniqueOrg("own-sweep");
      await repository().recordThreadOwner(org, `t-${org}`);
      const rows = await harness().database.withSweeper((transaction) =>
        transaction
          .select({ threadId: threadOwner.threadId, orgId: threadOwner.orgId })
          .from(threadOwner)
          .where(eq(threadOwner.orgId, org)),
      );
      expect(rows).toEqual([{ threadId: `t-${org}`, orgId: org }]);
      await expect(
        harness().database.withSweeper((transaction) =>
          transaction.select({ at: threadOwner.createdAt }).from(threadOwner).limit(1),
        ),
      ).rejects.toBeInstanceOf(RowSecurityError);
    });
  });

  describe(`migrations on ${engine}`, () => {
    it("applied from scratch: every journal entry, RLS forced, policies and grants in place", async () => {
      const journal = JSON.parse(
        readFileSync(join(defaultMigrationsFolder(), "meta", "_journal.json"), "utf8"),
      ) as {
        entries: unknown[];
      };
      const state = await fingerprint(harness());
      expect(state.applied).toBe(journal.entries.length);
      expect(state.tables).toContain("context_digest:true:true");
      expect(state.tables).toContain("spend_ledger:true:true");
      expect(state.tables).toContain("thread_pass:true:true");
      expect(state.tables).toContain("thread_owner:true:true");
      expect(state.tables).toContain("org_policy:true:true");
      expect(state.policies).toContain("org_policy.org_policy_org_isolation:ALL:app_user");
      expect(state.policies).toContain("thread_pass.thread_pass_sweeper_read:SELECT:app_sweeper");
      expect(state.indexes).toContain("context_digest_org_sha256_idx");
    });

    it("applying again changes nothing", async () => {
      const before = await fingerprint(harness());
      await harness().database.migrate();
      await harness().database.migrate();
      expect(await fingerprint(harness())).toEqual(before);
    });
  });
}
