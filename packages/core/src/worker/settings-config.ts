import type { DigestConfig } from "./digest-dependencies";
import type { FunctionLogger, FunctionMetrics } from "./observability";
import { SETTINGS, type SweepSettings, type WorkerSettings } from "./settings";
import type { SweepConfig } from "./sweep-dependencies";

/** Where the worker reports, and the environment its kill switch is read from per record. */
export interface SettingsReporting {
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  environment: Readonly<Record<string, string | undefined>>;
}

/**
 * The digest dependencies' configuration from the worker's settings, the same for the
 * digest function and `context-cleaner worker`: the databases, the message table, the
 * digester, Redis, the queues, the kill switch (read per record) and `read_original`.
 */
export function digestConfigOf(
  settings: WorkerSettings,
  { logger, metrics, environment }: SettingsReporting,
  sqs: DigestConfig["sqs"],
): DigestConfig {
  return {
    databaseUrl: settings.databaseUrl,
    ...(settings.databaseDriver ? { databaseDriver: settings.databaseDriver } : {}),
    checkpointDatabaseUrl: settings.checkpointDatabaseUrl,
    ...(settings.checkpointSchema ? { checkpointSchema: settings.checkpointSchema } : {}),
    ...(settings.orgMetadataKey ? { orgMetadataKey: settings.orgMetadataKey } : {}),
    ...(settings.threadOwner ? { threadOwner: settings.threadOwner } : {}),
    ...(settings.messageTable ? { messageTable: settings.messageTable } : {}),
    ...(settings.digestModel ? { digestModel: settings.digestModel } : {}),
    ...(settings.anthropicApiKey ? { anthropicApiKey: settings.anthropicApiKey } : {}),
    ...(settings.anthropicBaseUrl ? { anthropicBaseUrl: settings.anthropicBaseUrl } : {}),
    ...(settings.openAiCompatible ? { openAiCompatible: settings.openAiCompatible } : {}),
    ...(settings.redis ? { redis: settings.redis } : {}),
    ...(settings.redisUrl ? { redisUrl: settings.redisUrl } : {}),
    queueUrl: settings.queueUrl,
    ...(settings.deadLetterQueueUrl ? { deadLetterQueueUrl: settings.deadLetterQueueUrl } : {}),
    sqs,
    logger,
    metrics,
    disabled: () => environment[SETTINGS.disabled.env] === "1",
    ...(settings.readOriginal ? { jobOptions: { readOriginal: true } } : {}),
  };
}

/** The sweep dependencies' configuration from the sweep's settings, for the nightly function. */
export function sweepConfigOf(
  settings: SweepSettings & { queueUrl: string },
  { logger, metrics }: Omit<SettingsReporting, "environment">,
  sqs: SweepConfig["sqs"],
): SweepConfig {
  return {
    databaseUrl: settings.databaseUrl,
    ...(settings.databaseDriver ? { databaseDriver: settings.databaseDriver } : {}),
    ...(settings.checkpointDatabaseUrl ? { checkpointDatabaseUrl: settings.checkpointDatabaseUrl } : {}),
    ...(settings.checkpointSchema ? { checkpointSchema: settings.checkpointSchema } : {}),
    ...(settings.orgMetadataKey ? { orgMetadataKey: settings.orgMetadataKey } : {}),
    ...(settings.threadOwner ? { threadOwner: settings.threadOwner } : {}),
    ...(settings.messageTable ? { messageTable: settings.messageTable } : {}),
    queueUrl: settings.queueUrl,
    sqs,
    logger,
    metrics,
    options: settings.options,
  };
}
