import { describe, expect, it, vi } from "vitest";

// As for a worker installed without either turn-lock peek's package.
vi.mock("@upstash/redis", () => {
  throw new Error("Cannot find package '@upstash/redis'");
});
vi.mock("redis", () => {
  throw new Error("Cannot find package 'redis'");
});

describe("createDigestDependencies", () => {
  it("loads without @upstash/redis or redis: each client is loaded only when its Redis is configured", async () => {
    const module = await import("./digest-dependencies");
    expect(module.createDigestDependencies).toBeTypeOf("function");
  });

  it("refuses Upstash and a Redis URL together before opening anything", async () => {
    const { createDigestDependencies } = await import("./digest-dependencies");
    const refused = createDigestDependencies({
      databaseUrl: "postgres://app@127.0.0.1:1/app",
      checkpointDatabaseUrl: "postgres://reader@127.0.0.1:1/agent",
      redis: { url: "https://eu1.upstash.io", token: "token" },
      redisUrl: "redis://127.0.0.1:1",
      queueUrl: "http://127.0.0.1:1/000000000000/digest.fifo",
      sqs: { send: async () => ({}) },
      logger: { info: () => {}, warn: () => {}, error: () => {} },
      metrics: { record: () => {}, flush: () => {} },
      disabled: () => false,
    } as never);
    await expect(refused).rejects.toMatchObject({ name: "InvalidOptionError", field: "redisUrl" });
  });
});
