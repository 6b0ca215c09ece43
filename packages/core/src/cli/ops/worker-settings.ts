import { parseArgs } from "node:util";
import { InvalidOptionError } from "@context-cleaner/assembler";
import {
  OPENAI_COMPATIBLE_SETTINGS,
  openAiCompatibleSettings,
} from "../../digesters/openai-compatible/settings";
import { UsageError } from "../../errors";
import { DIGEST_MODELS, type DigestModelChoice } from "../../worker/digest-model";
import { DATABASE_DRIVER_CHOICES } from "../../worker/function-database";
import {
  checkedMessageTableFromEnvironment,
  MESSAGE_TABLE_ENVIRONMENT,
  type MessageTableConfig,
} from "../../worker/message-table-config";

/** A setting of `context-cleaner worker`: its flag, its environment variable, and what it is. */
interface SettingSpec {
  readonly flag?: string;
  readonly env: string;
  readonly about: string;
}

/**
 * Every setting the worker reads, flag first, then the environment variable (the names the
 * Lambda function reads, where it has one). The usage text and the docs list them from here.
 */
export const WORKER_SETTINGS = {
  queueUrl: { flag: "queue-url", env: "DIGEST_QUEUE_URL", about: "the FIFO digest queue (required)" },
  deadLetterQueueUrl: {
    flag: "dlq-url",
    env: "DIGEST_DLQ_URL",
    about: "its dead-letter queue; poison records go there with their reason",
  },
  endpoint: {
    flag: "endpoint",
    env: "AWS_ENDPOINT_URL_SQS",
    about: "an SQS-compatible endpoint (an emulator); default AWS's",
  },
  region: { flag: "region", env: "AWS_REGION", about: "default: the queue URL's, else us-east-1" },
  databaseUrl: {
    flag: "database-url",
    env: "DATABASE_URL",
    about: "the digest database, postgres:// (required)",
  },
  databaseDriver: {
    flag: "database-driver",
    env: "CONTEXT_CLEANER_DB_DRIVER",
    about: "neon or pg; default by URL (neon for *.neon.tech)",
  },
  checkpointDatabaseUrl: {
    flag: "checkpoint-database-url",
    env: "CHECKPOINT_DATABASE_URL",
    about: "the checkpoint store as a SELECT-only role (required)",
  },
  checkpointSchema: { flag: "checkpoint-schema", env: "CHECKPOINT_SCHEMA", about: "default public" },
  orgMetadataKey: { flag: "org-key", env: "CHECKPOINT_ORG_METADATA_KEY", about: "default org_id" },
  threadOwner: { flag: "thread-owner", env: "THREAD_OWNER_SOURCE", about: "checkpoint (default) or table" },
  batchSize: { flag: "batch-size", env: "CONTEXT_CLEANER_BATCH_SIZE", about: "1–10, default 10" },
  waitTimeSeconds: {
    flag: "wait-time",
    env: "CONTEXT_CLEANER_WAIT_TIME_SECONDS",
    about: "long polling, 0–20 s, default 20",
  },
  visibilityTimeoutSeconds: {
    flag: "visibility-timeout",
    env: "CONTEXT_CLEANER_VISIBILITY_TIMEOUT_SECONDS",
    about: "seconds a received batch stays invisible; default the queue's",
  },
  functionTimeoutSeconds: {
    flag: "function-timeout",
    env: "CONTEXT_CLEANER_FUNCTION_TIMEOUT_SECONDS",
    about: "each batch's deadline, as the function's timeout; default 300",
  },
  concurrency: {
    flag: "concurrency",
    env: "CONTEXT_CLEANER_CONCURRENCY",
    about: "batches run at once, default 1",
  },
  messageTable: {
    env: MESSAGE_TABLE_ENVIRONMENT.table,
    about: "the app's message table or view (name or schema.name), read instead of LangGraph's tables",
  },
  messageThreadIdColumn: { env: MESSAGE_TABLE_ENVIRONMENT.threadIdColumn, about: "default thread_id" },
  messagesColumn: { env: MESSAGE_TABLE_ENVIRONMENT.messagesColumn, about: "default messages" },
  messagesFormat: { env: MESSAGE_TABLE_ENVIRONMENT.format, about: "default detected per row" },
  messageOrgIdColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.orgIdColumn,
    about: "the thread's org; required with the checkpoint owner source",
  },
  messageUpdatedAtColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.updatedAtColumn,
    about: "the sweep's, not needed here",
  },
  digestModel: { env: "DIGEST_MODEL", about: "anthropic (default) or openai-compatible" },
  anthropicApiKey: { env: "ANTHROPIC_API_KEY", about: "without it, digests are extractive only" },
  anthropicBaseUrl: { env: "ANTHROPIC_BASE_URL", about: "default Anthropic's" },
  openAiCompatibleBaseUrl: {
    env: OPENAI_COMPATIBLE_SETTINGS.baseURL,
    about: "with DIGEST_MODEL=openai-compatible (required): the Chat Completions server",
  },
  openAiCompatibleApiKey: { env: OPENAI_COMPATIBLE_SETTINGS.apiKey, about: "its key (required)" },
  openAiCompatibleModel: { env: OPENAI_COMPATIBLE_SETTINGS.model, about: "its model (required)" },
  openAiCompatibleOutputLimitField: {
    env: OPENAI_COMPATIBLE_SETTINGS.outputLimitField,
    about: "max_tokens (default) or max_completion_tokens",
  },
  openAiCompatiblePrices: {
    env: OPENAI_COMPATIBLE_SETTINGS.prices,
    about: '"input,output[,cached input]" USD per million tokens; default none',
  },
  readOriginal: {
    env: "CONTEXT_CLEANER_READ_ORIGINAL",
    about: "1: the runtime gives the model read_original, so time-varying output is digested too",
  },
  redisUrl: { env: "UPSTASH_REDIS_REST_URL", about: "with the token: the turn-lock peek" },
  redisToken: { env: "UPSTASH_REDIS_REST_TOKEN", about: "with the URL: the turn-lock peek" },
  disabled: { env: "CONTEXT_CLEANER_DISABLED", about: "1: the kill switch, read per record" },
} as const satisfies Record<string, SettingSpec>;

/** The worker's settings, checked. */
export interface WorkerSettings {
  queueUrl: string;
  deadLetterQueueUrl?: string;
  endpoint?: string;
  region: string;
  databaseUrl: string;
  databaseDriver?: (typeof DATABASE_DRIVER_CHOICES)[number];
  checkpointDatabaseUrl: string;
  checkpointSchema?: string;
  orgMetadataKey?: string;
  threadOwner?: "checkpoint" | "table";
  batchSize: number;
  waitTimeSeconds: number;
  visibilityTimeoutSeconds?: number;
  functionTimeoutMs: number;
  concurrency: number;
  /** The app's message table, read instead of LangGraph's tables. */
  messageTable?: MessageTableConfig;
  /** Absent: `anthropic`. */
  digestModel?: DigestModelChoice;
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  /** With `openai-compatible`: its settings by name, checked. */
  openAiCompatible?: Readonly<Record<string, string>>;
  redis?: { url: string; token: string };
  /** The runtime gives the model `read_original`: time-varying output may be digested. */
  readOriginal?: true;
}

/** Defaults of {@link WorkerSettings}, as the digest function is deployed. */
export const WORKER_DEFAULTS = {
  batchSize: 10,
  waitTimeSeconds: 20,
  functionTimeoutSeconds: 300,
  concurrency: 1,
  region: "us-east-1",
} as const;

type SettingName = keyof typeof WORKER_SETTINGS;

/** The usage lines of the worker's settings. */
export function workerSettingsUsage(): string {
  return Object.values(WORKER_SETTINGS as Record<string, SettingSpec>)
    .map(({ flag, env, about }) => `  ${(flag ? `--${flag} / ${env}` : env).padEnd(62)} ${about}`)
    .join("\n");
}

function describeSetting(name: SettingName): string {
  const spec: SettingSpec = WORKER_SETTINGS[name];
  return spec.flag ? `--${spec.flag} (or ${spec.env})` : spec.env;
}

function urlSetting(value: string, name: SettingName, protocols: readonly string[]): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${describeSetting(name)} is not a URL: ${JSON.stringify(redacted(value))}`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new UsageError(
      `${describeSetting(name)} must be a ${protocols.map((protocol) => `${protocol}//`).join(" or ")} URL, got ${url.protocol}//…`,
    );
  }
  return value;
}

/** A URL as an error may show it: without its password. */
function redacted(value: string): string {
  return value.replace(/\/\/([^:/@]+):[^@/]*@/, "//$1:***@");
}

function integerSetting(value: string, name: SettingName, min: number, max: number): number {
  const number = Number(value);
  if (value.trim() === "" || !Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(
      `${describeSetting(name)} must be an integer from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  }
  return number;
}

function oneOf<T extends string>(value: string, name: SettingName, choices: readonly T[]): T {
  const choice = choices.find((known) => known === value);
  if (choice === undefined) {
    throw new UsageError(
      `${describeSetting(name)} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return choice;
}

/** The region of an AWS SQS queue URL (`https://sqs.<region>.amazonaws.com/…`). */
function regionOfQueueUrl(queueUrl: string): string | undefined {
  return /^sqs[.-]([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(queueUrl).hostname)?.[1];
}

/** The `CONTEXT_CLEANER_DB_DRIVER` setting, checked: `neon`, `pg`, or unset (by URL). */
export function databaseDriverSetting(
  value: string | undefined,
): (typeof DATABASE_DRIVER_CHOICES)[number] | undefined {
  if (value === undefined || value === "") return undefined;
  return oneOf(value, "databaseDriver", DATABASE_DRIVER_CHOICES);
}

/**
 * The worker's settings from its flags, else the environment (an empty variable counts as
 * unset). Everything is checked here, before any connection is made.
 *
 * @throws {UsageError} naming the setting that is missing or invalid, and how to give it.
 */
export function parseWorkerSettings(
  args: readonly string[],
  environment: Record<string, string | undefined>,
): WorkerSettings {
  const options = Object.fromEntries(
    Object.values(WORKER_SETTINGS as Record<string, SettingSpec>)
      .filter((spec) => spec.flag !== undefined)
      .map((spec) => [spec.flag as string, { type: "string" as const }]),
  );
  const { values, positionals } = parseArgs({ args: [...args], options, allowPositionals: true });
  if (positionals.length > 0) {
    throw new UsageError(`worker takes no arguments, got ${JSON.stringify(positionals[0])}`);
  }
  const read = (name: SettingName): string | undefined => {
    const spec: SettingSpec = WORKER_SETTINGS[name];
    const flagValue = spec.flag ? (values as Record<string, string | undefined>)[spec.flag] : undefined;
    const value = flagValue ?? environment[spec.env];
    return value === undefined || value === "" ? undefined : value;
  };
  const required = (name: SettingName): string => {
    const value = read(name);
    if (value === undefined) throw new UsageError(`worker needs ${describeSetting(name)}`);
    return value;
  };
  const integer = (name: SettingName, min: number, max: number, fallback: number) => {
    const value = read(name);
    return value === undefined ? fallback : integerSetting(value, name, min, max);
  };

  const queueUrl = urlSetting(required("queueUrl"), "queueUrl", ["http:", "https:"]);
  const deadLetterQueueUrl = read("deadLetterQueueUrl");
  if (deadLetterQueueUrl !== undefined)
    urlSetting(deadLetterQueueUrl, "deadLetterQueueUrl", ["http:", "https:"]);
  const endpoint = read("endpoint");
  if (endpoint !== undefined) urlSetting(endpoint, "endpoint", ["http:", "https:"]);
  const databaseUrl = urlSetting(required("databaseUrl"), "databaseUrl", ["postgres:", "postgresql:"]);
  const checkpointDatabaseUrl = urlSetting(required("checkpointDatabaseUrl"), "checkpointDatabaseUrl", [
    "postgres:",
    "postgresql:",
  ]);
  const databaseDriver = databaseDriverSetting(read("databaseDriver"));
  const threadOwnerValue = read("threadOwner");
  const threadOwner =
    threadOwnerValue === undefined
      ? undefined
      : oneOf(threadOwnerValue, "threadOwner", ["checkpoint", "table"] as const);
  const functionTimeoutSeconds = integer(
    "functionTimeoutSeconds",
    1,
    900,
    WORKER_DEFAULTS.functionTimeoutSeconds,
  );
  const visibilityValue = read("visibilityTimeoutSeconds");
  const visibilityTimeoutSeconds =
    visibilityValue === undefined
      ? undefined
      : integerSetting(visibilityValue, "visibilityTimeoutSeconds", 1, 43_200);
  if (visibilityTimeoutSeconds !== undefined && visibilityTimeoutSeconds < functionTimeoutSeconds) {
    throw new UsageError(
      `${describeSetting("visibilityTimeoutSeconds")} (${visibilityTimeoutSeconds} s) must be at least the function timeout (${functionTimeoutSeconds} s): a batch still running would be delivered again`,
    );
  }
  const redisUrl = read("redisUrl");
  const redisToken = read("redisToken");
  if ((redisUrl === undefined) !== (redisToken === undefined)) {
    throw new UsageError(
      "the turn-lock peek needs both UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or neither",
    );
  }
  if (redisUrl !== undefined) urlSetting(redisUrl, "redisUrl", ["http:", "https:"]);
  const messageTable = messageTableSetting(environment, threadOwner);
  const digestModelValue = read("digestModel");
  const digestModel =
    digestModelValue === undefined ? undefined : oneOf(digestModelValue, "digestModel", DIGEST_MODELS);
  const openAiCompatible = digestModel === "openai-compatible" ? openAiCompatibleSetting(read) : undefined;
  const readOriginalValue = read("readOriginal");
  const readOriginal =
    readOriginalValue !== undefined && oneOf(readOriginalValue, "readOriginal", ["1", "0"] as const) === "1";
  const optional = <K extends SettingName>(name: K, key: keyof WorkerSettings) => {
    const value = read(name);
    return value === undefined ? {} : { [key]: value };
  };
  return {
    queueUrl,
    ...(deadLetterQueueUrl !== undefined ? { deadLetterQueueUrl } : {}),
    ...(endpoint !== undefined ? { endpoint } : {}),
    region: read("region") ?? regionOfQueueUrl(queueUrl) ?? WORKER_DEFAULTS.region,
    databaseUrl,
    ...(databaseDriver !== undefined ? { databaseDriver } : {}),
    checkpointDatabaseUrl,
    ...optional("checkpointSchema", "checkpointSchema"),
    ...optional("orgMetadataKey", "orgMetadataKey"),
    ...(threadOwner !== undefined ? { threadOwner } : {}),
    batchSize: integer("batchSize", 1, 10, WORKER_DEFAULTS.batchSize),
    waitTimeSeconds: integer("waitTimeSeconds", 0, 20, WORKER_DEFAULTS.waitTimeSeconds),
    ...(visibilityTimeoutSeconds !== undefined ? { visibilityTimeoutSeconds } : {}),
    functionTimeoutMs: functionTimeoutSeconds * 1000,
    concurrency: integer("concurrency", 1, 100, WORKER_DEFAULTS.concurrency),
    ...(messageTable !== undefined ? { messageTable } : {}),
    ...(digestModel !== undefined ? { digestModel } : {}),
    ...optional("anthropicApiKey", "anthropicApiKey"),
    ...optional("anthropicBaseUrl", "anthropicBaseUrl"),
    ...(openAiCompatible !== undefined ? { openAiCompatible } : {}),
    ...(redisUrl !== undefined && redisToken !== undefined
      ? { redis: { url: redisUrl, token: redisToken } }
      : {}),
    ...(readOriginal ? { readOriginal } : {}),
  };
}

/**
 * The message table the `CHECKPOINT_*` variables name, checked as the digest function
 * checks it when it starts: its names, and an org column when owners are read from it.
 */
function messageTableSetting(
  environment: Record<string, string | undefined>,
  threadOwner: WorkerSettings["threadOwner"],
): MessageTableConfig | undefined {
  let messageTable: MessageTableConfig | undefined;
  try {
    messageTable = checkedMessageTableFromEnvironment(environment);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (
    messageTable !== undefined &&
    (threadOwner ?? "checkpoint") === "checkpoint" &&
    !messageTable.orgIdColumn
  ) {
    throw new UsageError(
      `the message table names no org column (${MESSAGE_TABLE_ENVIRONMENT.orgIdColumn}): name it, or read owners from the owner table (THREAD_OWNER_SOURCE=table)`,
    );
  }
  return messageTable;
}

/** The `OPENAI_COMPATIBLE_*` settings by name, checked as the digester checks them. */
function openAiCompatibleSetting(read: (name: SettingName) => string | undefined): Record<string, string> {
  const names = [
    "openAiCompatibleBaseUrl",
    "openAiCompatibleApiKey",
    "openAiCompatibleModel",
    "openAiCompatibleOutputLimitField",
    "openAiCompatiblePrices",
  ] as const;
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = read(name);
    if (value !== undefined) values[WORKER_SETTINGS[name].env] = value;
  }
  try {
    openAiCompatibleSettings(values);
  } catch (error) {
    if (error instanceof InvalidOptionError)
      throw new UsageError(`DIGEST_MODEL=openai-compatible: ${error.message}`);
    throw error;
  }
  return values;
}
