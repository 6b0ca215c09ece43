/// <reference path="./.sst/platform/config.d.ts" />

// Sizing. The digest function takes a batch of up to 10 jobs (one per thread) and runs
// them in order; each job stops starting model calls when one more would not fit the
// remaining time and writes what it has, so the timeout bounds a batch, not a job.
// 5 minutes leaves room for a full job (up to 12 model calls, run a few at a time) ahead
// of the rest of the batch. 1024 MB: a thread (a few MB of JSON) is parsed, classified and
// hashed in memory, and Lambda's CPU share grows with memory. The sweep pages through
// thread ids and sends messages: I/O-bound, 512 MB.
const DIGEST_TIMEOUT_SECONDS = 300;
const SWEEP_TIMEOUT_SECONDS = 300;
// SQS's guidance for a Lambda event source: visibility at least 6× the function timeout,
// so a batch is not redelivered while retried invocations of it may still run.
const VISIBILITY_TIMEOUT_SECONDS = 6 * DIGEST_TIMEOUT_SECONDS;
// Receives of one job before it goes to the dead letters. The digest handler stops handing
// a turn-locked job back before this (packages/core/src/worker/digest-handler.ts), so a busy thread
// never lands there.
const MAX_RECEIVE_COUNT = 5;
// Packages the digest function loads only when a job reads a checkpoint: installed beside
// the bundle, never bundled, and loaded through a split chunk, so a cold start skips them.
// Versions come from the root package.json's dependencies. test/bench/function-bundles.ts
// lists the same; npm run bench:bundle checks them.
const DIGEST_INSTALL = ["@langchain/core", "@langchain/langgraph-checkpoint-postgres", "pg"];
// Concurrent digest functions the queue may start. Each holds at most 12 database
// connections (10 for the digest store, 2 for the checkpoint reader), so 20 functions stay
// under 240 client connections: far below the pooled Neon endpoint's limit and the
// direct endpoint of a small compute. docs/scale.md sizes it.
const DIGEST_MAX_CONCURRENCY = 20;

// The settings the functions read that come from the shell that deploys, so each stage sets
// its own (docs/operate.md, "Deploy"): where LangGraph's tables are, where a thread's owner is read, or
// the app's own message table (`CHECKPOINT_MESSAGE_TABLE=app.thread_messages
// CHECKPOINT_ORG_ID_COLUMN=org_id CHECKPOINT_UPDATED_AT_COLUMN=updated_at npx sst deploy`),
// read_original, the sweep's bounds. These are the settings table's rows passed "from the
// shell" (packages/core/src/worker/settings.ts); a unit test checks this list against them.
const SHELL_SETTINGS = [
  "CHECKPOINT_SCHEMA",
  "CHECKPOINT_ORG_METADATA_KEY",
  "THREAD_OWNER_SOURCE",
  "CHECKPOINT_MESSAGE_TABLE",
  "CHECKPOINT_THREAD_ID_COLUMN",
  "CHECKPOINT_MESSAGES_COLUMN",
  "CHECKPOINT_MESSAGES_FORMAT",
  "CHECKPOINT_ORG_ID_COLUMN",
  "CHECKPOINT_UPDATED_AT_COLUMN",
  // Set when the runtime gives the model read_original: time-varying tool output is digested too.
  "CONTEXT_CLEANER_READ_ORIGINAL",
  // The nightly sweep's bound, how many nights it retries a thread left behind, and how
  // recent a pass or activity it leaves alone.
  "SWEEP_MAX_THREADS",
  "SWEEP_GIVE_UP_AFTER_NIGHTS",
  "SWEEP_SETTLE_MINUTES",
];

function shellEnvironment(): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of SHELL_SETTINGS) {
    const value = process.env[name];
    if (value) environment[name] = value;
  }
  return environment;
}

export default $config({
  app(input) {
    // `--stage prod` (as docs/operate.md deploys) and `--stage production` are both production.
    const production = input?.stage === "prod" || input?.stage === "production";
    return {
      name: "context-cleaner",
      home: "aws",
      removal: production ? "retain" : "remove",
      protect: production,
    };
  },
  async run() {
    const anthropicApiKey = new sst.Secret("AnthropicApiKey");
    const databaseUrl = new sst.Secret("DatabaseUrl");
    // The agent's checkpoint store, as a role that can only SELECT LangGraph's tables.
    const checkpointDatabaseUrl = new sst.Secret("CheckpointDatabaseUrl");
    // The Redis the runtime's turn lock is in, which the digest function peeks at: RedisUrl
    // (`redis://` or `rediss://`, for a runtime that locks through ioredis or node-redis),
    // or UpstashRedisUrl and UpstashRedisToken (Upstash's REST API), never both. The empty
    // placeholders leave the peek off. A Redis inside a VPC (ElastiCache) is reachable only
    // once the function runs in that VPC, which this configuration does not declare.
    const redisUrl = new sst.Secret("RedisUrl", "");
    const upstashRedisUrl = new sst.Secret("UpstashRedisUrl", "");
    const upstashRedisToken = new sst.Secret("UpstashRedisToken", "");
    // The model digester, per stage: DigestModel is `anthropic` (the default) or
    // `openai-compatible`, any Chat Completions server (OpenAI, OpenRouter, vLLM, Ollama) at
    // OpenAiCompatibleBaseUrl serving OpenAiCompatibleModel, its key OpenAiCompatibleKey.
    // OpenAiCompatibleOutputLimitField (`max_tokens` or `max_completion_tokens`) and
    // OpenAiCompatiblePrices ("input,output[,cached input]" USD per million tokens, so calls
    // are reserved against the daily budget) are optional. Set with `sst secret set`; the
    // placeholders leave the OpenAI-compatible digester unconfigured.
    const digestModel = new sst.Secret("DigestModel", "anthropic");
    const openAiCompatibleKey = new sst.Secret("OpenAiCompatibleKey", "");
    const openAiCompatibleBaseUrl = new sst.Secret("OpenAiCompatibleBaseUrl", "");
    const openAiCompatibleModel = new sst.Secret("OpenAiCompatibleModel", "");
    const openAiCompatibleOutputLimitField = new sst.Secret("OpenAiCompatibleOutputLimitField", "");
    const openAiCompatiblePrices = new sst.Secret("OpenAiCompatiblePrices", "");

    // A FIFO queue's dead letters must be FIFO too; keep them the 14-day maximum.
    const deadLetters = new sst.aws.Queue("DigestDeadLetterQueue", {
      fifo: true,
      transform: { queue: { messageRetentionSeconds: 14 * 24 * 3600 } },
    });

    // One message group per thread; deduplication ids come from the publisher (org,
    // thread, turn end). The delay lets a burst of turns settle before a job reads the thread.
    // High-throughput FIFO: deduplication and the throughput quota apply per message group
    // (per thread), not per queue, so sends scale with the number of threads.
    const queue = new sst.aws.Queue("DigestQueue", {
      fifo: { contentBasedDeduplication: false },
      visibilityTimeout: `${VISIBILITY_TIMEOUT_SECONDS} seconds`,
      delay: "10 seconds",
      dlq: { queue: deadLetters.arn, retry: MAX_RECEIVE_COUNT },
      transform: {
        queue: { deduplicationScope: "messageGroup", fifoThroughputLimit: "perMessageGroupId" },
      },
    });

    queue.subscribe(
      {
        handler: "functions/digest.handler",
        runtime: "nodejs22.x",
        timeout: `${DIGEST_TIMEOUT_SECONDS} seconds`,
        memory: "1024 MB",
        // Settings, not credentials: the key stays a linked secret. The stage secrets passed
        // here are the settings table's rows passed "from the stage secret".
        environment: {
          ...shellEnvironment(),
          DIGEST_MODEL: digestModel.value,
          OPENAI_COMPATIBLE_BASE_URL: openAiCompatibleBaseUrl.value,
          OPENAI_COMPATIBLE_MODEL: openAiCompatibleModel.value,
          OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: openAiCompatibleOutputLimitField.value,
          OPENAI_COMPATIBLE_PRICES: openAiCompatiblePrices.value,
        },
        link: [
          anthropicApiKey,
          openAiCompatibleKey,
          databaseUrl,
          checkpointDatabaseUrl,
          redisUrl,
          upstashRedisUrl,
          upstashRedisToken,
          queue,
          // Poison records are sent to the dead letters with their reason.
          deadLetters,
        ],
        nodejs: { install: DIGEST_INSTALL, splitting: true },
      },
      // Partial batch responses: one failed job is retried alone, not its whole batch.
      {
        batch: { size: 10, partialResponses: true },
        transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: DIGEST_MAX_CONCURRENCY } } },
      },
    );

    // Nightly at 03:00 UTC: re-enqueue threads left behind, and threads active in the
    // checkpoint store with no pass record (their turn event was lost).
    new sst.aws.Cron("NightlySweep", {
      schedule: "cron(0 3 * * ? *)",
      function: {
        handler: "functions/sweep.handler",
        runtime: "nodejs22.x",
        timeout: `${SWEEP_TIMEOUT_SECONDS} seconds`,
        memory: "512 MB",
        environment: shellEnvironment(),
        link: [databaseUrl, checkpointDatabaseUrl, queue],
        nodejs: { splitting: true },
      },
    });

    new aws.cloudwatch.MetricAlarm("DigestDeadLettersAlarm", {
      alarmDescription: "Digest jobs reached the dead-letter queue",
      namespace: "AWS/SQS",
      metricName: "ApproximateNumberOfMessagesVisible",
      dimensions: { QueueName: deadLetters.nodes.queue.name },
      statistic: "Maximum",
      period: 300,
      evaluationPeriods: 1,
      threshold: 0,
      comparisonOperator: "GreaterThanThreshold",
      treatMissingData: "notBreaching",
    });

    // Jobs should start within minutes; an hour-old message means the worker is failing or
    // the queue is backed up.
    new aws.cloudwatch.MetricAlarm("DigestQueueAgeAlarm", {
      alarmDescription: "The oldest digest job has waited over an hour",
      namespace: "AWS/SQS",
      metricName: "ApproximateAgeOfOldestMessage",
      dimensions: { QueueName: queue.nodes.queue.name },
      statistic: "Maximum",
      period: 300,
      evaluationPeriods: 3,
      threshold: 3600,
      comparisonOperator: "GreaterThanThreshold",
      treatMissingData: "notBreaching",
    });

    return { digestQueueUrl: queue.url, deadLetterQueueUrl: deadLetters.url };
  },
});
