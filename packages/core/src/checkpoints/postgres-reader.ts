import { InvalidOptionError, type Message } from "@context-cleaner/assembler";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { Pool } from "pg";
import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { CheckpointReader } from "../ports";
import { LANGGRAPH_READER_DEFAULTS, LangGraphCheckpointReader } from "./langgraph-reader";

/** Options of {@link createPostgresCheckpointReader}: exactly one of `pool` or `connectionString`. */
export interface PostgresCheckpointReaderOptions {
  /** A `pg` pool owned by the caller (not ended by {@link PostgresCheckpointReader.close}). */
  pool?: Pool;
  /**
   * A connection string; the reader then owns its pool, opens its sessions with
   * `default_transaction_read_only=on`, and ends the pool on `close()`.
   */
  connectionString?: string;
  /**
   * The schema `PostgresSaver` was set up in.
   * @default "public"
   */
  schema?: string;
  /** @default "messages" */
  channel?: string;
  /** @default "" */
  checkpointNamespace?: string;
  /** With `connectionString`: the most connections the reader's own pool opens. @default pg's (10) */
  maxConnections?: number;
  /**
   * With `connectionString`: told when the server drops an idle connection of the reader's
   * own pool (the pool replaces it on the next read). @default ignored
   */
  onPoolError?: (error: Error) => void;
}

/** A {@link CheckpointReader} over LangGraph's `PostgresSaver` tables. */
export interface PostgresCheckpointReader extends CheckpointReader {
  /** Ends the pool if the reader created it from a connection string; otherwise a no-op. */
  close(): Promise<void>;
}

/** Defaults of {@link PostgresCheckpointReaderOptions}. */
export const POSTGRES_READER_DEFAULTS = { schema: "public", ...LANGGRAPH_READER_DEFAULTS } as const;

// ERR_MODULE_NOT_FOUND: an optional peer dependency is not installed.
function isModuleNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ERR_MODULE_NOT_FOUND";
}

async function importPeer<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error)) throw error;
    throw new CheckpointReadError(`the Postgres checkpoint reader needs ${name}: npm install ${name}`, {
      reason: CHECKPOINT_READ_REASONS.missingDependency,
      cause: error,
    });
  }
}

/**
 * A read-only reader of LangGraph checkpoints stored by `@langchain/langgraph-checkpoint-postgres`
 * (`new PostgresSaver(pool, undefined, { schema })`). It never calls `setup()`, `put`,
 * `putWrites` or `deleteThread`; the peer packages load on the first read, so importing
 * this module costs nothing.
 *
 * Log in as a role that can only read the checkpoint tables, so "never written" is
 * enforced by the database and not only by this code:
 *
 * ```sql
 * CREATE ROLE context_cleaner_reader LOGIN PASSWORD '…';
 * ALTER ROLE context_cleaner_reader SET default_transaction_read_only = on;
 * GRANT USAGE ON SCHEMA checkpoints TO context_cleaner_reader;
 * GRANT SELECT ON checkpoints.checkpoints, checkpoints.checkpoint_blobs,
 *   checkpoints.checkpoint_writes TO context_cleaner_reader;
 * ```
 *
 * @throws {InvalidOptionError} unless exactly one of `pool` and `connectionString` is given.
 * @example
 * const reader = createPostgresCheckpointReader({ connectionString: readerUrl, schema: "checkpoints" });
 * try {
 *   const messages = await reader.readThread(threadId);
 * } finally {
 *   await reader.close();
 * }
 */
export function createPostgresCheckpointReader(
  options: PostgresCheckpointReaderOptions,
): PostgresCheckpointReader {
  const { pool, connectionString } = options;
  if ((pool === undefined) === (connectionString === undefined)) {
    throw new InvalidOptionError(
      "createPostgresCheckpointReader needs exactly one of pool or connectionString",
      pool === undefined ? "connectionString" : "pool",
    );
  }
  const schema = options.schema ?? POSTGRES_READER_DEFAULTS.schema;
  let ownedPool: Pool | undefined;
  let reader: Promise<LangGraphCheckpointReader> | undefined;

  async function load(): Promise<LangGraphCheckpointReader> {
    const { PostgresSaver: Saver } = await importPeer(
      "@langchain/langgraph-checkpoint-postgres",
      () => import("@langchain/langgraph-checkpoint-postgres"),
    );
    let readerPool = pool;
    if (readerPool === undefined) {
      const { default: pg } = await importPeer("pg", () => import("pg"));
      ownedPool = new pg.Pool({
        connectionString,
        options: "-c default_transaction_read_only=on",
        ...(options.maxConnections !== undefined ? { max: options.maxConnections } : {}),
      });
      // Unhandled, the pool's error event (an idle connection the server dropped) would end the process.
      ownedPool.on("error", options.onPoolError ?? (() => undefined));
      readerPool = ownedPool;
    }
    const saver: PostgresSaver = new Saver(readerPool, undefined, { schema });
    return new LangGraphCheckpointReader({
      saver,
      channel: options.channel,
      checkpointNamespace: options.checkpointNamespace,
    });
  }

  return {
    async readThread(threadId: string): Promise<Message[] | null> {
      reader ??= load().catch((error: unknown) => {
        reader = undefined;
        throw error;
      });
      return (await reader).readThread(threadId);
    },
    async close(): Promise<void> {
      const owned = ownedPool;
      ownedPool = undefined;
      reader = undefined;
      await owned?.end();
    },
  };
}
