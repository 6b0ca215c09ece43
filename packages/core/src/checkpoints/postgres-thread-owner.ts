import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { ThreadOwner, ThreadOwnership } from "../ports";
import {
  CHECKPOINT_TABLE_DEFAULTS,
  type CheckpointTableOptions,
  checkpointTableSettings,
} from "./query-pool";

/** Options of {@link createPostgresThreadOwner}: exactly one of `pool` or `connectionString`; the root namespace's first checkpoint founds the thread. */
export type PostgresThreadOwnerOptions = CheckpointTableOptions;

/** A {@link ThreadOwner} over LangGraph's Postgres tables. */
export interface PostgresThreadOwner extends ThreadOwner {
  /** Ends the pool if it was created from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

/** Defaults of {@link PostgresThreadOwnerOptions}. */
export const POSTGRES_THREAD_OWNER_DEFAULTS = CHECKPOINT_TABLE_DEFAULTS;

function ownerSql(schema: string): string {
  // Every checkpoint of the thread, by the primary key's leading column: the org of the
  // root namespace's first checkpoint (LangGraph's ids are time-ordered), and every org any
  // checkpoint of the thread names.
  return `select
      (array_agg(nullif(metadata ->> $1, '') order by checkpoint_id) filter (where checkpoint_ns = $3))[1] as first_org_id,
      array_agg(distinct nullif(metadata ->> $1, '')) filter (where nullif(metadata ->> $1, '') is not null) as org_ids
    from "${schema}".checkpoints
    where thread_id = $2`;
}

function toOwnership(row: unknown): ThreadOwnership {
  const { first_org_id: first, org_ids: named } = (row ?? {}) as Record<string, unknown>;
  if (typeof first !== "string") return { status: "unknown" };
  const orgIds = Array.isArray(named) ? named.map(String).sort() : [first];
  if (orgIds.some((orgId) => orgId !== first)) return { status: "conflicting", orgIds };
  return { status: "owned", orgId: first };
}

/**
 * The default {@link ThreadOwner}: the org recorded under `orgMetadataKey` in the metadata of
 * the thread's FIRST root-graph checkpoint in LangGraph's `checkpoints` table, read with
 * SELECTs only. A thread whose checkpoints (of any namespace) name another org as well is
 * `conflicting`, and one whose first checkpoint names none (or that has no checkpoint) is
 * `unknown`: both are refused for every org.
 *
 * This trusts that the org in checkpoint metadata is set by the runtime's server from the
 * authenticated caller and is never client-writable (LangGraph copies `configurable` keys
 * into metadata: the server, not the request body, must fill `configurable.org_id`). Where
 * a client can influence metadata, use {@link createTableThreadOwner} instead.
 *
 * @throws {InvalidOptionError} unless exactly one of `pool` and `connectionString` is given,
 *   or for a schema that is not a plain identifier or an empty metadata key.
 * @example
 * const owner = createPostgresThreadOwner({ connectionString: readerUrl, schema: "checkpoints" });
 * await runDigestJob(payload, { checkpoints, store, digester, clock, threadOwner: owner });
 */
export function createPostgresThreadOwner(options: PostgresThreadOwnerOptions): PostgresThreadOwner {
  const { pool, schema, orgMetadataKey, namespace } = checkpointTableSettings(
    "createPostgresThreadOwner",
    options,
  );
  const statement = ownerSql(schema);
  return {
    async ownerOf(threadId: string): Promise<ThreadOwnership> {
      try {
        const { rows } = await (await pool.pool()).query(statement, [orgMetadataKey, threadId, namespace]);
        return toOwnership(rows[0]);
      } catch (error) {
        throw new CheckpointReadError(`reading the owner of thread ${threadId} failed`, {
          reason: CHECKPOINT_READ_REASONS.storeFailed,
          threadId,
          cause: error,
        });
      }
    },
    close: () => pool.close(),
  };
}

/** What {@link createTableThreadOwner} reads: the storage repository's owner rows. */
export interface ThreadOwnerRows {
  /** The org of the thread's owner row, or null when the runtime recorded none. */
  getThreadOwner(threadId: string): Promise<string | null>;
}

/**
 * The table-backed {@link ThreadOwner}: the owner row the runtime writes when it creates a
 * thread (`repository.recordThreadOwner(orgId, threadId)` of `@context-cleaner/db`, under
 * row-level security, first writer wins). A thread with no row is `unknown`, so refused:
 * the runtime must record the owner before the thread's first turn ends.
 *
 * @example
 * const threadOwner = createTableThreadOwner(createDigestRepository(database));
 */
export function createTableThreadOwner(rows: ThreadOwnerRows): ThreadOwner {
  return {
    async ownerOf(threadId) {
      const orgId = await rows.getThreadOwner(threadId);
      return orgId === null ? { status: "unknown" } : { status: "owned", orgId };
    },
  };
}
