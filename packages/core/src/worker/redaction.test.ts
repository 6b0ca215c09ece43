import { inspect } from "node:util";
import { contextCleanerMiddleware } from "@context-cleaner/assembler/ai-sdk";
import { afterEach, describe, expect, it, vi } from "vitest";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
// The turn registry the LangChain adapters share; the runtime's default warning is its own.
import { TurnRegistry } from "../../../assembler/src/adapters/shared/turn-registry";
import { parseWorkerSettings } from "../cli/ops/worker-settings";
import { reportFailure } from "../cli/report-failure";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { createDigestHandler } from "./digest-handler";
import { lambdaContext } from "./lambda-context";
import { describeError, type FunctionIssue } from "./observability";
import { readSweepSettings, readWorkerSettings } from "./settings";
import { sqsEvent } from "./sqs-event";

/** A password with the characters that broke the old redaction: `/`, `+`. */
const PASSWORD = "Zq9/Xk2+pW7";
const TOKEN = "tok_9f8e7d6c5b4a";
const SQL = "select secret_column from thread_pass where org_id = $1";
const PARAMETER = "param-acme-42";

const REQUIRED = {
  DIGEST_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo",
  DATABASE_URL: "postgres://app@127.0.0.1:5432/app",
  CHECKPOINT_DATABASE_URL: "postgres://reader@127.0.0.1:5432/agent",
};

/** Every secret-bearing value a setting may hold, as each setting takes it. */
const SECRET_BEARING: Record<string, string>[] = [
  { DATABASE_URL: `postgres://app:${PASSWORD}@db.example:5432/app` },
  { DATABASE_URL: `postgresql://app:${PASSWORD}@db.example/app?sslmode=require` },
  { DATABASE_URL: `mysql://app:${PASSWORD}@db.example/app` },
  { CHECKPOINT_DATABASE_URL: `postgres://reader:${PASSWORD}@db.example:5432/agent` },
  { UPSTASH_REDIS_REST_URL: `https://default:${PASSWORD}@eu1.upstash.io`, UPSTASH_REDIS_REST_TOKEN: TOKEN },
  { UPSTASH_REDIS_REST_URL: `ftp://default:${PASSWORD}@eu1.upstash.io`, UPSTASH_REDIS_REST_TOKEN: TOKEN },
  { UPSTASH_REDIS_REST_URL: `https://eu1.upstash.io?token=${TOKEN}` },
  { REDIS_URL: `https://default:${PASSWORD}@redis.example:6379` },
  { REDIS_URL: `redis//default:${PASSWORD}@redis.example:6379` },
  {
    REDIS_URL: `rediss://default:${PASSWORD}@redis.example:6380`,
    UPSTASH_REDIS_REST_URL: "https://eu1.upstash.io",
    UPSTASH_REDIS_REST_TOKEN: TOKEN,
  },
  { ANTHROPIC_BASE_URL: `https://proxy:${PASSWORD}@llm.example/v1` },
  { DIGEST_QUEUE_URL: `https://user:${PASSWORD}@sqs.example/digest.fifo` },
];

/** A database error as the storage package throws it: the driver's error, with SQL and parameters, as its cause. */
function databaseError(): Error {
  const driver = Object.assign(new Error(`${SQL} -- parameters: ["${PARAMETER}"]`), {
    query: SQL,
    parameters: [PARAMETER],
  });
  return Object.assign(
    new Error(`query failed on postgres://app:${PASSWORD}@db.example/app (SQLSTATE 57P01)`, {
      cause: driver,
    }),
    { name: "DatabaseQueryError", code: "database_query_failed", retryable: true },
  );
}

function expectClean(text: string): void {
  expect(text).not.toContain(PASSWORD);
  expect(text).not.toContain(TOKEN);
  expect(text).not.toContain(SQL);
  expect(text).not.toContain(PARAMETER);
}

function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    return `${(error as Error).message}\n${reportFailure(error).line}`;
  }
  return "";
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("no message carries a password, a token or a query", () => {
  it.each(SECRET_BEARING.map((values) => [Object.keys(values)[0], values] as const))(
    "a refused %s, on the command line, in a function, in the sweep",
    (_name, values) => {
      const environment = { ...REQUIRED, ...values };
      const messages = [
        messageOf(() => parseWorkerSettings([], environment)),
        messageOf(() => readWorkerSettings({ environment }, "the digest function")),
        messageOf(() => readSweepSettings({ environment }, "the sweep function")),
        messageOf(() =>
          parseWorkerSettings(["--database-url", values.DATABASE_URL ?? REQUIRED.DATABASE_URL], environment),
        ),
      ];
      expect(messages.some((message) => message !== "")).toBe(true);
      for (const message of messages) expectClean(message);
    },
  );

  it("a logged error: its message redacted, its cause left out", () => {
    expectClean(JSON.stringify(describeError(databaseError())));
    expectClean(reportFailure(databaseError()).line);
    expectClean(reportFailure(new Error(`bug near postgres://app:${PASSWORD}@db/app`)).line);
  });

  it("a failed job: its log lines and the issue the console prints", async () => {
    const logger = recordingLogger();
    const issues: FunctionIssue[] = [];
    const store = createInMemoryDigestStore();
    const handler = createDigestHandler({
      ports: {
        checkpoints: {
          readThread: async () => {
            throw databaseError();
          },
        },
        store,
        digester: createExtractiveDigester(),
        clock: { now: () => new Date("2026-11-30T10:05:00Z") },
      },
      queue: { changeVisibility: async () => {} },
      logger,
      metrics: recordingMetrics(),
      issues: (issue) => issues.push(issue),
    });
    const body = JSON.stringify({
      orgId: "acme",
      threadId: "t",
      rawToolChars: 200_000,
      turnEndedAt: "2026-11-30T10:00:00.000Z",
    });
    await handler(
      sqsEvent([{ body, groupId: "acme:t" }]),
      lambdaContext({ functionName: "digest", timeoutMs: 300_000 }),
    );
    expect(logger.at("error")).toHaveLength(1);
    expectClean(JSON.stringify(logger.entries));
    expect(issues).toHaveLength(1);
    expectClean(inspect(issues[0], { depth: 10 }));
  });

  it("the runtime's default warnings for a failed digest load: the LangChain adapters' and the AI SDK middleware's", async () => {
    const warnings: unknown[][] = [];
    vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
      warnings.push(args);
    });
    const registry = new TurnRegistry({
      loadDigests: async () => {
        throw databaseError();
      },
      disabled: false,
    });
    await registry.digests({ threadId: "t", configurable: {}, context: undefined });
    const middleware = contextCleanerMiddleware({
      digests: async () => {
        throw databaseError();
      },
      options: { disabled: false },
    });
    const params = { prompt: [{ role: "user", content: [{ type: "text", text: "hi" }] }] };
    await middleware.transformParams?.({ params, type: "generate", model: {} } as never);
    expect(warnings).toHaveLength(2);
    for (const args of warnings) {
      expect(String(args[0])).toMatch(/^context-cleaner: /);
      expectClean(args.map((arg) => inspect(arg, { depth: 10 })).join(" "));
    }
  });
});
