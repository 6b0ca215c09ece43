import { InvalidOptionError } from "@context-cleaner/assembler";
import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { ThreadOwner, ThreadOwnership } from "../ports";
import { checkpointPool, type QueryPool, SQL_IDENTIFIER } from "./query-pool";

/** Options of {@link createPostgresThreadOwner}: exactly one of `pool` or `connectionString`. */
export interface PostgresThreadOwnerOptions {
  /** A pool owned by the caller (not ended by `close()`). */
  pool?: QueryPool;
  /** A connection string for a role that can only read the checkpoint tables; `close()` ends its pool. */
  connectionString?: string;
  /** The schema `PostgresSaver` was set up in. @default "public" */
  schema?: string;
  /** The checkpoint-metadata key holding the thread's org id. @default "org_id" */
  orgMetadataKey?: string;
  /** The checkpoint namespace of the root graph, whose first checkpoint founds the thread. @default "" */
  checkpointNamespace?: string;
}

/** A {@link ThreadOwner} over LangGraph's Postgres tables. */
export interface PostgresThreadOwner extends ThreadOwner {
  /** Ends the pool if it was created from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

/** Defaults of {@link PostgresThreadOwnerOptions}. */
export const POSTGRES_THREAD_OWNER_DEFAULTS = {
  schema: "public",
  orgMetadataKey: "org_id",
  checkpointNamespace: "",
} as const;

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
  const pool = checkpointPool("createPostgresThreadOwner", options);
  const defaults = POSTGRES_THREAD_OWNER_DEFAULTS;
  const schema = options.schema ?? defaults.schema;
  if (!SQL_IDENTIFIER.test(schema)) {
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
