import type { SQSClient } from "@aws-sdk/client-sqs";
import { systemClock } from "@context-cleaner/core";
import { createSqsDigestQueue } from "@context-cleaner/core/sqs";
import type { SweepOptions } from "@context-cleaner/core/sweep";
import { createPostgresThreadDirectory } from "@context-cleaner/core/thread-directory";
import { createDigestRepository } from "@context-cleaner/db/server";
import { type FunctionDatabaseConfig, openFunctionDatabase } from "./function-database";
import type { FunctionLogger, FunctionMetrics } from "./observability";
import type { SweepHandlerDependencies } from "./sweep-handler";

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
  queueUrl: string;
  sqs: Pick<SQSClient, "send">;
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  options?: SweepOptions;
}

/**
 * The sweep handler's dependencies from configuration values: the application database's
 * repository (Neon or any Postgres, checked reachable once), the thread directory over the
 * checkpoint tables, and the SQS digest queue; `close()` releases the connections.
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
  return {
    ports: {
      store: createDigestRepository(database),
      queue: createSqsDigestQueue({ client: config.sqs, queueUrl: config.queueUrl }),
      ...(directory ? { directory } : {}),
      clock: systemClock,
    },
    logger: config.logger,
    metrics: config.metrics,
    ...(config.options ? { options: config.options } : {}),
    // Lambda never calls it; embedded runs and tests do.
    async close() {
      await directory?.close();
      await database.close();
    },
  };
}
