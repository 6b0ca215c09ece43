/**
 * The nightly sweep function (Cron): the edge where configuration is read, from SST's
 * links (`Resource.*`) or, when `CONTEXT_CLEANER_SECRET_ARN` is set, one Secrets Manager
 * secret. `CHECKPOINT_SCHEMA` and `CHECKPOINT_ORG_METADATA_KEY` locate the checkpoint
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
  databaseDriverFromEnvironment,
  METRICS_NAMESPACE,
  messageTableFromEnvironment,
  parseThreadOwnerSource,
  powertoolsMetrics,
  sweepOptionsFromEnvironment,
} from "@context-cleaner/core/worker";
import { Resource } from "sst";
import { lazyHandler } from "./lib/lazy-handler";
import { requireSecret, secretsFromSecretsManager } from "./lib/secrets";

export const handler = lazyHandler(async () => {
  const environment = process.env;
  const logger = new Logger({ serviceName: "context-cleaner-sweep" });
  const metrics = powertoolsMetrics(
    new Metrics({ namespace: METRICS_NAMESPACE, serviceName: "context-cleaner-sweep" }),
    logger,
  );
  const secretArn = environment.CONTEXT_CLEANER_SECRET_ARN;
  const secrets = secretArn
    ? await secretsFromSecretsManager(secretArn)
    : {
        databaseUrl: Resource.DatabaseUrl.value,
        checkpointDatabaseUrl: Resource.CheckpointDatabaseUrl.value,
      };
  const source = secretArn ? `secret ${secretArn}` : "the SST secrets linked to this function";
  const databaseDriver = databaseDriverFromEnvironment(environment);
  const messageTable = messageTableFromEnvironment(environment);
  const options = sweepOptionsFromEnvironment(environment);
  const dependencies = await createSweepDependencies({
    options,
    databaseUrl: requireSecret(secrets, "databaseUrl", source),
    ...(databaseDriver ? { databaseDriver } : {}),
    ...(secrets.checkpointDatabaseUrl ? { checkpointDatabaseUrl: secrets.checkpointDatabaseUrl } : {}),
    ...(environment.CHECKPOINT_SCHEMA ? { checkpointSchema: environment.CHECKPOINT_SCHEMA } : {}),
    ...(environment.CHECKPOINT_ORG_METADATA_KEY
      ? { orgMetadataKey: environment.CHECKPOINT_ORG_METADATA_KEY }
      : {}),
    ...(environment.THREAD_OWNER_SOURCE
      ? { threadOwner: parseThreadOwnerSource(environment.THREAD_OWNER_SOURCE) }
      : {}),
    ...(messageTable ? { messageTable } : {}),
    queueUrl: environment.DIGEST_QUEUE_URL ?? Resource.DigestQueue.url,
    sqs: new SQSClient({}),
    logger,
    metrics,
  });
  if (!secrets.checkpointDatabaseUrl)
    logger.warn("no checkpoint store: threads whose event was lost are not looked for");
  else if (messageTable && !(messageTable.orgIdColumn && messageTable.updatedAtColumn))
    logger.warn(
      "the message table names no org or updated-at column: threads whose event was lost are not looked for",
    );
  return createSweepHandler(dependencies);
});
