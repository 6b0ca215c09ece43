import { createDigestRepository } from "@context-cleaner/db";
import { createTableThreadOwner } from "../../checkpoints/postgres-thread-owner";
import type { ThreadDirectory, ThreadOwner } from "../../ports";
import { runSweep, type SweepReport } from "../../sweep/run-sweep";
import { settingsUsage } from "../../worker/settings";
import { type OpsContext, withDatabase } from "./ops-context";
import { parseSweepSettings, type SweepSettings } from "./worker-settings";

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

/** The directory and the checkpoint owner the settings give, opened as the function opens them. */
async function openCheckpointSources(
  settings: SweepSettings,
  context: OpsContext,
): Promise<{
  directory?: ThreadDirectory & { close(): Promise<void> };
  checkpointOwner?: ThreadOwner & { close(): Promise<void> };
}> {
  const url = settings.checkpointDatabaseUrl;
  if (url === undefined) return {};
  const { messageTable } = settings;
  const tables = messageTable
    ? { url, messageTable }
    : {
        url,
        ...(settings.checkpointSchema ? { schema: settings.checkpointSchema } : {}),
        ...(settings.orgMetadataKey ? { orgMetadataKey: settings.orgMetadataKey } : {}),
      };
  let directory: (ThreadDirectory & { close(): Promise<void> }) | undefined;
  // As the function: a message table lists threads by its org and updated-at columns, and names owners by its org column.
  if (!messageTable || (messageTable.orgIdColumn && messageTable.updatedAtColumn)) {
    directory = await context.openDirectory(tables);
  } else {
    context.io.stderr(
      "context-cleaner: the message table names no org or updated-at column: threads whose event was lost are not looked for\n",
    );
  }
  const ownerFromCheckpoint = (settings.threadOwner ?? "checkpoint") === "checkpoint";
  if (!ownerFromCheckpoint || !context.openThreadOwner || (messageTable && !messageTable.orgIdColumn))
    return directory ? { directory } : {};
  try {
    return { ...(directory ? { directory } : {}), checkpointOwner: await context.openThreadOwner(tables) };
  } catch (error) {
    await directory?.close();
    throw error;
  }
}

/**
 * `context-cleaner sweep [--dry-run]`: the nightly sweep function's twin, on the same
 * settings, read by the same reader (the settings table):
 * what it enqueues (threads left behind, and with a checkpoint store threads whose event
 * was lost), sent to the digest queue unless `--dry-run`, each thread under its owner's org
 * (the owner read as the function reads it: `checkpoint`, from the checkpoint tables when
 * they are given, or `table`). Every setting is checked before anything opens.
 */
export async function sweepCommand(args: string[], context: OpsContext): Promise<void> {
  const { io } = context;
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    io.stdout(`${SWEEP_USAGE}\n`);
    return;
  }
  const { settings, dryRun, json } = parseSweepSettings(args, io.environment);
  const queue = dryRun
    ? undefined
    : await context.openQueue({
        ...(settings.queueUrl ? { queueUrl: settings.queueUrl } : {}),
        ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
        ...(settings.region ? { region: settings.region } : {}),
      });
  const { directory, checkpointOwner } = await openCheckpointSources(settings, context);
  try {
    const report = await withDatabase(context, settings.databaseUrl, (database) => {
      const store = createDigestRepository(database);
      const threadOwner = settings.threadOwner === "table" ? createTableThreadOwner(store) : checkpointOwner;
      return runSweep(
        {
          store,
          clock: context.clock,
          ...(queue ? { queue } : {}),
          ...(directory ? { directory } : {}),
          ...(threadOwner ? { threadOwner } : {}),
        },
        { ...settings.options, dryRun },
      );
    });
    io.stdout(json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  } finally {
    await directory?.close();
    await checkpointOwner?.close();
  }
}

const SWEEP_USAGE = `Usage: context-cleaner sweep [--dry-run] [--json] [flags]

Runs the nightly sweep once: re-enqueues the threads left behind and, with a checkpoint
store, the threads whose turn event was lost, each under its owner's org. --dry-run shows
what it would enqueue and sends nothing; --json prints the report as JSON.

Settings (a flag wins over its environment variable), as the nightly function reads them:
${settingsUsage("sweep")}`;
