/**
 * The digest function (SQS FIFO subscriber): the edge where configuration is read, by the
 * settings table's reader (`readWorkerSettings`, as `context-cleaner worker` reads it). The
 * secrets come from SST's links (`Resource.*`) or, when `CONTEXT_CLEANER_SECRET_ARN` is set,
 * from one Secrets Manager secret; the kill switch is `CONTEXT_CLEANER_DISABLED=1`, and
 * `CONTEXT_CLEANER_READ_ORIGINAL=1` (the runtime gives the model `read_original`) lets
 * time-varying tool output be digested.
 * `CHECKPOINT_SCHEMA`, `CHECKPOINT_ORG_METADATA_KEY` and `THREAD_OWNER_SOURCE` (`checkpoint`
 * or `table`) locate the checkpoint tables and where a thread's owning org is read;
 * `CONTEXT_CLEANER_DB_DRIVER` (`neon` or `pg`) forces the database driver, else the URL
 * chooses it (Neon's for `*.neon.tech`, node-postgres otherwise).
 * `CHECKPOINT_MESSAGE_TABLE` (with `CHECKPOINT_*_COLUMN`, see `messageTableFromEnvironment`)
 * reads threads from the app's own message table instead.
 * `DIGEST_MODEL` (`anthropic`, the default, or `openai-compatible`) chooses the model
 * digester; the OpenAI-compatible one reads `OPENAI_COMPATIBLE_BASE_URL`, `_MODEL` and the
 * optional `_OUTPUT_LIMIT_FIELD` and `_PRICES` from the environment, its key from the
 * secrets. The turn-lock peek reads the Redis the runtime's lock is in: `REDIS_URL` over the
 * Redis protocol, or `UPSTASH_REDIS_REST_URL` and `_TOKEN` over Upstash's REST API, from
 * the secrets; never both. The handler is built on the first invocation and kept for the container's life.
 * See docs/architecture.md#the-worker.
 */
import { Logger } from "@aws-lambda-powertools/logger";
import { Metrics } from "@aws-lambda-powertools/metrics";
import { SQSClient } from "@aws-sdk/client-sqs";
import {
  createDigestDependencies,
  createDigestHandler,
  digestConfigOf,
  METRICS_NAMESPACE,
  powertoolsMetrics,
  readWorkerSettings,
} from "@context-cleaner/core/worker";
import { Resource } from "sst";
import { lazyHandler } from "./lib/lazy-handler";
import { type FunctionSecrets, functionEnvironment, secretsFromSecretsManager } from "./lib/secrets";

async function readSecrets(
  secretArn: string | undefined,
): Promise<{ secrets: FunctionSecrets; source: string }> {
  if (secretArn)
    return { secrets: await secretsFromSecretsManager(secretArn), source: `secret ${secretArn}` };
  return {
    secrets: {
      anthropicApiKey: Resource.AnthropicApiKey.value,
      openAiCompatibleApiKey: Resource.OpenAiCompatibleKey.value,
      databaseUrl: Resource.DatabaseUrl.value,
      checkpointDatabaseUrl: Resource.CheckpointDatabaseUrl.value,
      redisUrl: Resource.RedisUrl.value,
      upstashRedisUrl: Resource.UpstashRedisUrl.value,
      upstashRedisToken: Resource.UpstashRedisToken.value,
    },
    source: "the SST secrets linked to this function",
  };
}

export const handler = lazyHandler(async () => {
  const logger = new Logger({ serviceName: "context-cleaner-digest" });
  const metrics = powertoolsMetrics(
    new Metrics({ namespace: METRICS_NAMESPACE, serviceName: "context-cleaner-digest" }),
    logger,
  );
  const { secrets, source } = await readSecrets(process.env.CONTEXT_CLEANER_SECRET_ARN);
  const environment = functionEnvironment(process.env, secrets, {
    DIGEST_QUEUE_URL: Resource.DigestQueue.url,
    DIGEST_DLQ_URL: Resource.DigestDeadLetterQueue.url,
  });
  // The same reader and checks as `context-cleaner worker`: a bad setting stops the function here.
  const settings = readWorkerSettings({ environment }, `the digest function (secrets from ${source})`);
  const dependencies = await createDigestDependencies(
    digestConfigOf(settings, { logger, metrics, environment: process.env }, new SQSClient({})),
  );
  if ((settings.digestModel ?? "anthropic") === "anthropic" && !settings.anthropicApiKey) {
    logger.warn("no Anthropic API key: digests are extractive only");
  }
  return createDigestHandler(dependencies);
});
