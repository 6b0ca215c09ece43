import { InvalidOptionError } from "@context-cleaner/assembler";

/**
 * The one call the checkpoint-table readers make on a pool: a parameterised query. A `pg`
 * `Pool` and a `@neondatabase/serverless` `Pool` both satisfy it.
 */
export interface QueryPool {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A caller's pool, or a read-only `pg` pool opened on first use from a connection string. */
export interface CheckpointPool {
  pool(): Promise<QueryPool>;
  /** Ends the pool if it was opened here; a caller's pool is left open. */
  close(): Promise<void>;
}

/** A plain SQL identifier (a schema name), safe to quote into a statement. */
export const SQL_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * The pool of a checkpoint-table reader: exactly one of `pool` (owned by the caller) or
 * `connectionString` (a `pg` pool of at most `max` read-only sessions, opened on first use,
 * whose idle-connection errors are ignored: the pool replaces the connection next query).
 * @throws {InvalidOptionError} unless exactly one of the two is given.
 */
export function checkpointPool(
  factory: string,
  options: { pool?: QueryPool; connectionString?: string },
  max = 2,
): CheckpointPool {
  const { pool, connectionString } = options;
  if ((pool === undefined) === (connectionString === undefined)) {
    throw new InvalidOptionError(
      `${factory} needs exactly one of pool or connectionString`,
      pool === undefined ? "connectionString" : "pool",
    );
  }
  let owned: Promise<QueryPool & { end(): Promise<void> }> | undefined;
  return {
    async pool() {
      if (pool !== undefined) return pool;
      owned ??= import("pg").then(
        ({ default: pg }) => {
          const created = new pg.Pool({
            connectionString,
            options: "-c default_transaction_read_only=on",
            max,
          });
          // Unhandled, the pool's error event (an idle connection the server dropped) would end the process.
          created.on("error", () => undefined);
          return created;
        },
        (error: unknown) => {
          owned = undefined;
          throw error;
        },
      );
      return owned;
    },
    async close() {
      const current = owned;
      owned = undefined;
      if (current) await (await current).end();
    },
  };
}

/** What every reader of LangGraph's checkpoint tables is given: its pool, and where and how to read. */
export interface CheckpointTableOptions {
  /** A pool owned by the caller (not ended by `close()`). */
  pool?: QueryPool;
  /**
   * A connection string, meant for a role that can only read the checkpoint tables; the
   * reader then owns a `pg` pool whose sessions are read-only, ended by `close()`.
   */
  connectionString?: string;
  /** The schema `PostgresSaver` was set up in. @default "public" */
  schema?: string;
  /**
   * The checkpoint-metadata key holding the thread's org id. LangGraph's Python runtime
   * copies `configurable` keys into checkpoint metadata; a JS runtime stamps it (see
   * docs/architecture.md#the-nightly-sweep). @default "org_id"
   */
  orgMetadataKey?: string;
  /** The checkpoint namespace of the root graph. @default "" */
  checkpointNamespace?: string;
}

/** Defaults of {@link CheckpointTableOptions}. */
export const CHECKPOINT_TABLE_DEFAULTS = {
  schema: "public",
  orgMetadataKey: "org_id",
  checkpointNamespace: "",
} as const;

/**
 * The settings of a checkpoint-table reader, checked once: its pool, a schema safe to quote,
 * a non-empty metadata key and the root namespace.
 * @throws {InvalidOptionError} unless exactly one of `pool` and `connectionString` is given,
 *   or for a schema that is not a plain identifier or an empty metadata key.
 */
export function checkpointTableSettings(factory: string, options: CheckpointTableOptions) {
  const pool = checkpointPool(factory, options);
  const schema = options.schema ?? CHECKPOINT_TABLE_DEFAULTS.schema;
  if (!SQL_IDENTIFIER.test(schema)) {
    throw new InvalidOptionError(
      `schema: must be a plain identifier, got ${JSON.stringify(schema)}`,
      "schema",
    );
  }
  const orgMetadataKey = options.orgMetadataKey ?? CHECKPOINT_TABLE_DEFAULTS.orgMetadataKey;
  if (orgMetadataKey.length === 0) {
    throw new InvalidOptionError("orgMetadataKey: must be non-empty", "orgMetadataKey");
  }
  const namespace = options.checkpointNamespace ?? CHECKPOINT_TABLE_DEFAULTS.checkpointNamespace;
  return { pool, schema, orgMetadataKey, namespace };
}
