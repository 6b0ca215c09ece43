import { and, eq, sql } from "drizzle-orm";
import type { Database } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { ThreadClaim, ThreadClaimInput } from "./repository-types";
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

/** A lease lasts at most a day: longer would only hide a dead runner. */
const MAX_LEASE_MS = 86_400_000;

/**
 * Claims a thread for one run: one conditional UPSERT on its pass record takes the lease
 * when it is free, expired, or already this owner's, and returns nothing otherwise. The
 * row lock makes concurrent claims wait for each other, so exactly one of them wins. A
 * thread with no pass record gets one, `skipped` / `claimed`, until its first pass records.
 * @throws {InvalidStorageInputError} for an empty owner, a bad instant or lease length.
 */
export async function claimThread(
  database: Database,
  orgId: string,
  threadId: string,
  claim: ThreadClaimInput,
): Promise<ThreadClaim> {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  const owner = requireOwner(claim.owner);
  const at = optionalDate(claim.at, "at");
  if (at === null) throw new InvalidStorageInputError("at", "required");
  const expiresAt = new Date(at.getTime() + requireInteger(claim.leaseMs, "leaseMs", 1, MAX_LEASE_MS));
  const turnEndedAt = optionalDate(claim.turnEndedAt, "turnEndedAt");
  return database.withOrganization(organization, async (transaction) => {
    const taken = await transaction
      .insert(threadPass)
      .values({
        orgId: organization,
        threadId: thread,
        status: "skipped",
        reason: "claimed",
        recordedAt: at,
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
        setWhere: sql`${threadPass.leaseOwner} is null or ${threadPass.leaseExpiresAt} <= ${at} or ${threadPass.leaseOwner} = ${owner}`,
      })
      .returning({ coveredTurnEndedAt: threadPass.coveredTurnEndedAt });
    const row = taken[0];
    if (row !== undefined) return { claimed: true, coveredTurnEndedAt: row.coveredTurnEndedAt, expiresAt };
    const held = await transaction
      .select({ heldUntil: threadPass.leaseExpiresAt })
      .from(threadPass)
      .where(and(eq(threadPass.orgId, organization), eq(threadPass.threadId, thread)));
    return { claimed: false, heldUntil: held[0]?.heldUntil ?? expiresAt };
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
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  const holder = requireOwner(owner);
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
