import { readFile } from "node:fs/promises";
import { SQSClient } from "@aws-sdk/client-sqs";
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import { describe, expect, it, vi } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../../checkpoints/in-memory-checkpoint-reader";
import { systemClock } from "../../clock";
import { createExtractiveDigester } from "../../digesters/extractive-digester";
import { UsageError } from "../../errors";
import type { CheckpointReader } from "../../ports";
import { createInProcessDigestQueue } from "../../queue/in-process-queue";
import { inProcessSqsClient } from "../../worker/in-process-sqs-client";
import { settingRows, settingsTableMarkdown } from "../../worker/settings";
import { digestConfigOf } from "../../worker/settings-config";
import { runOpsCommand } from ".";
import type { OpsContext } from "./ops-context";
import { jsonLineLogger, loggedMetrics, requireWorkerPackages, runWorker } from "./worker";
import type { OpenWorker } from "./worker-host";
import { parseWorkerSettings, type WorkerSettings } from "./worker-settings";

const storage = usePgliteRepository();

const REQUIRED = {
  DIGEST_QUEUE_URL: "http://127.0.0.1:4566/000000000000/digest.fifo",
  DATABASE_URL: "postgres://app@127.0.0.1:5432/app",
  CHECKPOINT_DATABASE_URL: "postgres://reader@127.0.0.1:5432/agent",
};

function capture(environment: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), environment },
    entries: () =>
      out
        .join("")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown> & { message: string; level: string }),
    stderr: () => err.join(""),
  };
}

describe("parseWorkerSettings", () => {
  it("reads the Lambda's variable names, with the deployed function's defaults", () => {
    const settings = parseWorkerSettings([], {
      ...REQUIRED,
      DIGEST_DLQ_URL: "http://127.0.0.1:4566/000000000000/dead.fifo",
      CHECKPOINT_SCHEMA: "agent",
      THREAD_OWNER_SOURCE: "table",
      CONTEXT_CLEANER_DB_DRIVER: "pg",
      UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079",
      UPSTASH_REDIS_REST_TOKEN: "token",
    });
    expect(settings).toEqual({
      queueUrl: REQUIRED.DIGEST_QUEUE_URL,
      deadLetterQueueUrl: "http://127.0.0.1:4566/000000000000/dead.fifo",
      region: "us-east-1",
      databaseUrl: REQUIRED.DATABASE_URL,
      databaseDriver: "pg",
      checkpointDatabaseUrl: REQUIRED.CHECKPOINT_DATABASE_URL,
      checkpointSchema: "agent",
      threadOwner: "table",
      batchSize: 10,
      waitTimeSeconds: 20,
      functionTimeoutMs: 300_000,
      concurrency: 1,
      redis: { url: "http://127.0.0.1:8079", token: "token" },
    });
  });

  it("reads the Redis the runtime's turn lock is in from --redis-url or REDIS_URL, the flag first", () => {
    expect(parseWorkerSettings([], { ...REQUIRED, REDIS_URL: "redis://:pw@127.0.0.1:6379/2" })).toMatchObject(
      {
        redisUrl: "redis://:pw@127.0.0.1:6379/2",
      },
    );
    const flagged = parseWorkerSettings(["--redis-url", "rediss://default:pw@cache.example:6380"], {
      ...REQUIRED,
      REDIS_URL: "redis://127.0.0.1:6379",
    });
    expect(flagged.redisUrl).toBe("rediss://default:pw@cache.example:6380");
    expect(flagged).not.toHaveProperty("redis");
    expect(parseWorkerSettings([], REQUIRED)).not.toHaveProperty("redisUrl");
  });

  it("refuses REDIS_URL beside Upstash's URL and token, naming both, and a Redis URL of another scheme without showing it", () => {
    const both = {
      ...REQUIRED,
      UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io",
      UPSTASH_REDIS_REST_TOKEN: "token",
    };
    expect(() => parseWorkerSettings(["--redis-url", "redis://127.0.0.1:6379"], both)).toThrow(
      "the turn-lock peek reads one Redis, the one the runtime's lock is in: set --redis-url (or REDIS_URL) (a Redis the runtime reaches with ioredis or node-redis) or UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN (Upstash's REST API), not both",
    );
    expect(() => parseWorkerSettings([], { ...both, REDIS_URL: "redis://127.0.0.1:6379" })).toThrow(
      UsageError,
    );
    expect(() =>
      parseWorkerSettings(["--redis-url", "https://default:s3cret@eu1.upstash.io"], REQUIRED),
    ).toThrow("--redis-url (or REDIS_URL) must be a redis:// or rediss:// URL, got https://…");
    expect(() => parseWorkerSettings(["--redis-url", "redis//:s3cret@host"], REQUIRED)).toThrow(
      "--redis-url (or REDIS_URL) is not a URL (its value is a secret: not shown)",
    );
  });

  it("lets a flag win over its variable, and takes the region from an AWS queue URL", () => {
    const settings = parseWorkerSettings(
      [
        "--queue-url",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo",
        "--batch-size",
        "3",
        "--wait-time",
        "0",
        "--concurrency",
        "4",
      ],
      { ...REQUIRED, CONTEXT_CLEANER_BATCH_SIZE: "7" },
    );
    expect(settings).toMatchObject({ region: "eu-west-1", batchSize: 3, waitTimeSeconds: 0, concurrency: 4 });
  });

  it.each([
    [{ ...REQUIRED, DIGEST_QUEUE_URL: undefined }, [], "worker needs --queue-url (or DIGEST_QUEUE_URL)"],
    [{ ...REQUIRED, DATABASE_URL: "" }, [], "worker needs --database-url (or DATABASE_URL)"],
    [
      { ...REQUIRED, CHECKPOINT_DATABASE_URL: undefined },
      [],
      "worker needs --checkpoint-database-url (or CHECKPOINT_DATABASE_URL)",
    ],
    [
      REQUIRED,
      ["--database-url", "pglite://"],
      "--database-url (or DATABASE_URL) must be a postgres:// or postgresql:// URL",
    ],
    [REQUIRED, ["--queue-url", "digest.fifo"], "--queue-url (or DIGEST_QUEUE_URL) is not a URL"],
    [
      REQUIRED,
      ["--batch-size", "11"],
      '--batch-size (or CONTEXT_CLEANER_BATCH_SIZE) must be an integer from 1 to 10, got "11"',
    ],
    [REQUIRED, ["--wait-time", "1.5"], "must be an integer from 0 to 20"],
    [{ ...REQUIRED, CONTEXT_CLEANER_DB_DRIVER: "mysql" }, [], 'must be one of neon, pg, got "mysql"'],
    [REQUIRED, ["--thread-owner", "metadata"], "must be one of checkpoint, table"],
    [REQUIRED, ["--visibility-timeout", "60"], "must be at least the function timeout (300 s)"],
    [{ ...REQUIRED, UPSTASH_REDIS_REST_URL: "http://127.0.0.1:8079" }, [], "both UPSTASH_REDIS_REST_URL and"],
    [REQUIRED, ["extra"], "worker takes no arguments"],
  ])("refuses %# with a line naming the setting", (environment, args, message) => {
    expect(() => parseWorkerSettings(args, environment)).toThrow(message);
  });

  it("reads the digest function's digester, message table and read_original settings", () => {
    const settings = parseWorkerSettings([], {
      ...REQUIRED,
      DIGEST_MODEL: "openai-compatible",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
      OPENAI_COMPATIBLE_API_KEY: "key",
      OPENAI_COMPATIBLE_MODEL: "qwen3:8b",
      OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "max_completion_tokens",
      OPENAI_COMPATIBLE_PRICES: "0.1,0.4",
      CHECKPOINT_MESSAGE_TABLE: "app.thread_messages",
      CHECKPOINT_THREAD_ID_COLUMN: "id",
      CHECKPOINT_ORG_ID_COLUMN: "org",
      CHECKPOINT_MESSAGES_FORMAT: "openai",
      CONTEXT_CLEANER_READ_ORIGINAL: "1",
    });
    expect(settings).toMatchObject({
      digestModel: "openai-compatible",
      openAiCompatible: {
        OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
        OPENAI_COMPATIBLE_API_KEY: "key",
        OPENAI_COMPATIBLE_MODEL: "qwen3:8b",
        OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "max_completion_tokens",
        OPENAI_COMPATIBLE_PRICES: "0.1,0.4",
      },
      messageTable: {
        table: "app.thread_messages",
        threadIdColumn: "id",
        orgIdColumn: "org",
        format: "openai",
      },
      readOriginal: true,
    });
    const plain = parseWorkerSettings([], { ...REQUIRED, CONTEXT_CLEANER_READ_ORIGINAL: "0" });
    for (const key of ["digestModel", "openAiCompatible", "messageTable", "readOriginal"])
      expect(plain).not.toHaveProperty(key);
    // The Anthropic choice reads no OpenAI-compatible settings, as the function does.
    expect(
      parseWorkerSettings([], { ...REQUIRED, DIGEST_MODEL: "anthropic", OPENAI_COMPATIBLE_PRICES: "x" }),
    ).not.toHaveProperty("openAiCompatible");
  });

  const OPENAI = {
    ...REQUIRED,
    DIGEST_MODEL: "openai-compatible",
    OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
    OPENAI_COMPATIBLE_API_KEY: "key",
    OPENAI_COMPATIBLE_MODEL: "qwen3:8b",
  };
  const TABLE = { ...REQUIRED, CHECKPOINT_MESSAGE_TABLE: "thread_messages", CHECKPOINT_ORG_ID_COLUMN: "org" };

  it.each([
    [
      { ...REQUIRED, DIGEST_MODEL: "gpt" },
      'DIGEST_MODEL must be one of anthropic, openai-compatible, got "gpt"',
    ],
    [{ ...OPENAI, OPENAI_COMPATIBLE_MODEL: "" }, "needs OPENAI_COMPATIBLE_MODEL"],
    [
      { ...OPENAI, OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "max_output" },
      "OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD must be max_tokens or max_completion_tokens",
    ],
    [{ ...OPENAI, OPENAI_COMPATIBLE_PRICES: "cheap" }, "OPENAI_COMPATIBLE_PRICES must be"],
    [
      { ...REQUIRED, CHECKPOINT_ORG_ID_COLUMN: "org" },
      "CHECKPOINT_ORG_ID_COLUMN set without CHECKPOINT_MESSAGE_TABLE",
    ],
    [{ ...TABLE, CHECKPOINT_MESSAGE_TABLE: "messages; drop" }, "CHECKPOINT_MESSAGE_TABLE must be name or"],
    [{ ...TABLE, CHECKPOINT_THREAD_ID_COLUMN: "thread-id" }, "CHECKPOINT_THREAD_ID_COLUMN must be a plain"],
    [{ ...TABLE, CHECKPOINT_MESSAGES_FORMAT: "xml" }, "CHECKPOINT_MESSAGES_FORMAT must be one of"],
    [{ ...TABLE, CHECKPOINT_ORG_ID_COLUMN: undefined }, "no org column (CHECKPOINT_ORG_ID_COLUMN)"],
    [
      { ...REQUIRED, CONTEXT_CLEANER_READ_ORIGINAL: "yes" },
      "CONTEXT_CLEANER_READ_ORIGINAL must be one of 1, 0",
    ],
  ])("refuses the function's setting %# with a line naming it", (environment, message) => {
    expect(() => parseWorkerSettings([], environment)).toThrow(UsageError);
    expect(() => parseWorkerSettings([], environment)).toThrow(message);
  });

  it("takes a message table without an org column when owners come from the owner table", () => {
    expect(
      parseWorkerSettings([], { ...REQUIRED, CHECKPOINT_MESSAGE_TABLE: "m", THREAD_OWNER_SOURCE: "table" }),
    ).toMatchObject({ messageTable: { table: "m" }, threadOwner: "table" });
  });

  it("does not show a database password in an error", () => {
    expect(() =>
      parseWorkerSettings([], { ...REQUIRED, DATABASE_URL: "postgres//app:s3cret@db:5432/app" }),
    ).toThrow(/is not a URL/);
    expect(() => parseWorkerSettings([], { ...REQUIRED, DATABASE_URL: "//app:s3cret@db" })).not.toThrow(
      /s3cret/,
    );
  });
});

describe("context-cleaner worker", () => {
  it("answers a missing or invalid setting with exit code 2 before opening anything", async () => {
    const run = capture({ ...REQUIRED, DIGEST_QUEUE_URL: undefined });
    const opened: string[] = [];
    const context = {
      io: run.io,
      openWorker: async () => {
        opened.push("worker");
        throw new Error("must not be opened");
      },
      shutdown: () => AbortSignal.abort(),
    } as unknown as OpsContext;
    expect(await runOpsCommand(["worker"], run.io, context)).toBe(2);
    expect(run.stderr()).toBe("context-cleaner: worker needs --queue-url (or DIGEST_QUEUE_URL)\n");
    expect(await runOpsCommand(["worker", "--batch-size", "0"], capture(REQUIRED).io, context)).toBe(2);
    expect(await runOpsCommand(["worker", "--no-such-flag"], capture(REQUIRED).io, context)).toBe(2);
    const badModel = capture({ ...REQUIRED, DIGEST_MODEL: "openai-compatible" });
    expect(await runOpsCommand(["worker"], badModel.io, { ...context, io: badModel.io })).toBe(2);
    expect(badModel.stderr()).toContain("OPENAI_COMPATIBLE_BASE_URL");
    const badTable = capture({ ...REQUIRED, CHECKPOINT_MESSAGES_COLUMN: "body" });
    expect(await runOpsCommand(["worker"], badTable.io, { ...context, io: badTable.io })).toBe(2);
    expect(badTable.stderr()).toContain("CHECKPOINT_MESSAGES_COLUMN set without CHECKPOINT_MESSAGE_TABLE");
    expect(opened).toEqual([]);
  });

  it("lists its settings under --help", async () => {
    const out: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: () => {}, environment: {} };
    expect(await runOpsCommand(["worker", "--help"], io, { io } as unknown as OpsContext)).toBe(0);
    for (const name of [
      "DIGEST_QUEUE_URL",
      "CONTEXT_CLEANER_DB_DRIVER",
      "AWS_ENDPOINT_URL_SQS",
      "--endpoint",
      "DIGEST_MODEL",
      "OPENAI_COMPATIBLE_PRICES",
      "CHECKPOINT_MESSAGE_TABLE",
      "CHECKPOINT_UPDATED_AT_COLUMN",
      "CONTEXT_CLEANER_READ_ORIGINAL",
    ])
      expect(out.join("")).toContain(name);
  });

  it("hands the digest function's settings to its dependencies as the function does", () => {
    const reporting = {
      logger: jsonLineLogger(() => {}, "test"),
      metrics: loggedMetrics({ info: () => {} }),
    };
    // Constructing a client sends nothing.
    const sqs = new SQSClient({ region: "us-east-1" });
    const settings = parseWorkerSettings([], {
      ...REQUIRED,
      DIGEST_MODEL: "openai-compatible",
      OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
      OPENAI_COMPATIBLE_API_KEY: "key",
      OPENAI_COMPATIBLE_MODEL: "qwen3:8b",
      CHECKPOINT_MESSAGE_TABLE: "thread_messages",
      CHECKPOINT_ORG_ID_COLUMN: "org",
      CONTEXT_CLEANER_READ_ORIGINAL: "1",
    });
    const config = digestConfigOf(settings, { ...reporting, environment: {} }, sqs);
    expect(config).toMatchObject({
      digestModel: "openai-compatible",
      openAiCompatible: { OPENAI_COMPATIBLE_MODEL: "qwen3:8b", OPENAI_COMPATIBLE_API_KEY: "key" },
      messageTable: { table: "thread_messages", orgIdColumn: "org" },
      jobOptions: { readOriginal: true },
      queueUrl: REQUIRED.DIGEST_QUEUE_URL,
      sqs,
    });
    const plain = digestConfigOf(parseWorkerSettings([], REQUIRED), { ...reporting, environment: {} }, sqs);
    expect(
      digestConfigOf(
        parseWorkerSettings(["--redis-url", "redis://127.0.0.1:6379"], REQUIRED),
        { ...reporting, environment: {} },
        sqs,
      ),
    ).toMatchObject({ redisUrl: "redis://127.0.0.1:6379" });
    for (const key of ["digestModel", "openAiCompatible", "messageTable", "jobOptions", "redis", "redisUrl"])
      expect(plain).not.toHaveProperty(key);
    expect(config.disabled()).toBe(false);
    expect(
      digestConfigOf(
        settings,
        { ...reporting, environment: { CONTEXT_CLEANER_DISABLED: "1" } },
        sqs,
      ).disabled(),
    ).toBe(true);
    sqs.destroy();
  });

  it("docs/operate.md's settings table is the one generated from the settings table", async () => {
    const doc = await readFile(new URL("../../../../../docs/operate.md", import.meta.url), "utf8");
    const start = doc.indexOf("<!-- settings-table:start -->");
    const end = doc.indexOf("<!-- settings-table:end -->");
    expect(start).toBeGreaterThan(0);
    expect(doc.slice(start, end).split("\n").slice(1, -1).join("\n")).toBe(settingsTableMarkdown());
  });

  it("lists every setting the worker reads under --help, from the settings table", async () => {
    const out: string[] = [];
    const io = { stdout: (text: string) => out.push(text), stderr: () => {}, environment: {} };
    expect(await runOpsCommand(["worker", "--help"], io, { io } as unknown as OpsContext)).toBe(0);
    for (const row of settingRows().filter((setting) => setting.readBy.includes("worker"))) {
      expect(out.join("")).toContain(row.flag ? `--${row.flag} / ${row.env}` : row.env);
    }
  });

  it("names every missing package with the command that installs it", async () => {
    const missing = (name: string) =>
      name === "pg" || name === "@upstash/redis"
        ? Promise.reject(
            Object.assign(new Error(`Cannot find package '${name}'`), { code: "ERR_MODULE_NOT_FOUND" }),
          )
        : Promise.resolve({});
    const redis = { redis: { url: "http://127.0.0.1:8079", token: "token" } };
    await expect(requireWorkerPackages(redis, missing)).rejects.toThrow(
      "the worker needs packages that are not installed: npm install pg @upstash/redis",
    );
    await expect(requireWorkerPackages(redis, () => Promise.resolve({}))).resolves.toBeUndefined();
  });

  it("needs redis (node-redis) for REDIS_URL, and no Upstash client then", async () => {
    const loaded: string[] = [];
    const withoutRedis = (name: string) => {
      loaded.push(name);
      return name === "redis"
        ? Promise.reject(
            Object.assign(new Error(`Cannot find package '${name}'`), { code: "ERR_MODULE_NOT_FOUND" }),
          )
        : Promise.resolve({});
    };
    await expect(requireWorkerPackages({ redisUrl: "redis://127.0.0.1:6379" }, withoutRedis)).rejects.toThrow(
      "the worker needs packages that are not installed: npm install redis",
    );
    expect(loaded).not.toContain("@upstash/redis");
    loaded.length = 0;
    await expect(requireWorkerPackages({}, withoutRedis)).resolves.toBeUndefined();
    expect(loaded).not.toContain("redis");
  });

  it("needs @upstash/redis only when Redis is configured", async () => {
    const loaded: string[] = [];
    const withoutRedis = (name: string) => {
      loaded.push(name);
      return name === "@upstash/redis"
        ? Promise.reject(
            Object.assign(new Error(`Cannot find package '${name}'`), { code: "ERR_MODULE_NOT_FOUND" }),
          )
        : Promise.resolve({});
    };
    await expect(requireWorkerPackages({}, withoutRedis)).resolves.toBeUndefined();
    expect(loaded).not.toContain("@upstash/redis");
  });
});

const THREAD = buildHeavyThread({
  name: "worker",
  seed: 11,
  titles: ["Ground Lease"],
  documentChars: 150_000,
  pageChars: 6_000,
  probesPerDocument: 3,
});

function settings(overrides: Partial<WorkerSettings> = {}): WorkerSettings {
  return { ...parseWorkerSettings([], REQUIRED), waitTimeSeconds: 0, ...overrides };
}

/** Over the job's trigger (120,000 chars of tool output), as a runtime would publish for a long thread. */
const RAW_TOOL_CHARS = 400_000;

/** Runs the worker over an in-process queue and the shared PGlite repository. */
function workerOver(options: {
  checkpoints: CheckpointReader;
  queue: ReturnType<typeof createInProcessDigestQueue>;
  onJobFinished?: (status: string) => void;
  /** Leave the handler's issue reporter to the worker. */
  defaultIssues?: boolean;
}) {
  const closed: string[] = [];
  const open: OpenWorker = async (_settings, { logger, metrics }) => ({
    queue: options.queue,
    dependencies: {
      ports: {
        checkpoints: options.checkpoints,
        store: storage.repository,
        digester: createExtractiveDigester(),
        clock: systemClock,
      },
      logger,
      metrics,
      ...(options.defaultIssues ? {} : { issues: () => {} }),
      jobOptions: { maxCallsPerJob: 100 },
      ...(options.onJobFinished
        ? { onJobFinished: (outcome) => options.onJobFinished?.(outcome.status) }
        : {}),
    },
    close: async () => {
      closed.push("closed");
    },
  });
  return { open, closed };
}

describe("runWorker", () => {
  it("delivers several turns of one thread in one batch, dead-letters a poison record, leaves a failed job to the queue, and stops at the signal", async () => {
    const clock = manualClock(new Date());
    const queue = createInProcessDigestQueue({ clock, visibilityTimeoutSeconds: 600 });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    const turns = ["2026-11-30T10:00:00Z", "2026-11-30T10:05:00Z", "2026-11-30T10:10:00Z"];
    for (const turnEndedAt of turns) {
      await events.publishTurnEnded({
        orgId: "acme",
        threadId: "lease",
        rawToolChars: RAW_TOOL_CHARS,
        turnEndedAt: new Date(turnEndedAt),
      });
    }
    await events.publishTurnEnded({
      orgId: "acme",
      threadId: "broken",
      rawToolChars: RAW_TOOL_CHARS,
      turnEndedAt: new Date(turns[0] as string),
    });
    await queue.send({ body: "not json", groupId: "poison", deduplicationId: "poison-1" });

    const lease = createInMemoryCheckpointReader(new Map([["lease", THREAD.messages]]));
    const checkpoints: CheckpointReader = {
      async readThread(threadId) {
        if (threadId === "broken") throw new Error("checkpoint store refused the read");
        return lease.readThread(threadId);
      },
    };
    const shutdown = new AbortController();
    const statuses: string[] = [];
    const { open, closed } = workerOver({
      checkpoints,
      queue,
      onJobFinished: (status) => {
        statuses.push(status);
        if (statuses.length === turns.length) setTimeout(() => shutdown.abort(), 50);
      },
    });
    const run = capture();
    const result = await runWorker(settings(), { io: run.io, shutdown: shutdown.signal, open });

    // One receive took all five records (three of one thread, in order): one invocation.
    expect(result.invocations).toBe(1);
    expect(closed).toEqual(["closed"]);
    const entries = run.entries();
    const messages = entries.map((entry) => entry.message);
    expect(messages[0]).toBe("worker started");
    expect(messages.at(-1)).toBe("worker stopped");
    expect(messages.filter((message) => message === "digest job finished")).toHaveLength(3);
    expect(messages).toContain("digest job failed: the queue retries it");
    expect(messages).toContain("poison record: not a valid turn event, for the dead letters");
    const metrics = entries.find((entry) => entry.message === "metrics")?.metrics as Record<string, number>;
    expect(metrics.FailedJobs).toBe(1);
    expect(metrics.PoisonRecords).toBe(1);

    // The thread's turns ran in order: the first digested it.
    expect(statuses[0]).toBe("done");
    expect((await storage.repository.loadThreadDigests("acme", "lease")).size).toBeGreaterThan(0);
    // The poison record is in the dead letters with its reason, gone from the queue.
    const dead = await queue.deadLetters.receive(10);
    expect(dead.map((message) => message.body)).toEqual(["not json"]);
    expect(dead[0]?.deadLetterReason).toContain("not JSON");
    // The failed job was not deleted: it comes back after its retry delay, received twice now.
    expect(await queue.receive(10)).toEqual([]);
    clock.advance(31_000);
    const again = await queue.receive(10);
    expect(again.map((message) => [JSON.parse(message.body).threadId, message.receiveCount])).toEqual([
      ["broken", 2],
    ]);
  });

  it("writes one JSON line for a failed record and a poison record, and no stack on stderr", async () => {
    const queue = createInProcessDigestQueue({ visibilityTimeoutSeconds: 600 });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    await events.publishTurnEnded({
      orgId: "acme",
      threadId: "broken",
      rawToolChars: RAW_TOOL_CHARS,
      turnEndedAt: new Date("2026-11-30T10:00:00Z"),
    });
    await queue.send({ body: "not json", groupId: "poison", deduplicationId: "poison-1" });
    const checkpoints: CheckpointReader = {
      async readThread() {
        throw new Error("checkpoint store refused the read");
      },
    };
    const { open } = workerOver({ checkpoints, queue, defaultIssues: true });
    const shutdown = new AbortController();
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const run = capture();
    let stackPrints: number;
    try {
      const stopping = runWorker(settings(), { io: run.io, shutdown: shutdown.signal, open });
      await vi.waitFor(() => expect(run.entries().some((entry) => entry.message === "metrics")).toBe(true));
      shutdown.abort();
      await stopping;
      stackPrints = errors.mock.calls.length;
    } finally {
      errors.mockRestore();
    }
    expect(stackPrints).toBe(0);
    expect(run.stderr()).toBe("");
    const lines = run.entries().filter((entry) => entry.level === "ERROR");
    expect(lines.map((entry) => entry.message)).toEqual([
      "digest job failed: the queue retries it",
      "poison record: not a valid turn event, for the dead letters",
    ]);
  });

  it("finishes the batch in progress at the signal, deletes it, and receives no more", async () => {
    const queue = createInProcessDigestQueue({ visibilityTimeoutSeconds: 600 });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    const publish = (threadId: string) =>
      events.publishTurnEnded({
        orgId: "acme",
        threadId,
        rawToolChars: RAW_TOOL_CHARS,
        turnEndedAt: new Date("2026-11-30T11:00:00Z"),
      });
    await publish("slow");
    const shutdown = new AbortController();
    let release: () => void = () => {};
    const reading = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reads = 0;
    const lease = createInMemoryCheckpointReader(new Map([["slow", THREAD.messages]]));
    const { open } = workerOver({
      queue,
      checkpoints: {
        async readThread(threadId) {
          reads += 1;
          // The signal comes while the job is reading its thread; then a new turn arrives.
          shutdown.abort();
          await publish("late");
          await reading;
          return lease.readThread(threadId);
        },
      },
    });
    const run = capture();
    let stopped = false;
    const running = runWorker(settings({ concurrency: 2 }), {
      io: run.io,
      shutdown: shutdown.signal,
      open,
    }).then((result) => {
      stopped = true;
      return result;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(reads).toBe(1);
    expect(stopped).toBe(false);
    release();
    const result = await running;
    expect(result.invocations).toBe(1);
    expect(await storage.repository.getPass("acme", "slow")).toMatchObject({ status: "done" });
    // The finished record was deleted; the turn sent after the signal was never received.
    const left = await queue.receive(10);
    expect(left.map((message) => [JSON.parse(message.body).threadId, message.receiveCount])).toEqual([
      ["late", 1],
    ]);
    expect(run.entries().map((entry) => entry.message)).toContain(
      "worker stopping: no more receives, finishing the batches in progress",
    );
  });

  it("after the signal starts no new job: the batch's records not yet started go back at once, the running one finishes", async () => {
    const queue = createInProcessDigestQueue({ visibilityTimeoutSeconds: 600 });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    for (const threadId of ["first", "second", "third"]) {
      await events.publishTurnEnded({
        orgId: "acme",
        threadId,
        rawToolChars: RAW_TOOL_CHARS,
        turnEndedAt: new Date("2026-11-30T12:00:00Z"),
      });
    }
    const shutdown = new AbortController();
    const read: string[] = [];
    const lease = createInMemoryCheckpointReader(new Map([["first", THREAD.messages]]));
    const { open } = workerOver({
      queue,
      checkpoints: {
        async readThread(threadId) {
          read.push(threadId);
          // The signal comes while the first job of the batch reads its thread.
          shutdown.abort();
          return lease.readThread(threadId);
        },
      },
    });
    const run = capture();
    const result = await runWorker(settings(), { io: run.io, shutdown: shutdown.signal, open });
    expect(result.invocations).toBe(1);
    expect(read).toEqual(["first"]);
    expect(await storage.repository.getPass("acme", "first")).toMatchObject({ status: "done" });
    const back = await queue.receive(10);
    expect(back.map((message) => [JSON.parse(message.body).threadId, message.receiveCount])).toEqual([
      ["second", 2],
      ["third", 2],
    ]);
    const metrics = run.entries().find((entry) => entry.message === "metrics")?.metrics as Record<
      string,
      number
    >;
    expect(metrics.RecordsNotStarted).toBe(2);
  });
});
