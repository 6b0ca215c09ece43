import type { Database } from "@context-cleaner/db";
import type { ServerDatabaseDriver } from "@context-cleaner/db/server";
import { UsageError } from "../../errors";
import type { Clock, ThreadDirectory, ThreadOwner } from "../../ports";
import { parsePositiveInteger } from "../../positive-integer";
import type { DigestQueue } from "../../queue/digest-queue";
import type { MessageTableConfig } from "../../worker/message-table-config";
import type { CliIo } from "../cli-io";
import type { OpenWorker } from "./worker-host";

/** Where the checkpoint store keeps threads: LangGraph's tables, or the app's message table. */
export interface CheckpointTables {
  url: string;
  schema?: string;
  orgMetadataKey?: string;
  messageTable?: MessageTableConfig;
}

/**
 * What the operations commands reach: the database, the queue and the checkpoint store,
 * opened by the command line from flags and the environment, or handed in by tests.
 */
export interface OpsContext {
  io: CliIo;
  clock: Clock;
  /** @default options.driver: `CONTEXT_CLEANER_DB_DRIVER`, else the URL's */
  openDatabase(url: string, options?: { driver?: ServerDatabaseDriver }): Promise<Database>;
  openQueue(urls: {
    queueUrl?: string;
    dlqUrl?: string;
    endpoint?: string;
    region?: string;
  }): Promise<DigestQueue>;
  /** With `messageTable`, the app's message table (its org and updated-at columns) is listed. */
  openDirectory(options: CheckpointTables): Promise<ThreadDirectory & { close(): Promise<void> }>;
  /**
   * `sweep`: threads' owners on the checkpoint tables, or on the message table's org column.
   * @default a pool on `url`
   */
  openThreadOwner?(options: CheckpointTables): Promise<ThreadOwner & { close(): Promise<void> }>;
  /** `worker`: what it opens. @default SQS and the databases of its settings */
  openWorker?: OpenWorker;
  /** `worker`: when it stops. @default at the process's first SIGTERM or SIGINT */
  shutdown?: () => AbortSignal;
}

/** The command line's context: real connections, from the process environment. */
export function defaultOpsContext(io: CliIo): OpsContext {
  return {
    io,
    clock: { now: () => new Date() },
    async openDatabase(url, options = {}) {
      // The driver the functions would use: CONTEXT_CLEANER_DB_DRIVER, else the URL's.
      const { databaseDriverFromEnvironment } = await import("../../worker/function-database");
      const driver = options.driver ?? databaseDriverFromEnvironment(io.environment);
      return (await import("@context-cleaner/db")).createDatabase(url, driver ? { driver } : {});
    },
    async openQueue({ queueUrl, dlqUrl, endpoint, region }) {
      // Listing dead letters needs only their queue; nothing is sent to the other URL then.
      const url = queueUrl ?? dlqUrl;
      if (url === undefined) {
        throw new UsageError("the digest queue URL is needed: --queue-url or DIGEST_QUEUE_URL");
      }
      const [{ SQSClient }, { createSqsDigestQueue }] = await Promise.all([
        import("@aws-sdk/client-sqs"),
        import("../../queue/sqs-queue"),
      ]);
      return createSqsDigestQueue({
        client: new SQSClient({ ...(endpoint ? { endpoint } : {}), ...(region ? { region } : {}) }),
        queueUrl: url,
        ...(dlqUrl ? { dlqUrl } : {}),
      });
    },
    async openThreadOwner({ url, schema, orgMetadataKey, messageTable }) {
      if (messageTable) {
        const reader = await openMessageTable(url, messageTable);
        const owner = reader.threadOwner;
        if (owner === undefined) {
          await reader.close();
          throw new UsageError("the message table names no org column (CHECKPOINT_ORG_ID_COLUMN)");
        }
        return { ownerOf: (id) => owner.ownerOf(id), close: () => reader.close() };
      }
      const { createPostgresThreadOwner } = await import("../../checkpoints/postgres-thread-owner");
      return createPostgresThreadOwner({
        connectionString: url,
        ...(schema ? { schema } : {}),
        ...(orgMetadataKey ? { orgMetadataKey } : {}),
      });
    },
    async openDirectory({ url, schema, orgMetadataKey, messageTable }) {
      if (messageTable) {
        const reader = await openMessageTable(url, messageTable);
        const directory = reader.directory;
        if (directory === undefined) {
          await reader.close();
          throw new UsageError(
            "the message table names no org or updated-at column (CHECKPOINT_ORG_ID_COLUMN, CHECKPOINT_UPDATED_AT_COLUMN)",
          );
        }
        return {
          listActiveThreads: (query) => directory.listActiveThreads(query),
          close: () => reader.close(),
        };
      }
      const { createPostgresThreadDirectory } = await import("../../checkpoints/postgres-thread-directory");
      return createPostgresThreadDirectory({
        connectionString: url,
        ...(schema ? { schema } : {}),
        ...(orgMetadataKey ? { orgMetadataKey } : {}),
      });
    },
  };
}

/** A reader of the app's message table on the checkpoint store, its pool opened on first use. */
async function openMessageTable(url: string, messageTable: MessageTableConfig) {
  const { createMessageTableReader } = await import("../../checkpoints/message-table");
  return createMessageTableReader({ connectionString: url, ...messageTable });
}

/** The database URL of an operation: `--database`, else `DATABASE_URL`. */
export function databaseUrlOf(flag: string | undefined, io: CliIo): string {
  const url = flag ?? io.environment.DATABASE_URL;
  if (!url) throw new UsageError("a database is needed: --database <url> or DATABASE_URL");
  return url;
}

/** A required flag's value. */
export function required(value: string | undefined, flag: string, command: string): string {
  if (value === undefined || value === "") throw new UsageError(`${command} needs --${flag}`);
  return value;
}

/** A positive integer flag's value, in decimal digits as its environment variable takes it. */
export function positiveInteger(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const count = parsePositiveInteger(value);
  if (count === undefined)
    throw new UsageError(`--${flag} must be a positive integer, got ${JSON.stringify(value)}`);
  return count;
}

/** Runs `work` on the database at `url`, closing it after. */
export async function withDatabase<T>(
  context: OpsContext,
  url: string,
  work: (database: Database) => Promise<T>,
): Promise<T> {
  const database = await context.openDatabase(url);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
