import type { DigestEntry, OrgPolicy, TurnState } from "@context-cleaner/assembler";
import { microUsdToUsd, type OrgPolicyInput, validateOrgPolicy } from "@context-cleaner/assembler/internal";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { OrgDigestSummary, PolicyAudit } from "./repository-types";
import { contextDigest } from "./schema/context-digest";
import { orgPolicy } from "./schema/org-policy";
import { checkedMicroUsd, requireId, requireOrganizationId, requireStorable } from "./validation";

type PolicyRow = typeof orgPolicy.$inferSelect;

/** The org's policy of a stored row (its audit fields included). */
function policyOfRow(row: PolicyRow): OrgPolicy {
  const input: Record<string, unknown> = { mode: row.mode };
  if (row.triggerChars !== null) input.triggerChars = row.triggerChars;
  if (row.recencyKeepExchanges !== null) input.recencyKeepExchanges = row.recencyKeepExchanges;
  if (row.digestCharCap !== null) input.digestCharCap = row.digestCharCap;
  if (row.maxCallsPerJob !== null) input.maxCallsPerJob = row.maxCallsPerJob;
  if (row.dailyBudgetMicroUsd !== null) input.dailyBudgetUsd = microUsdToUsd(row.dailyBudgetMicroUsd);
  if (row.toolRules !== null) input.toolRules = row.toolRules;
  const updatedAt = row.updatedAt instanceof Date ? row.updatedAt : new Date(row.updatedAt);
  return Object.freeze({
    ...validateOrgPolicy(input),
    updatedBy: row.updatedBy,
    updatedAt: updatedAt.toISOString(),
  });
}

/** The org's policy row, or null when it has none (the deployment's defaults). */
export async function getOrgPolicy(database: Database, orgId: string): Promise<OrgPolicy | null> {
  const rows = await database.withOrganization(
    orgId,
    (transaction) => transaction.select().from(orgPolicy).where(eq(orgPolicy.orgId, orgId)),
    { readOnly: true },
  );
  return rows[0] ? policyOfRow(rows[0]) : null;
}

/**
 * Sets the org's policy (the whole of it: a field left out goes back to the deployment's
 * default), validated first, with who set it and when in the row.
 * @throws {InvalidOptionError} / {InvalidToolPolicyError} naming the bad field of `input`.
 * @throws {InvalidStorageInputError} for an empty `audit.updatedBy` or an invalid date.
 */
export async function setOrgPolicy(
  database: Database,
  orgId: string,
  input: OrgPolicyInput,
  audit: PolicyAudit,
): Promise<OrgPolicy> {
  const organization = requireOrganizationId(orgId);
  const policy = validateOrgPolicy(input);
  if (typeof audit.updatedBy !== "string" || audit.updatedBy.trim() === "") {
    throw new InvalidStorageInputError("updatedBy", "must say who sets the policy");
  }
  requireStorable(audit.updatedBy, "updatedBy");
  if (!(audit.updatedAt instanceof Date) || Number.isNaN(audit.updatedAt.getTime())) {
    throw new InvalidStorageInputError("updatedAt", "must be a valid date");
  }
  const { overrides } = policy;
  const values = {
    orgId: organization,
    mode: policy.mode,
    triggerChars: overrides.triggerChars ?? null,
    recencyKeepExchanges: overrides.recencyKeepExchanges ?? null,
    digestCharCap: overrides.digestCharCap ?? null,
    maxCallsPerJob: overrides.maxCallsPerJob ?? null,
    dailyBudgetMicroUsd:
      overrides.dailyBudgetUsd === undefined
        ? null
        : checkedMicroUsd(overrides.dailyBudgetUsd, "dailyBudgetUsd"),
    toolRules: (policy.toolRules as Record<string, unknown> | undefined) ?? null,
    updatedBy: audit.updatedBy,
    updatedAt: audit.updatedAt,
  };
  const { orgId: _key, ...changes } = values;
  const [row] = await database.withOrganization(organization, (transaction) =>
    transaction
      .insert(orgPolicy)
      .values(values)
      .onConflictDoUpdate({ target: orgPolicy.orgId, set: changes })
      .returning(),
  );
  return policyOfRow(row as PolicyRow);
}

/** Deletes the org's policy row (back to the deployment's defaults); returns whether one existed. */
export async function deleteOrgPolicy(database: Database, orgId: string): Promise<boolean> {
  const deleted = await database.withOrganization(orgId, (transaction) =>
    transaction.delete(orgPolicy).where(eq(orgPolicy.orgId, orgId)).returning({ orgId: orgPolicy.orgId }),
  );
  return deleted.length > 0;
}

/**
 * What a runtime loads at the start of a turn, in one query: the thread's digests keyed by
 * tool call id, and the org's policy (null when it has none). The policy rides along as a
 * scalar subquery of the digest load, so the turn still makes one round trip.
 */
export async function loadTurnState(database: Database, orgId: string, threadId: string): Promise<TurnState> {
  const thread = requireId(threadId, "threadId");
  const rows = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select({
          policy: sql<PolicyJson | null>`(select to_jsonb(p) from ${orgPolicy} p where p.org_id = ${orgId})`,
          toolCallId: contextDigest.toolCallId,
          digest: contextDigest.digest,
          contentSha256: contextDigest.contentSha256,
          digestChars: contextDigest.digestChars,
          kind: contextDigest.kind,
        })
        .from(sql`(select 1) as one`)
        .leftJoin(contextDigest, and(eq(contextDigest.orgId, orgId), eq(contextDigest.threadId, thread))),
    { readOnly: true },
  );
  const digests = new Map<string, DigestEntry>();
  for (const row of rows) {
    if (row.toolCallId === null) continue;
    digests.set(row.toolCallId, {
      digest: row.digest as string,
      contentSha256: row.contentSha256 as string,
      digestChars: row.digestChars as number,
      kind: row.kind as DigestEntry["kind"],
    });
  }
  const policy = rows[0]?.policy ?? null;
  return { digests, policy: policy === null ? null : policyOfRow(rowOfJson(policy)) };
}

/** The row as `to_jsonb` renders it: column names, a bigint as a number, a timestamp as text. */
interface PolicyJson {
  org_id: string;
  mode: PolicyRow["mode"];
  trigger_chars: number | null;
  recency_keep_exchanges: number | null;
  digest_char_cap: number | null;
  max_calls_per_job: number | null;
  daily_budget_micro_usd: number | string | null;
  tool_rules: Record<string, unknown> | null;
  updated_by: string;
  updated_at: string;
}

function rowOfJson(json: PolicyJson | string): PolicyRow {
  const value: PolicyJson = typeof json === "string" ? (JSON.parse(json) as PolicyJson) : json;
  return {
    orgId: value.org_id,
    mode: value.mode,
    triggerChars: value.trigger_chars,
    recencyKeepExchanges: value.recency_keep_exchanges,
    digestCharCap: value.digest_char_cap,
    maxCallsPerJob: value.max_calls_per_job,
    dailyBudgetMicroUsd: value.daily_budget_micro_usd === null ? null : Number(value.daily_budget_micro_usd),
    toolRules: value.tool_rules,
    updatedBy: value.updated_by,
    updatedAt: new Date(value.updated_at),
  };
}

/**
 * Counts and sizes of all of the org's digests, in one read-only query: under mode
 * `shadow`, what the org's views would save once it is switched on.
 */
export async function summarizeOrgDigests(database: Database, orgId: string): Promise<OrgDigestSummary> {
  const [row] = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select({
          threads: sql<number>`count(distinct ${contextDigest.threadId})::int`,
          digests: sql<number>`count(*)::int`,
          originalChars: sql<number>`coalesce(sum(${contextDigest.originalChars}), 0)::bigint`,
          digestChars: sql<number>`coalesce(sum(${contextDigest.digestChars}), 0)::bigint`,
        })
        .from(contextDigest)
        .where(eq(contextDigest.orgId, orgId)),
    { readOnly: true },
  );
  return {
    threads: Number(row?.threads ?? 0),
    digests: Number(row?.digests ?? 0),
    originalChars: Number(row?.originalChars ?? 0),
    digestChars: Number(row?.digestChars ?? 0),
  };
}
