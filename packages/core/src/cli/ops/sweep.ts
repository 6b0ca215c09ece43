import { parseArgs } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import { createTableThreadOwner } from "../../checkpoints/postgres-thread-owner";
import { UsageError } from "../../errors";
import type { ThreadDirectory, ThreadOwner } from "../../ports";
import { runSweep, SWEEP_DEFAULTS, type SweepOptions, type SweepReport } from "../../sweep/run-sweep";
import {
  checkedMessageTableFromEnvironment,
  type MessageTableConfig,
} from "../../worker/message-table-config";
import { sweepOptionsFromEnvironment } from "../../worker/sweep-settings";
import { databaseUrlOf, type OpsContext, positiveInteger, withDatabase } from "./ops-context";

function render(report: SweepReport): string {
  const verb = report.dryRun ? "would enqueue" : "enqueued";
  const lines = [
    `sweep ${verb} ${report.threads.length - report.failed} thread${report.threads.length === 1 ? "" : "s"}${report.truncated ? " (stopped at its bound; more remain)" : ""}`,
  ];
  for (const [reason, count] of Object.entries(report.byReason)) lines.push(`  ${reason}: ${count}`);
  if (report.givenUp > 0)
    lines.push(`  given up (left behind too many nights; back at a new turn): ${report.givenUp}`);
  if (report.unreadableActivity > 0)
    lines.push(
      `  passed over: ${report.unreadableActivity} record${report.unreadableActivity === 1 ? "" : "s"} of the thread directory whose activity time is not a date-time`,
    );
  for (const thread of report.threads) {
    lines.push(
      `  ${thread.orgId}/${thread.threadId}  ${thread.reason}  turn ${thread.turnEndedAt}${thread.error ? `  FAILED: ${thread.error}` : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

const OWNER_SOURCES = ["checkpoint", "table"] as const;

/**
 * `context-cleaner sweep [--dry-run]`: the nightly sweep function's twin, on the same
 * settings: what it enqueues (threads left behind, and with `--checkpoints` threads whose
 * event was lost), sent to the digest queue unless `--dry-run`, each thread under its
 * owner's org (the owner read as the function reads it: `checkpoint`, from the checkpoint
 * tables when they are given, or `table`). Database from `--database`/`DATABASE_URL`
 * (driver: `CONTEXT_CLEANER_DB_DRIVER`, else by URL), checkpoint store from
 * `--checkpoints`/`CHECKPOINT_DATABASE_URL`, owner from `--thread-owner`/`THREAD_OWNER_SOURCE`,
 * queue from `--queue-url`/`DIGEST_QUEUE_URL` at `--endpoint`/`AWS_ENDPOINT_URL_SQS`; the app's
 * message table from `CHECKPOINT_MESSAGE_TABLE` and its `CHECKPOINT_*_COLUMN` settings, checked
 * before anything opens. `--max-threads`/`SWEEP_MAX_THREADS` and
 * `--give-up-after-nights`/`SWEEP_GIVE_UP_AFTER_NIGHTS` override the run's bound and how long
 * a thread left behind is retried.
 */
export async function sweepCommand(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      "dry-run": { type: "boolean" },
      database: { type: "string" },
      checkpoints: { type: "string" },
      "checkpoint-schema": { type: "string" },
      "org-key": { type: "string" },
      "queue-url": { type: "string" },
      "thread-owner": { type: "string" },
      endpoint: { type: "string" },
      region: { type: "string" },
      "max-threads": { type: "string" },
      "give-up-after-nights": { type: "string" },
      json: { type: "boolean" },
    },
  });
  const { io } = context;
  const dryRun = values["dry-run"] ?? false;
  const checkpointsUrl = values.checkpoints ?? io.environment.CHECKPOINT_DATABASE_URL;
  const queueUrl = values["queue-url"] ?? io.environment.DIGEST_QUEUE_URL;
  let fromEnvironment: SweepOptions;
  try {
    fromEnvironment = sweepOptionsFromEnvironment(io.environment);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const maxThreads = positiveInteger(
    values["max-threads"],
    "max-threads",
    fromEnvironment.maxThreads ?? SWEEP_DEFAULTS.maxThreads,
  );
  const giveUpAfterNights = positiveInteger(
    values["give-up-after-nights"],
    "give-up-after-nights",
    fromEnvironment.giveUpAfterNights ?? SWEEP_DEFAULTS.giveUpAfterNights,
  );
  const ownerValue = values["thread-owner"] ?? (io.environment.THREAD_OWNER_SOURCE || undefined);
  const ownerSource = OWNER_SOURCES.find((source) => source === (ownerValue ?? "checkpoint"));
  if (ownerSource === undefined) {
    throw new UsageError(
      `--thread-owner (or THREAD_OWNER_SOURCE) must be one of ${OWNER_SOURCES.join(", ")}, got ${JSON.stringify(ownerValue)}`,
    );
  }
  let messageTable: MessageTableConfig | undefined;
  try {
    messageTable = checkedMessageTableFromEnvironment(io.environment);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const databaseUrl = databaseUrlOf(values.database, io);
  const endpoint = values.endpoint ?? (io.environment.AWS_ENDPOINT_URL_SQS || undefined);
  const region = values.region ?? (io.environment.AWS_REGION || undefined);
  const queue = dryRun
    ? undefined
    : await context.openQueue({
        ...(queueUrl ? { queueUrl } : {}),
        ...(endpoint ? { endpoint } : {}),
        ...(region ? { region } : {}),
      });
  let directory: (ThreadDirectory & { close(): Promise<void> }) | undefined;
  let checkpointOwner: (ThreadOwner & { close(): Promise<void> }) | undefined;
  try {
    if (checkpointsUrl) {
      const schema = values["checkpoint-schema"] ?? io.environment.CHECKPOINT_SCHEMA;
      const orgMetadataKey = values["org-key"] ?? io.environment.CHECKPOINT_ORG_METADATA_KEY;
      const tables = messageTable
        ? { url: checkpointsUrl, messageTable }
        : {
            url: checkpointsUrl,
            ...(schema ? { schema } : {}),
            ...(orgMetadataKey ? { orgMetadataKey } : {}),
          };
      // As the function: a message table lists threads by its org and updated-at columns, and names owners by its org column.
      if (!messageTable || (messageTable.orgIdColumn && messageTable.updatedAtColumn)) {
        directory = await context.openDirectory(tables);
      } else {
        io.stderr(
          "context-cleaner: the message table names no org or updated-at column: threads whose event was lost are not looked for\n",
        );
      }
      if (
        ownerSource === "checkpoint" &&
        context.openThreadOwner &&
        (!messageTable || messageTable.orgIdColumn)
      ) {
        checkpointOwner = await context.openThreadOwner(tables);
      }
    }
    const report = await withDatabase(context, databaseUrl, (database) => {
      const store = createDigestRepository(database);
      const threadOwner = ownerSource === "table" ? createTableThreadOwner(store) : checkpointOwner;
      return runSweep(
        {
          store,
          clock: context.clock,
          ...(queue ? { queue } : {}),
          ...(directory ? { directory } : {}),
          ...(threadOwner ? { threadOwner } : {}),
        },
        { dryRun, maxThreads, giveUpAfterNights },
      );
    });
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  } finally {
    await directory?.close();
    await checkpointOwner?.close();
  }
}
