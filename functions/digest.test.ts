import { lambdaContext, sqsEvent } from "@context-cleaner/core/worker";
import { afterAll, describe, expect, it } from "vitest";

const SET = [
  "SST_RESOURCE_App",
  "SST_RESOURCE_AnthropicApiKey",
  "SST_RESOURCE_OpenAiCompatibleKey",
  "SST_RESOURCE_DatabaseUrl",
  "SST_RESOURCE_CheckpointDatabaseUrl",
  "SST_RESOURCE_RedisUrl",
  "SST_RESOURCE_UpstashRedisUrl",
  "SST_RESOURCE_UpstashRedisToken",
  "SST_RESOURCE_DigestQueue",
  "SST_RESOURCE_DigestDeadLetterQueue",
  "CONTEXT_CLEANER_DB_DRIVER",
  "UPSTASH_REDIS_REST_URL",
  "UPSTASH_REDIS_REST_TOKEN",
  "REDIS_URL",
];

afterAll(() => {
  for (const name of SET) delete process.env[name];
});

const secret = (value: string) => JSON.stringify({ type: "sst.sst.Secret", value });

describe("functions/digest handler (the edge)", () => {
  it("does no I/O when imported, and builds from SST's links on the first invocation", async () => {
    const { handler } = await import("./digest");
    // Linked as SST links them: env vars holding each resource's JSON.
    process.env.SST_RESOURCE_App = JSON.stringify({ name: "context-cleaner", stage: "test" });
    process.env.SST_RESOURCE_AnthropicApiKey = secret("");
    process.env.SST_RESOURCE_OpenAiCompatibleKey = secret("");
    process.env.SST_RESOURCE_DatabaseUrl = secret("postgres://app:hunter2@127.0.0.1:1/app");
    process.env.SST_RESOURCE_CheckpointDatabaseUrl = secret("postgres://reader@127.0.0.1:1/agent");
    process.env.SST_RESOURCE_RedisUrl = secret("");
    process.env.SST_RESOURCE_UpstashRedisUrl = secret("");
    process.env.SST_RESOURCE_UpstashRedisToken = secret("");
    process.env.SST_RESOURCE_DigestQueue = JSON.stringify({
      type: "sst.aws.Queue",
      url: "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo",
    });
    process.env.SST_RESOURCE_DigestDeadLetterQueue = JSON.stringify({
      type: "sst.aws.Queue",
      url: "https://sqs.eu-west-1.amazonaws.com/123456789012/digest-dlq.fifo",
    });
    const event = sqsEvent([{ body: "{}", groupId: "g" }]);
    const context = lambdaContext({ functionName: "digest", timeoutMs: 300_000 });
    // Nothing listens on port 1: the build fails on the database, naming it without the
    // password, and the invocation fails (its batch is retried).
    const error = await handler(event, context).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "DatabaseConnectionError", driver: "postgres", retryable: true });
    expect(String((error as Error).message)).not.toContain("hunter2");
  });

  it("opens the database with the driver CONTEXT_CLEANER_DB_DRIVER names, and refuses an unknown one", async () => {
    const { handler } = await import("./digest");
    const event = sqsEvent([{ body: "{}", groupId: "g" }]);
    const context = lambdaContext({ functionName: "digest", timeoutMs: 300_000 });
    // The same plain Postgres URL as above, through Neon's driver when forced.
    process.env.CONTEXT_CLEANER_DB_DRIVER = "neon";
    const forced = await handler(event, context).catch((caught: unknown) => caught);
    expect(forced).toMatchObject({ name: "DatabaseConnectionError", driver: "neon" });
    process.env.CONTEXT_CLEANER_DB_DRIVER = "mysql";
    const refused = await handler(event, context).catch((caught: unknown) => caught);
    expect(String((refused as Error).message)).toBe(
      'CONTEXT_CLEANER_DB_DRIVER must be one of neon, pg, got "mysql"',
    );
  });

  it("refuses what context-cleaner worker refuses: an Upstash URL without its token", async () => {
    const { handler } = await import("./digest");
    delete process.env.CONTEXT_CLEANER_DB_DRIVER;
    // Read from the function's environment by the same reader as its secrets.
    process.env.UPSTASH_REDIS_REST_URL = "https://redis.example";
    const event = sqsEvent([{ body: "{}", groupId: "g" }]);
    const context = lambdaContext({ functionName: "digest", timeoutMs: 300_000 });
    const refused = await handler(event, context).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ name: "UsageError" });
    expect(String((refused as Error).message)).toBe(
      "the turn-lock peek needs both UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN, or neither",
    );
  });

  it("refuses REDIS_URL beside Upstash's URL and token, as context-cleaner worker does", async () => {
    const { handler } = await import("./digest");
    process.env.UPSTASH_REDIS_REST_URL = "https://redis.example";
    process.env.UPSTASH_REDIS_REST_TOKEN = "token";
    process.env.REDIS_URL = "redis://default:hunter2@cache.example:6379";
    const event = sqsEvent([{ body: "{}", groupId: "g" }]);
    const context = lambdaContext({ functionName: "digest", timeoutMs: 300_000 });
    const refused = await handler(event, context).catch((caught: unknown) => caught);
    expect(refused).toMatchObject({ name: "UsageError" });
    expect(String((refused as Error).message)).toContain(
      "the turn-lock peek reads one Redis, the one the runtime's lock is in: set REDIS_URL",
    );
    expect(String((refused as Error).message)).not.toContain("hunter2");
  });
});
