/**
 * The nightly sweep function (Cron): the edge where configuration is read, by the
 * settings table's reader (`readSweepSettings`, as `context-cleaner sweep` reads it), the
 * secrets from SST's links (`Resource.*`) or, when `CONTEXT_CLEANER_SECRET_ARN` is set, one
 * Secrets Manager secret. `CHECKPOINT_SCHEMA` and `CHECKPOINT_ORG_METADATA_KEY` locate the checkpoint
 * tables and the org in their metadata; `THREAD_OWNER_SOURCE=table` reads threads' owners
 * from the owner table instead; `CHECKPOINT_MESSAGE_TABLE` (with `CHECKPOINT_*_COLUMN`, see
 * `messageTableFromEnvironment`) lists threads from the app's own message table;
 * `CONTEXT_CLEANER_DB_DRIVER` (`neon` or `pg`) forces the database driver, else the URL
 * chooses it; `SWEEP_MAX_THREADS` and `SWEEP_GIVE_UP_AFTER_NIGHTS` override the run's bound and
 * how many nights a thread left behind is retried. Built on the first invocation.
 * See docs/architecture.md#the-nightly-sweep.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { SQSClient } from "@aws-sdk/client-sqs";
import {
  createSweepDependencies,
  createSweepHandler,
  METRICS_NAMESPACE,
  powertoolsMetrics,
  readSweepSettings,
  sweepConfigOf,
} from "@context-cleaner/core/worker";
import { Resource } from "sst";
import { lazyHandler } from "./lib/lazy-handler";
import { functionEnvironment, secretsFromSecretsManager } from "./lib/secrets";

export const handler = lazyHandler(async () => {
  const logger = new Logger({ serviceName: "context-cleaner-sweep" });
  const metrics = powertoolsMetrics(
    new Metrics({ namespace: METRICS_NAMESPACE, serviceName: "context-cleaner-sweep" }),
    logger,
  );
  const secretArn = process.env.CONTEXT_CLEANER_SECRET_ARN;
  const secrets = secretArn
    ? await secretsFromSecretsManager(secretArn)
    : {
        databaseUrl: Resource.DatabaseUrl.value,
        checkpointDatabaseUrl: Resource.CheckpointDatabaseUrl.value,
      };
  const source = secretArn ? `secret ${secretArn}` : "the SST secrets linked to this function";
  const queueUrl = Resource.DigestQueue.url;
  const environment = functionEnvironment(process.env, secrets, { DIGEST_QUEUE_URL: queueUrl });
  // The same reader and checks as `context-cleaner sweep`: a bad setting stops the function here.
  const settings = readSweepSettings({ environment }, `the sweep function (secrets from ${source})`);
  const dependencies = await createSweepDependencies(
    sweepConfigOf(
      { ...settings, queueUrl: settings.queueUrl ?? queueUrl },
      { logger, metrics },
      new SQSClient({}),
    ),
  );
  const { messageTable } = settings;
  if (!settings.checkpointDatabaseUrl)
    logger.warn("no checkpoint store: threads whose event was lost are not looked for");
  else if (messageTable && !(messageTable.orgIdColumn && messageTable.updatedAtColumn))
    logger.warn(
      "the message table names no org or updated-at column: threads whose event was lost are not looked for",
    );
  return createSweepHandler(dependencies);
});
