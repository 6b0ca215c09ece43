import type { DigestEntry, DigestMap } from "@context-cleaner/assembler";
import { microUsdToUsd } from "@context-cleaner/assembler/internal";
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Database, ScopedTransaction } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { DigestRowInput, StoredDigest, ThreadDigestSummary } from "./repository-types";
import { contextDigest } from "./schema/context-digest";
import {
  checkedMicroUsd,
  requireId,
  requireOrganizationId,
  requireStorable,
  requireToolCallId,
} from "./validation";

const DEFAULTS = {
  /** Rows per INSERT: 16 parameters each stays far below Postgres' 65,535. */
  upsertChunkRows: 1_000,
} as const;

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Inserts or updates digest rows, idempotent on (org, thread, tool call id): a replayed
 * job writes nothing new. Returns how many rows were inserted or changed.
 * Malformed hashes and inconsistent sizes are refused by the schema's CHECKs.
 * @throws {ConstraintViolationError} when a CHECK refuses a row (the whole call is rolled back).
 */
export async function upsertDigests(
  database: Database,
  orgId: string,
  rows: readonly DigestRowInput[],
): Promise<number> {
  const organization = requireOrganizationId(orgId);
  const values = digestValues(organization, rows);
  if (values.length === 0) {
    return 0;
  }
  return database.withOrganization(organization, (transaction) => writeDigests(transaction, values));
}

/** The validated rows of an upsert, ready for {@link writeDigests}. */
export type DigestValues = (typeof contextDigest.$inferInsert)[];

/**
 * Upserts validated rows in `transaction`, in chunks; returns how many were inserted or
 * changed (unchanged rows stay untouched).
 */
export async function writeDigests(transaction: ScopedTransaction, values: DigestValues): Promise<number> {
  let written = 0;
  for (let start = 0; start < values.length; start += DEFAULTS.upsertChunkRows) {
    const chunk = values.slice(start, start + DEFAULTS.upsertChunkRows);
    const changed = await transaction
      .insert(contextDigest)
      .values(chunk)
      .onConflictDoUpdate({
        target: [contextDigest.orgId, contextDigest.threadId, contextDigest.toolCallId],
        set: {
          kind: sql`excluded.kind`,
          toolName: sql`excluded.tool_name`,
          provenanceArgs: sql`excluded.provenance_args`,
          contentSha256: sql`excluded.content_sha256`,
          digest: sql`excluded.digest`,
          originalChars: sql`excluded.original_chars`,
          digestChars: sql`excluded.digest_chars`,
          model: sql`excluded.model`,
          inputTokens: sql`excluded.input_tokens`,
          outputTokens: sql`excluded.output_tokens`,
          costMicroUsd: sql`excluded.cost_micro_usd`,
          updatedAt: sql`now()`,
        },
        // Unchanged rows stay untouched: a redelivered job is a no-op.
        setWhere: sql`(${contextDigest.kind}, ${contextDigest.toolName}, ${contextDigest.provenanceArgs}, ${contextDigest.contentSha256}, ${contextDigest.digest}, ${contextDigest.originalChars})
            is distinct from (excluded.kind, excluded.tool_name, excluded.provenance_args, excluded.content_sha256, excluded.digest, excluded.original_chars)`,
      })
      .returning({ toolCallId: contextDigest.toolCallId });
    written += changed.length;
  }
  return written;
}

/**
 * The table rows of one upsert call, one per (thread, tool call id): a duplicate key in
 * one INSERT … ON CONFLICT is an error (21000), so the last row given for a key wins.
 * @throws {InvalidStorageInputError} for a cost that is not a finite USD amount ≥ 0, or
 *   text Postgres cannot store (naming `rows[i].field`).
 */
export function digestValues(organization: string, rows: readonly DigestRowInput[]): DigestValues {
  const latestByKey = new Map<string, DigestRowInput>();
  rows.forEach((row, index) => {
    requireStorableRow(row, `rows[${index}]`);
    latestByKey.set(JSON.stringify([row.threadId, row.toolCallId]), row);
  });
  return [...latestByKey.values()].map((row) => ({
    orgId: organization,
    threadId: row.threadId,
    toolCallId: row.toolCallId,
    kind: row.kind,
    toolName: row.toolName,
    provenanceArgs: row.provenanceArgs,
    contentSha256: row.contentSha256,
    digest: row.digest,
    originalChars: row.originalChars,
    digestChars: row.digestChars,
    model: row.model,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    costMicroUsd: checkedMicroUsd(row.costUsd, "costUsd"),
  }));
}

/**
 * Checks a row's ids and its text and jsonb fields against the shared storage rules; the
 * schema's CHECKs cover the rest (an empty tool call id among them).
 */
function requireStorableRow(row: DigestRowInput, at: string): void {
  requireId(row.threadId, "threadId", `${at}.threadId`);
  if (row.toolCallId !== "") requireToolCallId(row.toolCallId, `${at}.toolCallId`);
  requireStorable(row.toolName, `${at}.toolName`);
  requireStorable(row.model, `${at}.model`);
  requireStorable(row.digest, `${at}.digest`);
  requireStorable(row.provenanceArgs, `${at}.provenanceArgs`);
}

/**
 * The digests of one thread, keyed by tool call id: one indexed query (the primary key's
 * (org_id, thread_id) prefix). What a runtime calls once per turn.
 */
export async function loadThreadDigests(
  database: Database,
  orgId: string,
  threadId: string,
): Promise<DigestMap> {
  const thread = requireId(threadId, "threadId");
  const rows = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select({
          toolCallId: contextDigest.toolCallId,
          digest: contextDigest.digest,
          contentSha256: contextDigest.contentSha256,
          digestChars: contextDigest.digestChars,
          kind: contextDigest.kind,
        })
        .from(contextDigest)
        .where(and(eq(contextDigest.orgId, orgId), eq(contextDigest.threadId, thread))),
    { readOnly: true },
  );
  const digests = new Map<string, DigestEntry>();
  for (const row of rows) {
    digests.set(row.toolCallId, {
      digest: row.digest,
      contentSha256: row.contentSha256,
      digestChars: row.digestChars,
      kind: row.kind,
    });
  }
  return digests;
}

/**
 * For each hash, the most recent digest of that content in the same org (content-hash
 * reuse: copy, no model call), in one query. Hashes without a digest are absent.
 * @throws {InvalidStorageInputError} when a hash is not 64 lowercase hex chars.
 */
export async function findReusableDigests(
  database: Database,
  orgId: string,
  contentSha256s: readonly string[],
): Promise<Map<string, StoredDigest>> {
  for (const contentSha256 of contentSha256s) {
    if (typeof contentSha256 !== "string" || !SHA256_HEX.test(contentSha256)) {
      throw new InvalidStorageInputError("contentSha256", "expected 64 lowercase hex chars");
    }
  }
  const found = new Map<string, StoredDigest>();
  const wanted = [...new Set(contentSha256s)];
  if (wanted.length === 0) return found;
  const rows = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select()
        .from(contextDigest)
        .where(and(eq(contextDigest.orgId, orgId), inArray(contextDigest.contentSha256, wanted)))
        // Newest first; the ids break ties so the same rows always give the same answer.
        .orderBy(desc(contextDigest.updatedAt), desc(contextDigest.threadId), desc(contextDigest.toolCallId)),
    { readOnly: true },
  );
  for (const { costMicroUsd, ...rest } of rows) {
    if (!found.has(rest.contentSha256))
      found.set(rest.contentSha256, { ...rest, costUsd: microUsdToUsd(costMicroUsd) });
  }
  return found;
}

/** {@link findReusableDigests} for one hash: the most recent digest of that content, or null. */
export async function findReusableDigest(
  database: Database,
  orgId: string,
  contentSha256: string,
): Promise<StoredDigest | null> {
  return (await findReusableDigests(database, orgId, [contentSha256])).get(contentSha256) ?? null;
}

/** Deletes a thread's digests (recovery from any cleaner bug); returns how many. */
export async function deleteThreadDigests(
  database: Database,
  orgId: string,
  threadId: string,
): Promise<number> {
  const thread = requireId(threadId, "threadId");
  const deleted = await database.withOrganization(orgId, (transaction) =>
    transaction
      .delete(contextDigest)
      .where(and(eq(contextDigest.orgId, orgId), eq(contextDigest.threadId, thread)))
      .returning({ toolCallId: contextDigest.toolCallId }),
  );
  return deleted.length;
}

/** Counts and sizes of a thread's digests, in one read-only query. */
export async function summarizeThreadDigests(
  database: Database,
  orgId: string,
  threadId: string,
): Promise<ThreadDigestSummary> {
  const thread = requireId(threadId, "threadId");
  const [row] = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select({
          digests: sql<number>`count(*)::int`,
          originalChars: sql<number>`coalesce(sum(${contextDigest.originalChars}), 0)::bigint`,
          digestChars: sql<number>`coalesce(sum(${contextDigest.digestChars}), 0)::bigint`,
        })
        .from(contextDigest)
        .where(and(eq(contextDigest.orgId, orgId), eq(contextDigest.threadId, thread))),
    { readOnly: true },
  );
  return {
    digests: Number(row?.digests ?? 0),
    originalChars: Number(row?.originalChars ?? 0),
    digestChars: Number(row?.digestChars ?? 0),
  };
}
