import { and, eq, type SQL, sql } from "drizzle-orm";
import { DATABASE_NOW } from "./database-clock";
import type { Database } from "./database-types";
import { digestValues, writeDigests } from "./digest-queries";
import { InvalidStorageInputError } from "./errors";
import { passValues, writePass } from "./pass-queries";
import type { LeasedPassCommit, LeasedPassInput, ThreadClaim, ThreadClaimInput } from "./repository-types";
import { threadPass } from "./schema/thread-pass";
import {
  optionalDate,
  requireId,
  requireInteger,
  requireOrganizationId,
  requireStorable,
} from "./validation";

/** @throws {InvalidStorageInputError} unless the lease owner is a non-empty storable string. */
function requireOwner(value: unknown): string {
  if (typeof value !== "string" || value === "") {
    throw new InvalidStorageInputError("owner", "must be a non-empty string");
  }
  return requireStorable(value, "owner");
}

/** The thread a lease query is about, and the run that asks: checked, in this order. */
interface LeaseKey {
  organization: string;
  thread: string;
  owner: string;
}

/**
 * The checked org, thread and lease owner of a lease query (the owner read from `holder`
 * only once the org and thread have passed).
 * @throws {InvalidStorageInputError} for a bad org or thread id, or an empty owner.
 */
function leaseKey(orgId: string, threadId: string, holder: { readonly owner: string }): LeaseKey {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  return { organization, thread, owner: requireOwner(holder.owner) };
}

/** A lease lasts at most a day: longer would only hide a dead runner. */
const MAX_LEASE_MS = 86_400_000;

/** Whether `owner` holds the row's lease and it has not lapsed: the fencing condition. */
function heldBy(owner: string): SQL {
  return sql`${threadPass.leaseOwner} = ${owner} and ${threadPass.leaseExpiresAt} > ${DATABASE_NOW}`;
}

/**
 * Claims a thread for one run: one conditional UPSERT on its pass record takes the lease
 * when it is free, lapsed by the database's clock, or already this owner's, and returns
 * nothing otherwise; the lease then lasts `leaseMs` from the database's now. The row lock
 * makes concurrent claims wait for each other, so exactly one of them wins. A thread with
 * no pass record gets one, `skipped` / `claimed` at the database's now, until its first
 * pass records.
 * @throws {InvalidStorageInputError} for an empty owner, a bad instant or lease length.
 */
export async function claimThread(
  database: Database,
  orgId: string,
  threadId: string,
  claim: ThreadClaimInput,
): Promise<ThreadClaim> {
  const { organization, thread, owner } = leaseKey(orgId, threadId, claim);
  optionalDate(claim.at, "at");
  const leaseMs = requireInteger(claim.leaseMs, "leaseMs", 1, MAX_LEASE_MS);
  const expiresAt = sql`${DATABASE_NOW} + ${leaseMs}::integer * interval '1 millisecond'`;
  const turnEndedAt = optionalDate(claim.turnEndedAt, "turnEndedAt");
  return database.withOrganization(organization, async (transaction) => {
    const taken = await transaction
      .insert(threadPass)
      .values({
        orgId: organization,
        threadId: thread,
        status: "skipped",
        reason: "claimed",
        recordedAt: DATABASE_NOW,
        leaseOwner: owner,
        leaseExpiresAt: expiresAt,
        latestTurnEndedAt: turnEndedAt,
      })
      .onConflictDoUpdate({
        target: [threadPass.orgId, threadPass.threadId],
        set: {
          leaseOwner: sql`excluded.lease_owner`,
          leaseExpiresAt: sql`excluded.lease_expires_at`,
          // Never moves backwards, as recordPass keeps it.
          latestTurnEndedAt: sql`greatest(${threadPass.latestTurnEndedAt}, excluded.latest_turn_ended_at)`,
        },
        setWhere: sql`${threadPass.leaseOwner} is null or ${threadPass.leaseExpiresAt} <= ${DATABASE_NOW} or ${threadPass.leaseOwner} = ${owner}`,
      })
      .returning({ coveredTurnEndedAt: threadPass.coveredTurnEndedAt, expiresAt: threadPass.leaseExpiresAt });
    const row = taken[0];
    if (row?.expiresAt)
      return { claimed: true, coveredTurnEndedAt: row.coveredTurnEndedAt, expiresAt: row.expiresAt };
    // A lease released in between is free from the database's now.
    const held = await transaction
      .select({
        heldUntil: sql<Date>`coalesce(${threadPass.leaseExpiresAt}, ${DATABASE_NOW})`.mapWith(
          threadPass.leaseExpiresAt,
        ),
      })
      .from(threadPass)
      .where(and(eq(threadPass.orgId, organization), eq(threadPass.threadId, thread)));
    return { claimed: false, heldUntil: held[0]?.heldUntil ?? new Date() };
  });
}

/**
 * Releases the thread's lease if `owner` still holds it; a lease another run has taken
 * over since is left alone. Returns whether this owner's lease was released.
 */
export async function releaseThread(
  database: Database,
  orgId: string,
  threadId: string,
  owner: string,
): Promise<boolean> {
  const { organization, thread, owner: holder } = leaseKey(orgId, threadId, { owner });
  const released = await database.withOrganization(organization, (transaction) =>
    transaction
      .update(threadPass)
      .set({ leaseOwner: null, leaseExpiresAt: null })
      .where(
        and(
          eq(threadPass.orgId, organization),
          eq(threadPass.threadId, thread),
          eq(threadPass.leaseOwner, holder),
        ),
      )
      .returning({ threadId: threadPass.threadId }),
  );
  return released.length === 1;
}

/** Whether `owner` holds the thread's lease, unlapsed by the database's clock: one indexed read. */
export async function holdsLease(
  database: Database,
  orgId: string,
  threadId: string,
  owner: string,
): Promise<boolean> {
  const { organization, thread, owner: holder } = leaseKey(orgId, threadId, { owner });
  const rows = await database.withOrganization(
    organization,
    (transaction) =>
      transaction
        .select({ threadId: threadPass.threadId })
        .from(threadPass)
        .where(and(eq(threadPass.orgId, organization), eq(threadPass.threadId, thread), heldBy(holder))),
    { readOnly: true },
  );
  return rows.length === 1;
}

/**
 * A run's commit, fenced by its lease: in one transaction, locks the thread's pass record
 * while `commit.owner` holds its lease (unlapsed by the database's clock), then upserts the
 * rows and records the pass; when the run no longer holds it, writes nothing. The lock makes
 * a concurrent claim wait for the commit, so no takeover slips in between.
 * @throws {InvalidStorageInputError} for a row of another thread, or as `upsertDigests` and
 *   `recordPass` do (the checks run before anything is written).
 */
export async function commitLeasedPass(
  database: Database,
  orgId: string,
  threadId: string,
  commit: LeasedPassInput,
): Promise<LeasedPassCommit> {
  const { organization, thread, owner } = leaseKey(orgId, threadId, commit);
  commit.rows.forEach((row, index) => {
    if (row.threadId !== thread) {
      throw new InvalidStorageInputError(`rows[${index}].threadId`, "must be the committed thread");
    }
  });
  const digests = digestValues(organization, commit.rows);
  const pass = passValues(organization, thread, commit.pass);
  return database.withOrganization(organization, async (transaction) => {
    const held = await transaction
      .select({ threadId: threadPass.threadId })
      .from(threadPass)
      .where(and(eq(threadPass.orgId, organization), eq(threadPass.threadId, thread), heldBy(owner)))
      .for("update");
    if (held.length === 0) return { committed: false };
    const written = digests.length === 0 ? 0 : await writeDigests(transaction, digests);
    await writePass(transaction, { ...pass, digestsWritten: written });
    return { committed: true, digestsWritten: written };
  });
}
