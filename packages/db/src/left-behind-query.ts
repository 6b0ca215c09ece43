import { and, asc, isNotNull, type SQL, sql } from "drizzle-orm";
import type { Database } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import { decodePageCursor, encodePageCursor } from "./page-cursor";
import type {
  LeftBehindFilter,
  LeftBehindPage,
  LeftBehindQuery,
  LeftBehindReason,
  ThreadKey,
  ThreadPassCoverage,
} from "./repository-types";
import { threadPass } from "./schema/thread-pass";
import { optionalDate, requireId, requireInteger } from "./validation";

const DEFAULTS = { limit: 100, maxLimit: 1_000, maxThreadsPerLookup: 1_000 } as const;

// `no_checkpoint` is terminal: the thread's checkpoint is gone, so retrying finds nothing.
// A new turn records a new pass (or, if its event is lost, the directory finds the activity).
const reason = sql<LeftBehindReason | null>`case
  when ${threadPass.status} = 'skipped' and ${threadPass.reason} = 'no_checkpoint' then null
  when ${threadPass.status} = 'failed' then 'failed'
  when ${threadPass.status} = 'partial' then 'partial'
  when ${threadPass.status} = 'skipped' and ${threadPass.reason} in ('turn_lock', 'budget') then ${threadPass.reason}
  when ${threadPass.latestTurnEndedAt} > coalesce(${threadPass.coveredTurnEndedAt}, '-infinity'::timestamptz)
    then 'active_since_pass'
  end`;

/** The record time as the cursor keeps it: UTC, to the microsecond the column holds. */
const recordedKey = sql<string>`to_char(${threadPass.recordedAt} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/**
 * Threads the nightly sweep should re-enqueue, across orgs: skipped for the turn lock or
 * the budget, failed, partial, or active since their last covered turn; never a thread
 * whose last pass found no checkpoint. Pages take the orgs in turns: every org's oldest
 * record, then every org's second oldest, and so on (within a turn by record time, org,
 * thread). A bounded sweep therefore gives each org its share of the run (an org with
 * fewer threads leaves the rest to the others), however many threads one org has; and
 * within an org, oldest record first, a thread whose retry records a new pass goes behind
 * every thread of its org not tried since. Runs as `app_sweeper`, which can read only
 * these routing columns.
 * @throws {InvalidStorageInputError} for a bad limit or cursor.
 */
export async function listLeftBehind(
  database: Database,
  query: LeftBehindQuery = {},
): Promise<LeftBehindPage> {
  const limit = requireInteger(query.limit ?? DEFAULTS.limit, "limit", 1, DEFAULTS.maxLimit);
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  const conditions = leftBehindConditions(query);
  const rows = await database.withSweeper((transaction) => {
    // Each thread's place in its org, oldest record first: the turn it is listed in.
    const ranked = transaction
      .select({
        orgId: threadPass.orgId,
        threadId: threadPass.threadId,
        reason: reason.as("reason"),
        latestTurnEndedAt: threadPass.latestTurnEndedAt,
        recordedAt: threadPass.recordedAt,
        recordedKey: recordedKey.as("recorded_key"),
        place:
          sql<string>`row_number() over (partition by ${threadPass.orgId} order by ${threadPass.recordedAt}, ${threadPass.threadId})`.as(
            "place",
          ),
      })
      .from(threadPass)
      .where(and(...conditions))
      .as("ranked");
    return transaction
      .select()
      .from(ranked)
      .where(
        after === null
          ? undefined
          : sql`(${ranked.place}, ${ranked.recordedAt}, ${ranked.orgId}, ${ranked.threadId}) > (${after[0]}::bigint, ${after[1]}::timestamptz, ${after[2]}, ${after[3]})`,
      )
      .orderBy(asc(ranked.place), asc(ranked.recordedAt), asc(ranked.orgId), asc(ranked.threadId))
      .limit(limit + 1);
  });
  const kept = rows.slice(0, limit);
  const page = kept.map((row) => ({
    orgId: row.orgId,
    threadId: row.threadId,
    reason: row.reason as LeftBehindReason,
    latestTurnEndedAt: row.latestTurnEndedAt,
    recordedAt: row.recordedAt,
  }));
  const last = kept.at(-1);
  return {
    threads: page,
    nextCursor:
      rows.length > limit && last
        ? encodePageCursor([String(last.place), last.recordedKey, last.orgId, last.threadId])
        : null,
  };
}

/**
 * How many threads {@link listLeftBehind} would list with these bounds, across orgs, as
 * `app_sweeper`: the sweep counts the threads it gave up on (`turnEndedBefore`).
 * @throws {InvalidStorageInputError} for an invalid date.
 */
export async function countLeftBehind(database: Database, query: LeftBehindFilter = {}): Promise<number> {
  const conditions = leftBehindConditions(query);
  const rows = await database.withSweeper((transaction) =>
    transaction
      .select({ count: sql<number>`count(*)::int` })
      .from(threadPass)
      .where(and(...conditions)),
  );
  return Number(rows[0]?.count ?? 0);
}

/** The turn a left-behind thread waits on: its record's latest turn, or the record time without one. */
const leftBehindTurn = sql`coalesce(${threadPass.latestTurnEndedAt}, ${threadPass.recordedAt})`;

/** The conditions of a left-behind listing or count with `filter`'s bounds. */
function leftBehindConditions(filter: LeftBehindFilter): SQL[] {
  const conditions: SQL[] = [isNotNull(reason)];
  const bounds = [
    ["recordedBefore", threadPass.recordedAt, "before"],
    ["recordedSince", threadPass.recordedAt, "since"],
    ["turnEndedBefore", leftBehindTurn, "before"],
    ["turnEndedSince", leftBehindTurn, "since"],
  ] as const;
  for (const [field, column, side] of bounds) {
    const at = optionalDate(filter[field], field);
    if (at === null) continue;
    const instant = sql`${at.toISOString()}::timestamptz`;
    conditions.push(side === "before" ? sql`${column} < ${instant}` : sql`${column} >= ${instant}`);
  }
  return conditions;
}

/**
 * Which of `threads` have a pass record, with the turns it covers and saw, in one query as
 * `app_sweeper` (routing columns only), in the order given. At most 1,000 threads per call.
 * @throws {InvalidStorageInputError} for an empty id or more than 1,000 threads.
 */
export async function threadsWithPass(
  database: Database,
  threads: readonly ThreadKey[],
): Promise<ThreadPassCoverage[]> {
  requireInteger(threads.length, "threads.length", 0, DEFAULTS.maxThreadsPerLookup);
  const orgIds = threads.map((thread) => requireId(thread.orgId, "orgId", "orgId"));
  const threadIds = threads.map((thread) => requireId(thread.threadId, "threadId"));
  if (threads.length === 0) return [];
  const rows = await database.withSweeper((transaction) =>
    transaction
      .select({
        orgId: threadPass.orgId,
        threadId: threadPass.threadId,
        coveredTurnEndedAt: threadPass.coveredTurnEndedAt,
        latestTurnEndedAt: threadPass.latestTurnEndedAt,
      })
      .from(threadPass)
      .where(
        sql`(${threadPass.orgId}, ${threadPass.threadId}) in (${sql.join(
          orgIds.map((orgId, index) => sql`(${orgId}, ${threadIds[index]})`),
          sql`, `,
        )})`,
      ),
  );
  const known = new Map(rows.map((row) => [JSON.stringify([row.orgId, row.threadId]), row]));
  return threads.flatMap((thread) => {
    const row = known.get(JSON.stringify([thread.orgId, thread.threadId]));
    return row ? [{ ...row }] : [];
  });
}

/** A cursor's record time, to the microsecond (a `Date` keeps milliseconds only). */
const RECORDED_KEY = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A cursor's place of a thread in its org: a positive integer. */
const PLACE = /^[1-9][0-9]{0,17}$/;

function decodeCursor(cursor: string): [string, string, string, string] {
  const key = decodePageCursor(cursor, 4);
  if (key === undefined || !PLACE.test(key[0] ?? "") || !RECORDED_KEY.test(key[1] ?? "")) {
    throw new InvalidStorageInputError("cursor", "not a cursor returned by listLeftBehind");
  }
  return key as [string, string, string, string];
}
