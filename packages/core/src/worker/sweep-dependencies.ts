import type { SQSClient } from "@aws-sdk/client-sqs";
import { createDigestRepository } from "@context-cleaner/db/server";
import {
  createMessageTableReader,
  createPostgresThreadDirectory,
  createPostgresThreadOwner,
  createTableThreadOwner,
  type ThreadOwner,
} from "../checkpoints/postgres-thread-directory";
import { systemClock, type ThreadDirectory } from "../index";
import { createSqsDigestQueue } from "../queue/sqs-queue";
import type { SweepOptions } from "../sweep/index";
import { type FunctionDatabaseConfig, openFunctionDatabase } from "./function-database";
import type { MessageTableConfig } from "./message-table-config";
import type { FunctionLogger, FunctionMetrics } from "./observability";
import type { SweepHandlerDependencies } from "./sweep-handler";
import type { ThreadOwnerSource } from "./thread-owner-source";

/**
 * Everything the sweep function is configured with, as values: the edge reads them. The
 * sweep reads the application database as `app_sweeper`.
 */
export interface SweepConfig extends FunctionDatabaseConfig {
  /** The checkpoint store (a SELECT-only role); without it, lost events are not looked for. */
  checkpointDatabaseUrl?: string;
  /** @default "public" */
  checkpointSchema?: string;
  /**
   * The app's own table of message histories instead of LangGraph's tables: its org and
   * updated-at columns list the active threads, and its org column names their owners.
   */
  messageTable?: MessageTableConfig;
  /** @default "org_id" */
  orgMetadataKey?: string;
  /**
   * Where each thread's owner is read, as the digest function reads it: the sweep enqueues
   * threads under their owner's org and passes over the others. `checkpoint` needs the
   * checkpoint store (without it, no owner check). @default "checkpoint"
   */
  threadOwner?: ThreadOwnerSource;
  queueUrl: string;
  sqs: Pick<SQSClient, "send">;
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  options?: SweepOptions;
}

/**
 * The sweep's directory and, with the `checkpoint` owner source, the threads' owners: over
 * LangGraph's tables, or the app's message table (no directory without its org and
 * updated-at columns; no owner check without its org column). None without a checkpoint store.
 */
function checkpointSources(config: SweepConfig): {
  directory?: ThreadDirectory;
  checkpointOwner?: ThreadOwner;
  close(): Promise<void>;
} {
  const url = config.checkpointDatabaseUrl;
  const ownerFromCheckpoint = (config.threadOwner ?? "checkpoint") === "checkpoint";
  if (url === undefined) return { close: async () => {} };
  if (config.messageTable) {
    const reader = createMessageTableReader({ connectionString: url, ...config.messageTable });
    return {
      ...(reader.directory ? { directory: reader.directory } : {}),
      ...(ownerFromCheckpoint && reader.threadOwner ? { checkpointOwner: reader.threadOwner } : {}),
      close: () => reader.close(),
    };
  }
  const tables = {
    connectionString: url,
    ...(config.checkpointSchema ? { schema: config.checkpointSchema } : {}),
    ...(config.orgMetadataKey ? { orgMetadataKey: config.orgMetadataKey } : {}),
  };
  const directory = createPostgresThreadDirectory(tables);
  const checkpointOwner = ownerFromCheckpoint ? createPostgresThreadOwner(tables) : undefined;
  return {
    directory,
    ...(checkpointOwner ? { checkpointOwner } : {}),
    async close() {
      await directory.close();
      await checkpointOwner?.close();
    },
  };
}

/**
 * The sweep handler's dependencies from configuration values: the application database's
 * repository (Neon or any Postgres, checked reachable once), the thread directory and the
 * threads' owners over the checkpoint tables (or the owner table), and the SQS digest
 * queue; `close()` releases the connections.
 *
 * @throws {DatabaseConnectionError} when the database cannot be reached.
 */
export async function createSweepDependencies(
  config: SweepConfig,
): Promise<SweepHandlerDependencies & { close(): Promise<void> }> {
  // Checked before the database opens; their pools open on first use.
  const { directory, checkpointOwner, close } = checkpointSources(config);
  const database = await openFunctionDatabase(config);
  const store = createDigestRepository(database);
  const threadOwner = config.threadOwner === "table" ? createTableThreadOwner(store) : checkpointOwner;
  return {
    ports: {
      store,
      queue: createSqsDigestQueue({ client: config.sqs, queueUrl: config.queueUrl }),
      ...(directory ? { directory } : {}),
      ...(threadOwner ? { threadOwner } : {}),
      clock: systemClock,
    },
    logger: config.logger,
    metrics: config.metrics,
    ...(config.options ? { options: config.options } : {}),
    // Lambda never calls it; embedded runs and tests do.
    async close() {
      await close();
      await database.close();
    },
  };
}
