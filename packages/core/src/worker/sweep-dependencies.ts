import type { SQSClient } from "@aws-sdk/client-sqs";
import { createDigestRepository } from "@context-cleaner/db/server";
import {
  createPostgresThreadDirectory,
  createPostgresThreadOwner,
  createTableThreadOwner,
} from "../checkpoints/postgres-thread-directory";
import { systemClock } from "../index";
import { createSqsDigestQueue } from "../queue/sqs-queue";
import type { SweepOptions } from "../sweep/index";
import { type FunctionDatabaseConfig, openFunctionDatabase } from "./function-database";
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
  const database = await openFunctionDatabase(config);
  const directory = config.checkpointDatabaseUrl
    ? createPostgresThreadDirectory({
        connectionString: config.checkpointDatabaseUrl,
        ...(config.checkpointSchema ? { schema: config.checkpointSchema } : {}),
        ...(config.orgMetadataKey ? { orgMetadataKey: config.orgMetadataKey } : {}),
      })
    : undefined;
  const store = createDigestRepository(database);
  const checkpointOwner =
    (config.threadOwner ?? "checkpoint") === "checkpoint" && config.checkpointDatabaseUrl
      ? createPostgresThreadOwner({
          connectionString: config.checkpointDatabaseUrl,
          ...(config.checkpointSchema ? { schema: config.checkpointSchema } : {}),
          ...(config.orgMetadataKey ? { orgMetadataKey: config.orgMetadataKey } : {}),
        })
      : undefined;
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
      await directory?.close();
      await checkpointOwner?.close();
      await database.close();
    },
  };
}
