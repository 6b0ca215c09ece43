import { InvalidOptionError } from "@context-cleaner/assembler";
import { redactSecrets } from "@context-cleaner/assembler/internal";
import {
  OPENAI_COMPATIBLE_SETTINGS,
  openAiCompatibleSettings,
} from "../digesters/openai-compatible/settings";
import { UsageError } from "../errors";
import { parsePositiveInteger } from "../positive-integer";
import { SWEEP_DEFAULTS, type SweepOptions } from "../sweep/index";
import { DIGEST_MODELS, type DigestModelChoice } from "./digest-model";
import { DATABASE_DRIVER_CHOICES } from "./function-database";
import {
  checkedMessageTableFromEnvironment,
  MESSAGE_TABLE_ENVIRONMENT,
  type MessageTableConfig,
} from "./message-table-config";
import { THREAD_OWNER_SOURCES, type ThreadOwnerSource } from "./thread-owner-source";

/** What a setting's value must be. */
export type SettingType =
  | { kind: "url"; protocols: readonly string[] }
  | { kind: "integer"; min: number; max: number }
  | { kind: "count" }
  | { kind: "choice"; choices: readonly string[] }
  | { kind: "switch" }
  | { kind: "text" };

/** Who reads a setting: the digest worker (`context-cleaner worker`, the digest function) or the sweep. */
export type SettingReader = "worker" | "sweep";

/** One row of the settings table. */
export interface SettingRow {
  /** The environment variable: the name the Lambda functions and the command line read. */
  readonly env: string;
  /** The command line's flag, without `--`. */
  readonly flag?: string;
  /** Other flags of the same setting (older spellings the commands still take). */
  readonly aliases?: readonly string[];
  readonly type: SettingType;
  /** The default, as documented. */
  readonly default: string;
  /** A credential: never echoed, read from the functions' secrets rather than their environment. */
  readonly secret: boolean;
  /** How `sst.config.ts` passes it to the functions: from the deploying shell, from a stage secret, or not. */
  readonly deployed: "shell" | "stage secret" | false;
  readonly readBy: readonly SettingReader[];
  readonly about: string;
}

const HTTP = { kind: "url", protocols: ["http:", "https:"] } as const;
const POSTGRES = { kind: "url", protocols: ["postgres:", "postgresql:"] } as const;
const TEXT = { kind: "text" } as const;
const BOTH = ["worker", "sweep"] as const;
const WORKER = ["worker"] as const;
const SWEEP = ["sweep"] as const;

/** Defaults of {@link WorkerSettings}, as the digest function is deployed. */
export const WORKER_DEFAULTS = {
  batchSize: 10,
  waitTimeSeconds: 20,
  functionTimeoutSeconds: 300,
  concurrency: 1,
  region: "us-east-1",
} as const;

/**
 * Every setting of the worker and the sweep, one row each: the command line's flags and
 * usage, the Lambda functions' environment and secrets, docs/operate.md's table and the list
 * `sst.config.ts` passes all come from here, and {@link readWorkerSettings} and
 * {@link readSweepSettings} read them with the same checks wherever they run.
 */
export const SETTINGS = {
  queueUrl: {
    env: "DIGEST_QUEUE_URL",
    flag: "queue-url",
    type: HTTP,
    default: "required (the functions: the linked queue)",
    secret: false,
    deployed: false,
    readBy: BOTH,
    about: "the FIFO digest queue",
  },
  deadLetterQueueUrl: {
    env: "DIGEST_DLQ_URL",
    flag: "dlq-url",
    type: HTTP,
    default:
      "none: a poison record is logged, counted and dropped (the functions: the linked dead-letter queue)",
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "its dead-letter queue; poison records and jobs that failed for good go there with their reason",
  },
  endpoint: {
    env: "AWS_ENDPOINT_URL_SQS",
    flag: "endpoint",
    type: HTTP,
    default: "AWS's",
    secret: false,
    deployed: false,
    readBy: BOTH,
    about: "an SQS-compatible endpoint (fauxqs, LocalStack, ElasticMQ)",
  },
  region: {
    env: "AWS_REGION",
    flag: "region",
    type: TEXT,
    default: `the queue URL's region, else \`${WORKER_DEFAULTS.region}\``,
    secret: false,
    deployed: false,
    readBy: BOTH,
    about: "the queue's AWS region",
  },
  databaseUrl: {
    env: "DATABASE_URL",
    flag: "database-url",
    aliases: ["database"],
    type: POSTGRES,
    default: "required",
    secret: true,
    deployed: false,
    readBy: BOTH,
    about: "the digest database, migrated (`postgres://`: RDS, a container, Neon)",
  },
  databaseDriver: {
    env: "CONTEXT_CLEANER_DB_DRIVER",
    flag: "database-driver",
    type: { kind: "choice", choices: DATABASE_DRIVER_CHOICES },
    default: "by URL: `neon` for `*.neon.tech`, `pg` otherwise",
    secret: false,
    deployed: false,
    readBy: BOTH,
    about: "`neon` or `pg`",
  },
  checkpointDatabaseUrl: {
    env: "CHECKPOINT_DATABASE_URL",
    flag: "checkpoint-database-url",
    aliases: ["checkpoints"],
    type: POSTGRES,
    default: "required by the worker; without it the sweep looks for no lost events",
    secret: true,
    deployed: false,
    readBy: BOTH,
    about: "the checkpoint store, as a SELECT-only role",
  },
  checkpointSchema: {
    env: "CHECKPOINT_SCHEMA",
    flag: "checkpoint-schema",
    type: TEXT,
    default: "`public`",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "the schema of LangGraph's checkpoint tables",
  },
  orgMetadataKey: {
    env: "CHECKPOINT_ORG_METADATA_KEY",
    flag: "org-key",
    type: TEXT,
    default: "`org_id`",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "the checkpoint-metadata key holding the org",
  },
  threadOwner: {
    env: "THREAD_OWNER_SOURCE",
    flag: "thread-owner",
    type: { kind: "choice", choices: THREAD_OWNER_SOURCES },
    default: "`checkpoint` (or `table`)",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "where a thread's owning org is read",
  },
  batchSize: {
    env: "CONTEXT_CLEANER_BATCH_SIZE",
    flag: "batch-size",
    type: { kind: "integer", min: 1, max: 10 },
    default: `${WORKER_DEFAULTS.batchSize} (1–10), as the subscription`,
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "records per receive",
  },
  waitTimeSeconds: {
    env: "CONTEXT_CLEANER_WAIT_TIME_SECONDS",
    flag: "wait-time",
    type: { kind: "integer", min: 0, max: 20 },
    default: `${WORKER_DEFAULTS.waitTimeSeconds} (0–20 s of long polling)`,
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "how long an empty receive waits",
  },
  visibilityTimeoutSeconds: {
    env: "CONTEXT_CLEANER_VISIBILITY_TIMEOUT_SECONDS",
    flag: "visibility-timeout",
    type: { kind: "integer", min: 1, max: 43_200 },
    default: "the queue's; at least the function timeout",
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "seconds a received batch stays invisible",
  },
  functionTimeoutSeconds: {
    env: "CONTEXT_CLEANER_FUNCTION_TIMEOUT_SECONDS",
    flag: "function-timeout",
    type: { kind: "integer", min: 1, max: 900 },
    default: `${WORKER_DEFAULTS.functionTimeoutSeconds}, the digest function's timeout`,
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "each batch's deadline",
  },
  concurrency: {
    env: "CONTEXT_CLEANER_CONCURRENCY",
    flag: "concurrency",
    type: { kind: "integer", min: 1, max: 100 },
    default: `${WORKER_DEFAULTS.concurrency} batch at a time (the batches of one process share its connection pools)`,
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "batches run at once",
  },
  messageTable: {
    env: MESSAGE_TABLE_ENVIRONMENT.table,
    type: TEXT,
    default: "none: LangGraph's checkpoint tables",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "the app's message table or view (`name` or `schema.name`), read instead",
  },
  messageThreadIdColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.threadIdColumn,
    type: TEXT,
    default: "`thread_id`",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "its thread id column",
  },
  messagesColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.messagesColumn,
    type: TEXT,
    default: "`messages`",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "its messages column",
  },
  messagesFormat: {
    env: MESSAGE_TABLE_ENVIRONMENT.format,
    type: TEXT,
    default: "detected per row",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "`neutral`, `langchain`, `anthropic` or `openai`",
  },
  messageOrgIdColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.orgIdColumn,
    type: TEXT,
    default: "none; required with the `checkpoint` owner source",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "its org column",
  },
  messageUpdatedAtColumn: {
    env: MESSAGE_TABLE_ENVIRONMENT.updatedAtColumn,
    type: TEXT,
    default: "none: the sweep looks for no lost events",
    secret: false,
    deployed: "shell",
    readBy: BOTH,
    about: "its updated-at column (the sweep's directory reads it)",
  },
  digestModel: {
    env: "DIGEST_MODEL",
    type: { kind: "choice", choices: DIGEST_MODELS },
    default: "`anthropic` (or `openai-compatible`)",
    secret: false,
    deployed: "stage secret",
    readBy: WORKER,
    about: "the model digester",
  },
  anthropicApiKey: {
    env: "ANTHROPIC_API_KEY",
    type: TEXT,
    default: "none: extractive digests only",
    secret: true,
    deployed: false,
    readBy: WORKER,
    about: "the Anthropic digester's key",
  },
  anthropicBaseUrl: {
    env: "ANTHROPIC_BASE_URL",
    type: HTTP,
    default: "Anthropic's",
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "another Anthropic Messages endpoint",
  },
  openAiCompatibleBaseUrl: {
    env: OPENAI_COMPATIBLE_SETTINGS.baseURL,
    type: HTTP,
    default: "required with `DIGEST_MODEL=openai-compatible`",
    secret: false,
    deployed: "stage secret",
    readBy: WORKER,
    about: "the Chat Completions server",
  },
  openAiCompatibleApiKey: {
    env: OPENAI_COMPATIBLE_SETTINGS.apiKey,
    type: TEXT,
    default: "required with `DIGEST_MODEL=openai-compatible`",
    secret: true,
    deployed: false,
    readBy: WORKER,
    about: "its key",
  },
  openAiCompatibleModel: {
    env: OPENAI_COMPATIBLE_SETTINGS.model,
    type: TEXT,
    default: "required with `DIGEST_MODEL=openai-compatible`",
    secret: false,
    deployed: "stage secret",
    readBy: WORKER,
    about: "its model",
  },
  openAiCompatibleOutputLimitField: {
    env: OPENAI_COMPATIBLE_SETTINGS.outputLimitField,
    type: TEXT,
    default: "`max_tokens` (or `max_completion_tokens`)",
    secret: false,
    deployed: "stage secret",
    readBy: WORKER,
    about: "the output limit's field",
  },
  openAiCompatiblePrices: {
    env: OPENAI_COMPATIBLE_SETTINGS.prices,
    type: TEXT,
    default: 'none: `"input,output[,cached input]"` in USD per million tokens',
    secret: false,
    deployed: "stage secret",
    readBy: WORKER,
    about: "its prices; without them calls cost 0",
  },
  redisUrl: {
    env: "REDIS_URL",
    flag: "redis-url",
    type: { kind: "url", protocols: ["redis:", "rediss:"] },
    default: "none: no turn-lock peek (or Upstash's; never both)",
    secret: true,
    deployed: false,
    readBy: WORKER,
    about:
      "the Redis the runtime's turn lock is in (ioredis, node-redis): the turn-lock peek over the Redis protocol",
  },
  upstashRedisUrl: {
    env: "UPSTASH_REDIS_REST_URL",
    type: HTTP,
    default: "none: no turn-lock peek",
    secret: true,
    deployed: false,
    readBy: WORKER,
    about: "with the token: the turn-lock peek over Upstash's REST API",
  },
  upstashRedisToken: {
    env: "UPSTASH_REDIS_REST_TOKEN",
    type: TEXT,
    default: "none: no turn-lock peek",
    secret: true,
    deployed: false,
    readBy: WORKER,
    about: "with the URL: the turn-lock peek",
  },
  readOriginal: {
    env: "CONTEXT_CLEANER_READ_ORIGINAL",
    type: { kind: "switch" },
    default:
      "off (`0`); `1` when the runtime gives the model `read_original`: time-varying output is digested too",
    secret: false,
    deployed: "shell",
    readBy: WORKER,
    about: "the runtime gives the model read_original",
  },
  disabled: {
    env: "CONTEXT_CLEANER_DISABLED",
    type: { kind: "switch" },
    default: "off (`0`); `1` is the kill switch, read per record",
    secret: false,
    deployed: false,
    readBy: WORKER,
    about: "the kill switch",
  },
  maxThreads: {
    env: "SWEEP_MAX_THREADS",
    flag: "max-threads",
    type: { kind: "count" },
    default: `${SWEEP_DEFAULTS.maxThreads.toLocaleString("en-US")} jobs a run`,
    secret: false,
    deployed: "shell",
    readBy: SWEEP,
    about: "the sweep's bound",
  },
  giveUpAfterNights: {
    env: "SWEEP_GIVE_UP_AFTER_NIGHTS",
    flag: "give-up-after-nights",
    type: { kind: "count" },
    default: `${SWEEP_DEFAULTS.giveUpAfterNights} nights`,
    secret: false,
    deployed: "shell",
    readBy: SWEEP,
    about: "nights a thread left behind is retried",
  },
  settleMinutes: {
    env: "SWEEP_SETTLE_MINUTES",
    flag: "settle-minutes",
    type: { kind: "integer", min: 0, max: 1_440 },
    default: `${SWEEP_DEFAULTS.settleMinutes} minutes`,
    secret: false,
    deployed: "shell",
    readBy: SWEEP,
    about: "passes and activity this recent are left alone (their own job may still be queued)",
  },
} as const satisfies Record<string, SettingRow>;

export type SettingName = keyof typeof SETTINGS;

/** Every row, in the table's order. */
export function settingRows(): readonly (SettingRow & { name: SettingName })[] {
  return (Object.entries(SETTINGS) as [SettingName, SettingRow][]).map(([name, row]) => ({ ...row, name }));
}

/** Where a reader takes the values from, and how its errors name a setting. */
export interface SettingSources {
  /** The environment (and, for a function, its secrets under their variable names). */
  environment: Readonly<Record<string, string | undefined>>;
  /** The command line's flag values by flag name; none for a function. */
  flags?: Readonly<Record<string, string | undefined>>;
}

/** A setting as an error names it: `--flag (or ENV)` on the command line, `ENV` in a function. */
function describeSetting(row: SettingRow, sources: SettingSources): string {
  return sources.flags && row.flag ? `--${row.flag} (or ${row.env})` : row.env;
}

/** The raw value of a setting: its flag (or an alias), else its variable; empty counts as unset. */
function rawValue(row: SettingRow, sources: SettingSources): string | undefined {
  const flags = sources.flags ?? {};
  const flagged = [row.flag, ...(row.aliases ?? [])].map((flag) => (flag ? flags[flag] : undefined));
  const value = flagged.find((found) => found !== undefined) ?? sources.environment[row.env];
  return value === undefined || value === "" ? undefined : value;
}

/** A value checked against its row's type. @throws {UsageError} naming the setting. */
function checked(row: SettingRow, value: string, sources: SettingSources): string | number {
  const name = describeSetting(row, sources);
  const type = row.type;
  switch (type.kind) {
    case "url":
      return checkedUrl(name, value, type.protocols, row.secret);
    case "integer": {
      const number = Number(value);
      if (value.trim() === "" || !Number.isInteger(number) || number < type.min || number > type.max)
        throw new UsageError(
          `${name} must be an integer from ${type.min} to ${type.max}, got ${JSON.stringify(value)}`,
        );
      return number;
    }
    case "count": {
      const count = parsePositiveInteger(value);
      if (count === undefined)
        throw new UsageError(`${name} must be a whole number of at least 1, got ${JSON.stringify(value)}`);
      return count;
    }
    case "choice":
    case "switch": {
      const choices = type.kind === "switch" ? ["1", "0"] : type.choices;
      if (!choices.includes(value))
        throw new UsageError(`${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(value)}`);
      return value;
    }
    case "text":
      return value;
  }
}

function checkedUrl(name: string, value: string, protocols: readonly string[], secret: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // A secret is never echoed, even redacted; another setting is, without its credentials.
    throw new UsageError(
      secret
        ? `${name} is not a URL (its value is a secret: not shown)`
        : `${name} is not a URL: ${JSON.stringify(redactSecrets(value))}`,
    );
  }
  if (!protocols.includes(url.protocol)) {
    throw new UsageError(
      `${name} must be a ${protocols.map((protocol) => `${protocol}//`).join(" or ")} URL, got ${url.protocol}//…`,
    );
  }
  return value;
}

/** Reads settings from `sources`, each checked as its row says. */
export interface SettingReaderOf {
  text(name: SettingName): string | undefined;
  number(name: SettingName): number | undefined;
  required(name: SettingName): string;
  sources: SettingSources;
}

function readerOf(sources: SettingSources, command: string): SettingReaderOf {
  const value = (name: SettingName) => {
    const row: SettingRow = SETTINGS[name];
    const raw = rawValue(row, sources);
    return raw === undefined ? undefined : checked(row, raw, sources);
  };
  return {
    sources,
    text: (name) => value(name) as string | undefined,
    number: (name) => value(name) as number | undefined,
    required(name) {
      const found = value(name);
      if (found === undefined)
        throw new UsageError(`${command} needs ${describeSetting(SETTINGS[name], sources)}`);
      return String(found);
    },
  };
}

/** The command line's flags of a reader, for `parseArgs`. */
export function settingFlags(reader: SettingReader): Record<string, { type: "string" }> {
  const options: Record<string, { type: "string" }> = {};
  for (const row of settingRows()) {
    if (!row.readBy.includes(reader)) continue;
    for (const flag of [row.flag, ...(row.aliases ?? [])]) if (flag) options[flag] = { type: "string" };
  }
  return options;
}

/** The usage lines of a reader's settings: flag and variable, default. */
export function settingsUsage(reader: SettingReader): string {
  return settingRows()
    .filter((row) => row.readBy.includes(reader))
    .map((row) => {
      const names = row.flag ? `--${row.flag} / ${row.env}` : row.env;
      return `  ${names.padEnd(62)} ${row.about}; default ${row.default.replaceAll("`", "")}`;
    })
    .join("\n");
}

/** A setting's type as docs/operate.md's table says it. */
function typeText(type: SettingType): string {
  switch (type.kind) {
    case "url":
      return `URL (${type.protocols.map((protocol) => protocol.replace(":", "")).join(", ")})`;
    case "integer":
      return `integer, ${type.min}–${type.max}`;
    case "count":
      return "whole number ≥ 1";
    case "choice":
      return `one of ${type.choices.map((choice) => `\`${choice}\``).join(", ")}`;
    case "switch":
      return "`1` or `0`";
    case "text":
      return "text";
  }
}

/** docs/operate.md's table of settings, generated from {@link SETTINGS}. */
export function settingsTableMarkdown(): string {
  const readers = (row: SettingRow) => row.readBy.join(", ");
  const lines = [
    "| flag | variable | what | type | default | secret | passed by `sst.config.ts` | read by |",
    "|---|---|---|---|---|---|---|---|",
    ...settingRows().map(
      (row) =>
        `| ${row.flag ? `\`--${row.flag}\`` : ""} | \`${row.env}\` | ${row.about} | ${typeText(row.type)} | ${row.default} | ${row.secret ? "yes" : "no"} | ${row.deployed ? `from the ${row.deployed}` : "no"} | ${readers(row)} |`,
    ),
  ];
  return lines.join("\n");
}

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
  threadOwner?: ThreadOwnerSource;
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
  /** The turn-lock peek over Upstash's REST API. */
  redis?: { url: string; token: string };
  /** The turn-lock peek over the Redis protocol (`redis://`, `rediss://`); never with `redis`. */
  redisUrl?: string;
  /** The runtime gives the model `read_original`: time-varying output may be digested. */
  readOriginal?: true;
}

/** The region of an AWS SQS queue URL (`https://sqs.<region>.amazonaws.com/…`). */
function regionOfQueueUrl(queueUrl: string): string | undefined {
  return /^sqs[.-]([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(queueUrl).hostname)?.[1];
}

/** `{ [key]: value }` when the value is set, else nothing: for spreading optional settings. */
function some<K extends string, V>(key: K, value: V | undefined): Partial<Record<K, V>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, V>);
}

/**
 * The digest worker's settings (`context-cleaner worker`, the digest function), each
 * checked as its row of {@link SETTINGS} says, then together: the visibility timeout
 * covers the function timeout, the turn-lock peek reads one Redis (Upstash with both its URL
 * and token), the message table names
 * its org column when owners are read from it, the OpenAI-compatible digester is complete.
 * Nothing is opened.
 *
 * @throws {UsageError} naming the setting that is missing or invalid, and how to give it.
 */
export function readWorkerSettings(sources: SettingSources, command = "worker"): WorkerSettings {
  const read = readerOf(sources, command);
  const queueUrl = read.required("queueUrl");
  const functionTimeoutSeconds =
    read.number("functionTimeoutSeconds") ?? WORKER_DEFAULTS.functionTimeoutSeconds;
  const visibilityTimeoutSeconds = read.number("visibilityTimeoutSeconds");
  if (visibilityTimeoutSeconds !== undefined && visibilityTimeoutSeconds < functionTimeoutSeconds) {
    throw new UsageError(
      `${describeSetting(SETTINGS.visibilityTimeoutSeconds, sources)} (${visibilityTimeoutSeconds} s) must be at least the function timeout (${functionTimeoutSeconds} s): a batch still running would be delivered again`,
    );
  }
  const digestModel = read.text("digestModel") as DigestModelChoice | undefined;
  const readOriginal = read.text("readOriginal") === "1";
  // Read per record later; a value that is neither 1 nor 0 is refused now rather than read as off.
  read.text("disabled");
  return {
    queueUrl,
    ...some("deadLetterQueueUrl", read.text("deadLetterQueueUrl")),
    ...some("endpoint", read.text("endpoint")),
    region: read.text("region") ?? regionOfQueueUrl(queueUrl) ?? WORKER_DEFAULTS.region,
    ...storageSettings(read),
    checkpointDatabaseUrl: read.required("checkpointDatabaseUrl"),
    batchSize: read.number("batchSize") ?? WORKER_DEFAULTS.batchSize,
    waitTimeSeconds: read.number("waitTimeSeconds") ?? WORKER_DEFAULTS.waitTimeSeconds,
    ...some("visibilityTimeoutSeconds", visibilityTimeoutSeconds),
    functionTimeoutMs: functionTimeoutSeconds * 1000,
    concurrency: read.number("concurrency") ?? WORKER_DEFAULTS.concurrency,
    ...messageTableSetting(read, { orgColumnRequired: true }),
    ...some("digestModel", digestModel),
    ...some("anthropicApiKey", read.text("anthropicApiKey")),
    ...some("anthropicBaseUrl", read.text("anthropicBaseUrl")),
    ...some(
      "openAiCompatible",
      digestModel === "openai-compatible" ? openAiCompatibleSetting(read) : undefined,
    ),
    ...turnLockSetting(read),
    ...(readOriginal ? { readOriginal } : {}),
  };
}

/** The settings of the application database and the checkpoint tables, shared by both readers. */
function storageSettings(read: SettingReaderOf) {
  return {
    databaseUrl: read.required("databaseUrl"),
    ...some("databaseDriver", read.text("databaseDriver") as WorkerSettings["databaseDriver"]),
    ...some("checkpointSchema", read.text("checkpointSchema")),
    ...some("orgMetadataKey", read.text("orgMetadataKey")),
    ...some("threadOwner", read.text("threadOwner") as ThreadOwnerSource | undefined),
  };
}

/**
 * The turn-lock peek's Redis: `REDIS_URL`, or Upstash's URL and token together, or none.
 * Both are refused rather than one chosen: the peek must read the one Redis the runtime's
 * lock is in, and a silent choice could read the other.
 */
function turnLockSetting(read: SettingReaderOf): Pick<WorkerSettings, "redis" | "redisUrl"> {
  const redisUrl = read.text("redisUrl");
  const url = read.text("upstashRedisUrl");
  const token = read.text("upstashRedisToken");
  if ((url === undefined) !== (token === undefined)) {
    throw new UsageError(
      "the turn-lock peek needs both UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or neither",
    );
  }
  if (redisUrl !== undefined && url !== undefined) {
    throw new UsageError(
      `the turn-lock peek reads one Redis, the one the runtime's lock is in: set ${describeSetting(SETTINGS.redisUrl, read.sources)} (a Redis the runtime reaches with ioredis or node-redis) or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (Upstash's REST API), not both`,
    );
  }
  if (redisUrl !== undefined) return { redisUrl };
  return url !== undefined && token !== undefined ? { redis: { url, token } } : {};
}

/**
 * The message table the `CHECKPOINT_*` variables name, its names checked as the reader
 * checks them, and (for the worker) an org column when owners are read from it.
 */
function messageTableSetting(
  read: SettingReaderOf,
  { orgColumnRequired }: { orgColumnRequired: boolean },
): { messageTable?: MessageTableConfig } {
  let messageTable: MessageTableConfig | undefined;
  try {
    messageTable = checkedMessageTableFromEnvironment(read.sources.environment);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const ownerSource = read.text("threadOwner") ?? "checkpoint";
  if (orgColumnRequired && messageTable && ownerSource === "checkpoint" && !messageTable.orgIdColumn) {
    throw new UsageError(
      `the message table names no org column (${MESSAGE_TABLE_ENVIRONMENT.orgIdColumn}): name it, or read owners from the owner table (THREAD_OWNER_SOURCE=table)`,
    );
  }
  return some("messageTable", messageTable);
}

/** The `OPENAI_COMPATIBLE_*` settings by name, checked as the digester checks them. */
function openAiCompatibleSetting(read: SettingReaderOf): Record<string, string> {
  const names = [
    "openAiCompatibleBaseUrl",
    "openAiCompatibleApiKey",
    "openAiCompatibleModel",
    "openAiCompatibleOutputLimitField",
    "openAiCompatiblePrices",
  ] as const;
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = read.text(name);
    if (value !== undefined) values[SETTINGS[name].env] = value;
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

/** The sweep's settings, checked. */
export interface SweepSettings {
  databaseUrl: string;
  databaseDriver?: (typeof DATABASE_DRIVER_CHOICES)[number];
  /** Without it, no lost events are looked for and no owner is read from checkpoints. */
  checkpointDatabaseUrl?: string;
  checkpointSchema?: string;
  orgMetadataKey?: string;
  threadOwner?: ThreadOwnerSource;
  messageTable?: MessageTableConfig;
  /** Required to send; a dry run needs none. */
  queueUrl?: string;
  endpoint?: string;
  region?: string;
  /** The run's bounds the settings override. */
  options: Pick<SweepOptions, "maxThreads" | "giveUpAfterNights" | "settleMinutes">;
}

/**
 * The sweep's settings (`context-cleaner sweep`, the nightly function), each checked as its
 * row of {@link SETTINGS} says. Nothing is opened.
 * @throws {UsageError} naming the setting that is missing or invalid.
 */
export function readSweepSettings(sources: SettingSources, command = "sweep"): SweepSettings {
  const read = readerOf(sources, command);
  const maxThreads = read.number("maxThreads");
  const giveUpAfterNights = read.number("giveUpAfterNights");
  const settleMinutes = read.number("settleMinutes");
  return {
    ...storageSettings(read),
    ...some("checkpointDatabaseUrl", read.text("checkpointDatabaseUrl")),
    ...messageTableSetting(read, { orgColumnRequired: false }),
    ...some("queueUrl", read.text("queueUrl")),
    ...some("endpoint", read.text("endpoint")),
    ...some("region", read.text("region")),
    options: {
      ...some("maxThreads", maxThreads),
      ...some("giveUpAfterNights", giveUpAfterNights),
      ...some("settleMinutes", settleMinutes),
    },
  };
}
