import { InvalidOptionError } from "@context-cleaner/assembler";
import { decodePageCursor, encodePageCursor } from "@context-cleaner/db/internal";
import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { ActiveThread, ActiveThreadsPage, ActiveThreadsQuery, ThreadDirectory } from "../ports";

/**
 * The one call the directory makes on a pool: a parameterised query. A `pg` `Pool` and a
 * `@neondatabase/serverless` `Pool` both satisfy it.
 */
export interface QueryPool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Options of {@link createPostgresThreadDirectory}: exactly one of `pool` or `connectionString`. */
export interface PostgresThreadDirectoryOptions {
  /** A pool owned by the caller (not ended by `close()`). */
  pool?: QueryPool;
  /**
   * A connection string, meant for a role that can only read the checkpoint tables; the
   * directory then owns a `pg` pool whose sessions are read-only, ended by `close()`.
   */
  connectionString?: string;
  /** The schema `PostgresSaver` was set up in. @default "public" */
  schema?: string;
  /**
   * The checkpoint-metadata key holding the thread's org id. LangGraph's Python runtime
   * copies `configurable` keys into checkpoint metadata; a JS runtime stamps it (see
   * docs/architecture.md#the-nightly-sweep). Threads without it are not listed.
   * @default "org_id"
   */
  orgMetadataKey?: string;
  /** The checkpoint namespace of the root graph. @default "" */
  checkpointNamespace?: string;
}

/** A {@link ThreadDirectory} over LangGraph's Postgres tables. */
export interface PostgresThreadDirectory extends ThreadDirectory {
  /** Ends the pool if the directory created it from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

/** Defaults of {@link PostgresThreadDirectoryOptions} and of a page. */
export const POSTGRES_THREAD_DIRECTORY_DEFAULTS = {
  schema: "public",
  orgMetadataKey: "org_id",
  checkpointNamespace: "",
  limit: 100,
  maxLimit: 1_000,
} as const;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

function activeThreadsSql(schema: string): string {
  // One row per thread whose root-namespace checkpoints include one written since $3: its
  // latest checkpoint's org (by checkpoint id, which LangGraph makes time-ordered) and the
  // newest checkpoint timestamp. Pages follow the primary key's leading column.
  return `select thread_id, org_id, last_activity_at from (
    select thread_id,
      (array_agg(metadata ->> $1 order by checkpoint_id desc)
        filter (where coalesce(metadata ->> $1, '') <> ''))[1] as org_id,
      max((checkpoint ->> 'ts')::timestamptz) as last_activity_at
    from "${schema}".checkpoints
    where checkpoint_ns = $2
      and (checkpoint ->> 'ts')::timestamptz >= $3
      and ($4::text is null or thread_id > $4::text)
    group by thread_id
  ) active
  where org_id is not null
  order by thread_id
  limit $5`;
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

function toActiveThread(row: unknown): ActiveThread {
  const { thread_id, org_id, last_activity_at } = row as Record<string, unknown>;
  return {
    orgId: String(org_id),
    threadId: String(thread_id),
    lastActivityAt: last_activity_at instanceof Date ? last_activity_at : new Date(String(last_activity_at)),
  };
}

/**
 * The default {@link ThreadDirectory}: threads listed from LangGraph's `checkpoints` table
 * (`@langchain/langgraph-checkpoint-postgres`), read with SELECTs only. The org comes from
 * a checkpoint-metadata key, recency from the checkpoint's own timestamp (`checkpoint.ts`).
 * It needs `SELECT` on `<schema>.checkpoints` and nothing else; it never loads LangChain.
 *
 * Each page scans the checkpoints written since `since` (the table has no index on the
 * timestamp), so keep `since` to the sweep's window.
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
  const { pool, connectionString } = options;
  if ((pool === undefined) === (connectionString === undefined)) {
    throw new InvalidOptionError(
      "createPostgresThreadDirectory needs exactly one of pool or connectionString",
      pool === undefined ? "connectionString" : "pool",
    );
  }
  const defaults = POSTGRES_THREAD_DIRECTORY_DEFAULTS;
  const schema = options.schema ?? defaults.schema;
  if (!IDENTIFIER.test(schema)) {
    throw new InvalidOptionError(
      `schema: must be a plain identifier, got ${JSON.stringify(schema)}`,
      "schema",
    );
  }
  const orgMetadataKey = options.orgMetadataKey ?? defaults.orgMetadataKey;
  if (orgMetadataKey.length === 0) {
    throw new InvalidOptionError("orgMetadataKey: must be non-empty", "orgMetadataKey");
  }
  const namespace = options.checkpointNamespace ?? defaults.checkpointNamespace;
  const statement = activeThreadsSql(schema);
  let ownedPool: Promise<QueryPool & { end(): Promise<void> }> | undefined;

  async function queryPool(): Promise<QueryPool> {
    if (pool !== undefined) return pool;
    ownedPool ??= import("pg").then(
      ({ default: pg }) => {
        const created = new pg.Pool({
          connectionString,
          options: "-c default_transaction_read_only=on",
          max: 2,
        });
        // An idle connection the server drops is replaced on the next query; unhandled, the
        // pool's error event would end the process.
        created.on("error", () => undefined);
        return created;
      },
      (error: unknown) => {
        ownedPool = undefined;
        throw error;
      },
    );
    return ownedPool;
  }

  return {
    async listActiveThreads(query: ActiveThreadsQuery): Promise<ActiveThreadsPage> {
      const limit = pageLimit(query.limit);
      const after = query.cursor ? decodeCursor(query.cursor) : null;
      if (!(query.since instanceof Date) || Number.isNaN(query.since.getTime())) {
        throw new InvalidOptionError("since: must be a valid Date", "since");
      }
      let rows: unknown[];
      try {
        const client = await queryPool();
        ({ rows } = await client.query(statement, [
          orgMetadataKey,
          namespace,
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
    async close(): Promise<void> {
      const owned = ownedPool;
      ownedPool = undefined;
      if (owned) await (await owned).end();
    },
  };
}
