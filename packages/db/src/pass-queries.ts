import { PASS_STATUSES } from "@context-cleaner/assembler/internal";
import { and, eq, sql } from "drizzle-orm";
import { DATABASE_NOW } from "./database-clock";
import type { Database, ScopedTransaction } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { LatestTurnInput, PassInput, PassRecord } from "./repository-types";
import { threadPass } from "./schema/thread-pass";
import { optionalDate, requireCount, requireId, requireOrganizationId, requireStorable } from "./validation";

/**
 * Records a thread's latest pass, stamped with the database's clock: the pass written last
 * is the latest, whatever the clocks of the workers that wrote them say. Turn times only
 * move forward.
 * @throws {InvalidStorageInputError} for an unknown status or invalid dates/counts.
 */
export async function recordPass(
  database: Database,
  orgId: string,
  threadId: string,
  pass: PassInput,
): Promise<void> {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  const values = passValues(organization, thread, pass);
  await database.withOrganization(organization, (transaction) => writePass(transaction, values));
}

/** The validated columns of a pass record, ready for {@link writePass} (which stamps its time). */
export type PassValues = Omit<typeof threadPass.$inferInsert, "recordedAt">;

/**
 * Checks a pass and builds its record's columns.
 * @throws {InvalidStorageInputError} for an unknown status or invalid dates/counts.
 */
export function passValues(organization: string, thread: string, pass: PassInput): PassValues {
  if (!PASS_STATUSES.includes(pass.status)) {
    throw new InvalidStorageInputError(
      "status",
      `expected one of ${PASS_STATUSES.join(", ")}, got ${pass.status}`,
    );
  }
  // The caller's time is checked but not stored: the database's clock stamps the record.
  optionalDate(pass.at, "at");
  const covered = optionalDate(pass.coveredTurnEndedAt, "coveredTurnEndedAt");
  const seen = optionalDate(pass.turnEndedAt, "turnEndedAt") ?? covered;
  return {
    orgId: organization,
    threadId: thread,
    status: pass.status,
    reason: requireStorable(pass.reason ?? null, "reason"),
    coveredTurnEndedAt: covered,
    latestTurnEndedAt: seen,
    rawToolChars: requireCount(pass.rawToolChars ?? 0, "rawToolChars"),
    digestsWritten: requireCount(pass.digestsWritten ?? 0, "digestsWritten"),
  };
}

/**
 * Writes a pass record in `transaction`, stamped with the database's now: the last write is
 * the latest pass (a worker's clock never orders passes), and turn times only move forward.
 */
export async function writePass(transaction: ScopedTransaction, values: PassValues): Promise<void> {
  await transaction
    .insert(threadPass)
    .values({ ...values, recordedAt: DATABASE_NOW })
    .onConflictDoUpdate({
      target: [threadPass.orgId, threadPass.threadId],
      set: {
        status: sql`excluded.status`,
        reason: sql`excluded.reason`,
        // greatest() ignores NULLs: an unset time keeps the stored one.
        coveredTurnEndedAt: sql`greatest(${threadPass.coveredTurnEndedAt}, excluded.covered_turn_ended_at)`,
        latestTurnEndedAt: sql`greatest(${threadPass.latestTurnEndedAt}, excluded.latest_turn_ended_at, excluded.covered_turn_ended_at)`,
        rawToolChars: sql`excluded.raw_tool_chars`,
        digestsWritten: sql`excluded.digests_written`,
        recordedAt: sql`excluded.recorded_at`,
      },
    });
}

/**
 * Raises the thread's latest seen turn, `greatest(latest, turn)`, and nothing else: a run
 * that found another holding the lease records the turn it leaves uncovered without
 * touching the holder's status, reason, covered turn, record time or lease. A thread with
 * no record gets one, `skipped` / `claimed`, at the database's now.
 * @throws {InvalidStorageInputError} for an invalid id or date.
 */
export async function recordLatestTurn(
  database: Database,
  orgId: string,
  threadId: string,
  update: LatestTurnInput,
): Promise<void> {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  const turnEndedAt = optionalDate(update.turnEndedAt, "turnEndedAt");
  if (turnEndedAt === null) throw new InvalidStorageInputError("turnEndedAt", "required");
  optionalDate(update.at, "at");
  await database.withOrganization(organization, (transaction) =>
    transaction
      .insert(threadPass)
      .values({
        orgId: organization,
        threadId: thread,
        status: "skipped",
        reason: "claimed",
        latestTurnEndedAt: turnEndedAt,
        recordedAt: DATABASE_NOW,
      })
      .onConflictDoUpdate({
        target: [threadPass.orgId, threadPass.threadId],
        set: {
          latestTurnEndedAt: sql`greatest(${threadPass.latestTurnEndedAt}, excluded.latest_turn_ended_at)`,
        },
      }),
  );
}

/** The thread's latest pass, or null when none was recorded. */
export async function getPass(
  database: Database,
  orgId: string,
  threadId: string,
): Promise<PassRecord | null> {
  const thread = requireId(threadId, "threadId");
  const rows = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select()
        .from(threadPass)
        .where(and(eq(threadPass.orgId, orgId), eq(threadPass.threadId, thread))),
    { readOnly: true },
  );
  const row = rows[0];
  if (row === undefined) {
    return null;
  }
  const { recordedAt, ...rest } = row;
  return { ...rest, at: recordedAt };
}
