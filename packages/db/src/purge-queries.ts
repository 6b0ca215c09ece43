import { and, eq, isNotNull, sql } from "drizzle-orm";
import { DATABASE_NOW } from "./database-clock";
import type { Database, ScopedTransaction } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { OrgPurgeOptions, OrgPurgeResult, PurgeResult } from "./repository-types";
import { contextDigest } from "./schema/context-digest";
import { orgPolicy } from "./schema/org-policy";
import { threadPass } from "./schema/thread-pass";
import { requireId, requireOrganizationId } from "./validation";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Pass records per INSERT: a few parameters each stays far below Postgres' 65,535. */
const MARK_CHUNK_ROWS = 1_000;

/**
 * Marks the threads' pass records `skipped` / `purged` at the database's now, creating the
 * missing ones: every turn up to that now (or the latest one seen, if later) counts as
 * covered, so the sweep neither re-enqueues a partial or failed pass nor earlier checkpoint
 * activity, and a queued event of an earlier turn coalesces. The next turn after the purge
 * runs as usual. Each thread's lease is cleared: a pass in flight (claimed before the
 * purge) no longer holds it, so it makes no further call and its commit writes nothing.
 */
async function markPurged(
  transaction: ScopedTransaction,
  orgId: string,
  threadIds: readonly string[],
): Promise<void> {
  const unique = [...new Set(threadIds)];
  for (let start = 0; start < unique.length; start += MARK_CHUNK_ROWS) {
    await transaction
      .insert(threadPass)
      .values(
        unique.slice(start, start + MARK_CHUNK_ROWS).map((threadId) => ({
          orgId,
          threadId,
          status: "skipped" as const,
          reason: "purged",
          coveredTurnEndedAt: DATABASE_NOW,
          latestTurnEndedAt: DATABASE_NOW,
          recordedAt: DATABASE_NOW,
        })),
      )
      .onConflictDoUpdate({
        target: [threadPass.orgId, threadPass.threadId],
        set: {
          status: sql`excluded.status`,
          reason: sql`excluded.reason`,
          coveredTurnEndedAt: sql`greatest(${threadPass.coveredTurnEndedAt}, ${threadPass.latestTurnEndedAt}, excluded.covered_turn_ended_at)`,
          latestTurnEndedAt: sql`greatest(${threadPass.latestTurnEndedAt}, excluded.latest_turn_ended_at)`,
          digestsWritten: sql`0`,
          recordedAt: sql`greatest(${threadPass.recordedAt}, excluded.recorded_at)`,
          leaseOwner: null,
          leaseExpiresAt: null,
        },
      });
  }
}

/**
 * Clears every lease of the org: a pass in flight in any thread (which may have read a
 * purged digest for reuse, or be digesting the same content) then writes nothing.
 */
async function fenceOrganization(transaction: ScopedTransaction, orgId: string): Promise<void> {
  await transaction
    .update(threadPass)
    .set({ leaseOwner: null, leaseExpiresAt: null })
    .where(and(eq(threadPass.orgId, orgId), isNotNull(threadPass.leaseOwner)));
}

/**
 * Purges one thread (the recovery path from a cleaner bug): deletes its digests and marks its
 * pass purged, fencing a pass in flight (see {@link markPurged}), in one transaction. Copies
 * of the same text in the org's other threads stay: purge by content hash to remove them too.
 * @throws {InvalidStorageInputError} for an empty thread id.
 */
export async function purgeThread(database: Database, orgId: string, threadId: string): Promise<PurgeResult> {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  return database.withOrganization(organization, async (transaction) => {
    const deleted = await transaction
      .delete(contextDigest)
      .where(and(eq(contextDigest.orgId, organization), eq(contextDigest.threadId, thread)))
      .returning({ threadId: contextDigest.threadId });
    await markPurged(transaction, organization, [thread]);
    return { digests: deleted.length, threads: 1 };
  });
}

/**
 * Purges one content from every thread of the org: deletes each digest of that hash (so no
 * later pass can copy it back by content-hash reuse), marks the pass of each thread it was
 * in purged, and fences every pass of the org in flight (one may have read the digest for
 * reuse already), in one transaction.
 * @throws {InvalidStorageInputError} for a hash that is not 64 lowercase hex chars.
 */
export async function purgeContent(
  database: Database,
  orgId: string,
  contentSha256: string,
): Promise<PurgeResult> {
  const organization = requireOrganizationId(orgId);
  if (typeof contentSha256 !== "string" || !SHA256_HEX.test(contentSha256)) {
    throw new InvalidStorageInputError("contentSha256", "expected 64 lowercase hex chars");
  }
  return database.withOrganization(organization, async (transaction) => {
    const deleted = await transaction
      .delete(contextDigest)
      .where(and(eq(contextDigest.orgId, organization), eq(contextDigest.contentSha256, contentSha256)))
      .returning({ threadId: contextDigest.threadId });
    const threads = [...new Set(deleted.map((row) => row.threadId))];
    await fenceOrganization(transaction, organization);
    await markPurged(transaction, organization, threads);
    return { digests: deleted.length, threads: threads.length };
  });
}

/**
 * Purges a whole org: deletes all its digests and marks the pass of every thread that had
 * digests or a pass record purged (fencing every pass in flight), in one transaction. Spend and owner rows stay. The org's
 * policy row stays too unless `deletePolicy` (then it goes in the same transaction): purge
 * is the recovery path from a cleaner bug, and an org turned `off` while its digests are
 * purged must not come back `on` by the purge.
 */
export async function purgeOrganization(
  database: Database,
  orgId: string,
  options: OrgPurgeOptions = {},
): Promise<OrgPurgeResult> {
  const organization = requireOrganizationId(orgId);
  // The signature that took the operator's time put it here: refuse it rather than read it as no options.
  if (typeof options !== "object" || options === null || options instanceof Date) {
    throw new InvalidStorageInputError("options", "expected { deletePolicy? }: a purge takes no instant");
  }
  return database.withOrganization(organization, async (transaction) => {
    const deleted = await transaction
      .delete(contextDigest)
      .where(eq(contextDigest.orgId, organization))
      .returning({ threadId: contextDigest.threadId });
    const passes = await transaction
      .select({ threadId: threadPass.threadId })
      .from(threadPass)
      .where(eq(threadPass.orgId, organization));
    const threads = [...new Set([...deleted, ...passes].map((row) => row.threadId))];
    await markPurged(transaction, organization, threads);
    const policies = options.deletePolicy
      ? await transaction
          .delete(orgPolicy)
          .where(eq(orgPolicy.orgId, organization))
          .returning({ orgId: orgPolicy.orgId })
      : await transaction
          .select({ orgId: orgPolicy.orgId })
          .from(orgPolicy)
          .where(eq(orgPolicy.orgId, organization));
    const policy = policies.length === 0 ? "none" : options.deletePolicy ? "deleted" : "kept";
    return { digests: deleted.length, threads: threads.length, policy };
  });
}
