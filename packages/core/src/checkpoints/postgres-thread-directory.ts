import { InvalidOptionError } from "@context-cleaner/assembler";
import { decodePageCursor, encodePageCursor } from "@context-cleaner/db/internal";
import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { ActiveThread, ActiveThreadsPage, ActiveThreadsQuery, ThreadDirectory } from "../ports";
import {
  CHECKPOINT_TABLE_DEFAULTS,
  type CheckpointTableOptions,
  checkpointTableSettings,
} from "./query-pool";
import { safeTimestampSql } from "./safe-timestamp";

export type { QueryPool } from "./query-pool";

/** Options of {@link createPostgresThreadDirectory}: exactly one of `pool` or `connectionString`; threads whose first checkpoint names no org are not listed. */
export type PostgresThreadDirectoryOptions = CheckpointTableOptions;

/** A {@link ThreadDirectory} over LangGraph's Postgres tables. */
export interface PostgresThreadDirectory extends ThreadDirectory {
  /** Ends the pool if the directory created it from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

/** Defaults of {@link PostgresThreadDirectoryOptions} and of a page. */
export const POSTGRES_THREAD_DIRECTORY_DEFAULTS = {
  ...CHECKPOINT_TABLE_DEFAULTS,
  limit: 100,
  maxLimit: 1_000,
} as const;

function activeThreadsSql(schema: string): string {
  // The scan is bounded by checkpoint id ($3), which LangGraph makes a time-ordered UUID v6,
  // so an index on checkpoint_id serves it; the timestamp is then read safely from the rows
  // in the window only. One row per thread with a root-namespace checkpoint written since
  // $4: the org of its FIRST checkpoint (read by the primary key), unless a checkpoint of
  // the window names another org, the newest timestamp, and the newest timestamp of a run's
  // input checkpoint (where its latest turn started). Pages follow thread id.
  return `with recent as (
    select thread_id, nullif(metadata ->> $1, '') as org_id, ${safeTimestampSql("checkpoint ->> 'ts'")} as ts,
      metadata ->> 'source' = 'input' as run_input
    from "${schema}".checkpoints
    where checkpoint_ns = $2
      and checkpoint_id >= $3
      and ($5::text is null or thread_id > $5::text)
  ), active as (
    select thread_id, max(ts) as last_activity_at, max(ts) filter (where run_input) as last_turn_started_at,
      array_agg(distinct org_id) filter (where org_id is not null) as org_ids
    from recent
    group by thread_id
    having max(ts) >= $4::timestamptz
  )
  select active.thread_id, first.org_id, active.last_activity_at, active.last_turn_started_at
  from active
  cross join lateral (
    select nullif(metadata ->> $1, '') as org_id
    from "${schema}".checkpoints
    where thread_id = active.thread_id and checkpoint_ns = $2
    order by checkpoint_id
    limit 1
  ) first
  where first.org_id is not null
    and (active.org_ids is null or active.org_ids <@ array[first.org_id])
  order by active.thread_id
  limit $6`;
}

/** How much earlier than `since` the checkpoint-id bound lies: ids and timestamps come from one clock, so this is only a margin. */
const ID_BOUND_MARGIN_MS = 3_600_000;

/** 100-ns intervals between the Gregorian epoch of UUID time (1582-10-15) and 1970-01-01. */
const UUID_EPOCH_OFFSET_MS = 12_219_292_800_000;

/**
 * The smallest UUID v6 of an instant: the lower bound, as text, of every checkpoint id
 * LangGraph writes at or after it (a v6 UUID's hex begins with its 60-bit timestamp).
 */
export function checkpointIdLowerBound(instant: Date): string {
  const ticks = (BigInt(instant.getTime()) + BigInt(UUID_EPOCH_OFFSET_MS)) * 10_000n;
  const hex = (ticks < 0n ? 0n : ticks).toString(16).padStart(15, "0").slice(-15);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-6${hex.slice(12, 15)}-0000-000000000000`;
}

function decodeCursor(cursor: string): string {
  const key = decodePageCursor(cursor, 1);
  if (key?.[0] === undefined) {
    throw new InvalidOptionError("cursor: not a cursor returned by listActiveThreads", "cursor");
  }
  return key[0];
}

function pageLimit(limit: number | undefined): number {
  const value = limit ?? POSTGRES_THREAD_DIRECTORY_DEFAULTS.limit;
  if (!Number.isInteger(value) || value < 1 || value > POSTGRES_THREAD_DIRECTORY_DEFAULTS.maxLimit) {
    throw new InvalidOptionError(`limit: must be an integer from 1 to 1000, got ${value}`, "limit");
  }
  return value;
}

function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(String(value));
}

function toActiveThread(row: unknown): ActiveThread {
  const { thread_id, org_id, last_activity_at, last_turn_started_at } = row as Record<string, unknown>;
  return {
    orgId: String(org_id),
    threadId: String(thread_id),
    lastActivityAt: toDate(last_activity_at),
    ...(last_turn_started_at === null || last_turn_started_at === undefined
      ? {}
      : { lastTurnStartedAt: toDate(last_turn_started_at) }),
  };
}

/**
 * The default {@link ThreadDirectory}: threads listed from LangGraph's `checkpoints` table
 * (`@langchain/langgraph-checkpoint-postgres`), read with SELECTs only. The org is the one
 * a checkpoint-metadata key names on the thread's first checkpoint (server-set: see
 * {@link createPostgresThreadOwner}); a thread whose recent checkpoints name another org is
 * not listed. Recency comes from the checkpoint's own timestamp (`checkpoint.ts`); a
 * checkpoint whose timestamp cannot be read is passed over. A thread's latest turn start
 * (`lastTurnStartedAt`) is the timestamp of its latest checkpoint of a run's input
 * (metadata `source: "input"`) within the scan, when there is one. It needs `SELECT` on
 * `<schema>.checkpoints` and nothing else; it never loads LangChain.
 *
 * Each page reads the checkpoints whose id (a time-ordered UUID v6) is at least that of
 * `since` less an hour: give the table an index on `checkpoint_id`
 * (`create index on <schema>.checkpoints (checkpoint_id)`) and that range is all it reads.
 *
 * @throws {InvalidOptionError} unless exactly one of `pool` and `connectionString` is given,
 *   or for a schema or metadata key that is not a plain identifier.
 * @example
 * const directory = createPostgresThreadDirectory({ connectionString: readerUrl, schema: "checkpoints" });
 * const page = await directory.listActiveThreads({ since: new Date(Date.now() - 48 * 3600_000) });
 */
// Over 60 lines: a factory whose returned methods share its pool and settings; each method is short.
export function createPostgresThreadDirectory(
  options: PostgresThreadDirectoryOptions,
): PostgresThreadDirectory {
  const { pool, schema, orgMetadataKey, namespace } = checkpointTableSettings(
    "createPostgresThreadDirectory",
    options,
  );
  const statement = activeThreadsSql(schema);
  return {
    async listActiveThreads(query: ActiveThreadsQuery): Promise<ActiveThreadsPage> {
      const limit = pageLimit(query.limit);
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      if (!(query.since instanceof Date) || Number.isNaN(query.since.getTime())) {
        throw new InvalidOptionError("since: must be a valid Date", "since");
      }
      let rows: unknown[];
      try {
        const client = await pool.pool();
        ({ rows } = await client.query(statement, [
          orgMetadataKey,
          namespace,
          checkpointIdLowerBound(new Date(query.since.getTime() - ID_BOUND_MARGIN_MS)),
          query.since.toISOString(),
          after,
          limit + 1,
        ]));
      } catch (error) {
        throw new CheckpointReadError("listing active threads from the checkpoint store failed", {
          reason: CHECKPOINT_READ_REASONS.storeFailed,
          cause: error,
        });
      }
      const threads = rows.slice(0, limit).map(toActiveThread);
      const last = threads.at(-1);
      return {
        threads,
        nextCursor: rows.length > limit && last ? encodePageCursor([last.threadId]) : null,
      };
    },
    close: () => pool.close(),
  };
}

export type { ThreadOwner, ThreadOwnership } from "../ports";
// The reader of an app's own message table: checkpoint reader, thread owner and directory in one.
export {
  createMessageTableReader,
  MESSAGE_TABLE_DEFAULTS,
  type MessageTableReader,
  type MessageTableReaderOptions,
} from "./message-table";
// The thread-directory entry point also carries the owner readers, which the digest and sweep functions wire beside it.
export {
  createPostgresThreadOwner,
  createTableThreadOwner,
  POSTGRES_THREAD_OWNER_DEFAULTS,
  type PostgresThreadOwner,
  type PostgresThreadOwnerOptions,
  type ThreadOwnerRows,
} from "./postgres-thread-owner";
