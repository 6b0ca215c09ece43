import type { SQSClient } from "@aws-sdk/client-sqs";
import { InvalidOptionError } from "@context-cleaner/assembler";
import { createDigestRepository } from "@context-cleaner/db/server";
import {
  createMessageTableReader,
  createPostgresThreadOwner,
  createTableThreadOwner,
  type ThreadOwner,
} from "../checkpoints/postgres-thread-directory";
import {
  type CheckpointReader,
  type DigestJobOptions,
  NO_TURN_LOCK,
  systemClock,
  type TurnLock,
} from "../index";
import type { ClosableTurnLock } from "../lock/redis-turn-lock";
import { createUpstashTurnLock } from "../lock/upstash-turn-lock";
import { createSqsDigestQueue } from "../queue/sqs-queue";
import type { DigestHandlerDependencies } from "./digest-handler";
import { type DigesterConfig, digesterFor } from "./digest-model";
import { type FunctionDatabaseConfig, openFunctionDatabase } from "./function-database";
import type { MessageTableConfig } from "./message-table-config";
import { describeError, type FunctionLogger, type FunctionMetrics } from "./observability";
import type { ThreadOwnerSource } from "./thread-owner-source";

/** Defaults of {@link DigestConfig}. */
export const DIGEST_CONFIG_DEFAULTS = {
  /** The turn-lock peek gives up after this long and the job proceeds (safety never depends on it). */
  lockTimeoutMs: 1_000,
  /** The schema LangGraph's `PostgresSaver` writes its tables in. */
  checkpointSchema: "public",
  /** Where a thread's owner is read: the org on its first checkpoint's metadata. */
  threadOwner: "checkpoint",
} as const;

/** Everything the digest function is configured with, as values: the edge reads them. */
export interface DigestConfig extends FunctionDatabaseConfig, Omit<DigesterConfig, "metrics"> {
  /** The checkpoint store, logged in as a role that can only SELECT its tables. */
  checkpointDatabaseUrl: string;
  /** @default "public" */
  checkpointSchema?: string;
  /**
   * The app's own table of message histories, read instead of LangGraph's tables (through
   * `checkpointDatabaseUrl`); the `checkpoint` owner is then its org column.
   */
  messageTable?: MessageTableConfig;
  /** @default "checkpoint" */
  threadOwner?: ThreadOwnerSource;
  /** With the `checkpoint` owner: the metadata key holding the org. @default "org_id" */
  orgMetadataKey?: string;
  /** Upstash Redis REST endpoint and token, for the turn-lock peek; never with `redisUrl`. */
  redis?: { url: string; token: string };
  /**
   * The Redis the runtime's turn lock is in, over the Redis protocol (`redis://`,
   * `rediss://`), peeked through node-redis (`redis`, loaded only then); never with `redis`.
   * Without either, no turn-lock peek.
   */
  redisUrl?: string;
  /** @default 1000 */
  lockTimeoutMs?: number;
  /** The digest queue, for handing records back. */
  queueUrl: string;
  /**
   * Its dead-letter queue, where poison records are sent with their reason; without it, a
   * poison record is logged, counted and dropped.
   */
  deadLetterQueueUrl?: string;
  sqs: Pick<SQSClient, "send">;
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  /** The kill switch, read per record. */
  disabled: () => boolean;
  jobOptions?: Partial<DigestJobOptions>;
}

/** A checkpoint reader that can release its connections. */
export interface ClosableCheckpointReader extends CheckpointReader {
  close(): Promise<void>;
}

/**
 * A checkpoint reader that loads LangGraph's Postgres reader (and with it LangChain) on
 * its first read, so the function starts without them and jobs that stop at a gate never
 * load them. Its pool opens read-only sessions, and an idle connection the server drops
 * is logged instead of crashing the process.
 */
export function lazyPostgresCheckpointReader(
  connectionString: string,
  schema: string,
  logger: Pick<FunctionLogger, "warn">,
): ClosableCheckpointReader {
  let loaded: Promise<ClosableCheckpointReader> | undefined;
  const load = async () => {
    const { createPostgresCheckpointReader } = await import("../checkpoints/langgraph");
    return createPostgresCheckpointReader({
      connectionString,
      schema,
      maxConnections: 2,
      onPoolError: (error) => logger.warn("checkpoint store connection dropped", describeError(error)),
    });
  };
  return {
    async readThread(threadId) {
      loaded ??= load().catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      return (await loaded).readThread(threadId);
    },
    async close() {
      const current = loaded;
      loaded = undefined;
      if (current) await (await current).close();
    },
  };
}

/**
 * The turn-lock peek the configuration names: over Upstash's REST API, or over the Redis
 * protocol through node-redis (its connection closed by `close`), each peek cut off after
 * the lock timeout; failures are logged. Each client loads here, so a function configured
 * without Redis runs without it.
 *
 * @throws {InvalidOptionError} when both `redis` and `redisUrl` are given.
 */
async function turnLockOf(config: DigestConfig): Promise<TurnLock | ClosableTurnLock> {
  const timeoutMs = config.lockTimeoutMs ?? DIGEST_CONFIG_DEFAULTS.lockTimeoutMs;
  const onError = (error: unknown, thread: { orgId: string; threadId: string }) =>
    config.logger.warn("turn-lock peek failed: the job proceeds", { ...thread, ...describeError(error) });
  if (config.redis && config.redisUrl) {
    throw new InvalidOptionError(
      "the turn-lock peek reads one Redis: give redis (Upstash) or redisUrl, not both",
      "redisUrl",
    );
  }
  if (config.redisUrl) {
    const { openRedisTurnLock } = await import("../lock/redis-turn-lock");
    return openRedisTurnLock(config.redisUrl, { timeoutMs, onError });
  }
  if (!config.redis) return NO_TURN_LOCK;
  const { Redis } = await import("@upstash/redis");
  const client = new Redis({
    url: config.redis.url,
    token: config.redis.token,
    enableTelemetry: false,
    retry: { retries: 1, backoff: () => 50 },
    signal: () => AbortSignal.timeout(timeoutMs),
  });
  return createUpstashTurnLock(client, { onError });
}

/**
 * Where the digest function reads threads and, with the `checkpoint` owner source, their
 * owners: LangGraph's tables, or the app's message table and its org column.
 * @throws {InvalidOptionError} for a message table whose names are not plain identifiers.
 * @throws {Error} for a message table without an org column under the `checkpoint` owner.
 */
function checkpointSources(
  config: DigestConfig,
  ownerSource: ThreadOwnerSource,
): { checkpoints: ClosableCheckpointReader; checkpointOwner?: ThreadOwner & { close(): Promise<void> } } {
  if (config.messageTable) {
    const reader = createMessageTableReader({
      connectionString: config.checkpointDatabaseUrl,
      ...config.messageTable,
    });
    if (ownerSource !== "checkpoint") return { checkpoints: reader };
    const owner = reader.threadOwner;
    if (owner === undefined) {
      throw new Error(
        "the message table names no org column (CHECKPOINT_ORG_ID_COLUMN): name it, or read owners from the owner table (THREAD_OWNER_SOURCE=table)",
      );
    }
    // The owner shares the reader's pool: closing the reader closes both.
    return {
      checkpoints: reader,
      checkpointOwner: { ownerOf: (id) => owner.ownerOf(id), close: async () => {} },
    };
  }
  const checkpointSchema = config.checkpointSchema ?? DIGEST_CONFIG_DEFAULTS.checkpointSchema;
  const checkpoints = lazyPostgresCheckpointReader(
    config.checkpointDatabaseUrl,
    checkpointSchema,
    config.logger,
  );
  if (ownerSource !== "checkpoint") return { checkpoints };
  const checkpointOwner = createPostgresThreadOwner({
    connectionString: config.checkpointDatabaseUrl,
    schema: checkpointSchema,
    ...(config.orgMetadataKey ? { orgMetadataKey: config.orgMetadataKey } : {}),
  });
  return { checkpoints, checkpointOwner };
}

/**
 * The digest handler's dependencies from configuration values: the application database
 * (Neon or any Postgres, checked reachable once, here) and its repository, the thread's
 * owner (every job's org is checked against it), the checkpoint reader (LangGraph's, loaded
 * on first read, or the app's message table), the turn-lock peek (Upstash's REST API or the Redis protocol), the digester with its fallback, and the SQS queue the
 * records come from with its dead letters; `close()` releases the connections.
 *
 * @throws {DatabaseConnectionError} when the database cannot be reached.
 */
export async function createDigestDependencies(
  config: DigestConfig,
): Promise<DigestHandlerDependencies & { close(): Promise<void> }> {
  // Built first: a digester that cannot be configured fails the function before any connection opens.
  const digester = await digesterFor(config);
  const lock = await turnLockOf(config);
  const ownerSource = config.threadOwner ?? DIGEST_CONFIG_DEFAULTS.threadOwner;
  let database: Awaited<ReturnType<typeof openFunctionDatabase>>;
  let sources: ReturnType<typeof checkpointSources>;
  try {
    // Checked before the database opens; their pools open on first use.
    sources = checkpointSources(config, ownerSource);
    database = await openFunctionDatabase(config);
  } catch (error) {
    if ("close" in lock) await lock.close();
    throw error;
  }
  const { checkpoints, checkpointOwner } = sources;
  const store = createDigestRepository(database);
  return {
    ports: {
      checkpoints,
      store,
      threadOwner: checkpointOwner ?? createTableThreadOwner(store),
      digester,
      clock: systemClock,
      lock,
    },
    queue: createSqsDigestQueue({
      client: config.sqs,
      queueUrl: config.queueUrl,
      ...(config.deadLetterQueueUrl ? { dlqUrl: config.deadLetterQueueUrl } : {}),
    }),
    logger: config.logger,
    metrics: config.metrics,
    disabled: config.disabled,
    ...(config.jobOptions ? { jobOptions: config.jobOptions } : {}),
    // Lambda never calls it (connections live as long as the container); embedded runs and tests do.
    async close() {
      await checkpoints.close();
      await checkpointOwner?.close();
      await database.close();
      if ("close" in lock) await lock.close();
    },
  };
}
