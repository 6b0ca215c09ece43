import { parseArgs } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import type { ThreadDirectory } from "../../ports";
import { runSweep, SWEEP_DEFAULTS, type SweepReport } from "../../sweep/run-sweep";
import { databaseUrlOf, type OpsContext, positiveInteger, withDatabase } from "./ops-context";

function render(report: SweepReport): string {
  const verb = report.dryRun ? "would enqueue" : "enqueued";
  const lines = [
    `sweep ${verb} ${report.threads.length - report.failed} thread${report.threads.length === 1 ? "" : "s"}${report.truncated ? " (stopped at its bound; more remain)" : ""}`,
  ];
  for (const [reason, count] of Object.entries(report.byReason)) lines.push(`  ${reason}: ${count}`);
  for (const thread of report.threads) {
    lines.push(
      `  ${thread.orgId}/${thread.threadId}  ${thread.reason}  turn ${thread.turnEndedAt}${thread.error ? `  FAILED: ${thread.error}` : ""}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/**
 * `context-cleaner sweep [--dry-run]`: what the nightly sweep enqueues (threads left
 * behind, and with `--checkpoints` threads whose event was lost), sent to the digest queue
 * unless `--dry-run`. Database from `--database`/`DATABASE_URL`, checkpoint store from
 * `--checkpoints`/`CHECKPOINT_DATABASE_URL`, queue from `--queue-url`/`DIGEST_QUEUE_URL`.
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
      "max-threads": { type: "string" },
      json: { type: "boolean" },
    },
  });
  const { io } = context;
  const dryRun = values["dry-run"] ?? false;
  const checkpointsUrl = values.checkpoints ?? io.environment.CHECKPOINT_DATABASE_URL;
  const queueUrl = values["queue-url"] ?? io.environment.DIGEST_QUEUE_URL;
  const maxThreads = positiveInteger(values["max-threads"], "max-threads", SWEEP_DEFAULTS.maxThreads);
  const queue = dryRun ? undefined : await context.openQueue({ ...(queueUrl ? { queueUrl } : {}) });
  let directory: (ThreadDirectory & { close(): Promise<void> }) | undefined;
  if (checkpointsUrl) {
    const schema = values["checkpoint-schema"] ?? io.environment.CHECKPOINT_SCHEMA;
    const orgMetadataKey = values["org-key"] ?? io.environment.CHECKPOINT_ORG_METADATA_KEY;
    directory = await context.openDirectory({
      url: checkpointsUrl,
      ...(schema ? { schema } : {}),
      ...(orgMetadataKey ? { orgMetadataKey } : {}),
    });
  }
  try {
    const report = await withDatabase(context, databaseUrlOf(values.database, io), (database) =>
      runSweep(
        {
          store: createDigestRepository(database),
          clock: context.clock,
          ...(queue ? { queue } : {}),
          ...(directory ? { directory } : {}),
        },
        { dryRun, maxThreads },
      ),
    );
    io.stdout(values.json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  } finally {
    await directory?.close();
  }
}
