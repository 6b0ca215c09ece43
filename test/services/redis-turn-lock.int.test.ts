/**
 * Services tier: the worker's turn-lock peek over the Redis protocol (`REDIS_URL`) against
 * the runtime's lock in the same real Redis, set through ioredis and through node-redis;
 * then `context-cleaner worker` as a process of its own, configured with `REDIS_URL`,
 * handing back a job whose thread has a turn running.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import {
  createRedisTurnLock,
  createTurnEventPublisher,
  holdTurnLock,
} from "@context-cleaner/assembler/events";
import { openRedisTurnLock } from "@context-cleaner/core/redis";
import { createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { Redis as IoRedis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { type FunctionServices, startFunctionServices, writeCheckpoint } from "../../functions/test/services";
import { heavyThread, rawToolChars } from "../../packages/core/test/fixtures/threads";
import { requireRedisUrl } from "./upstash-relay";
import { startWorker, type WorkerCommand } from "./worker-scenario";

const orgIdOf = (turn: { configurable: Readonly<Record<string, unknown>> }) =>
  String(turn.configurable.org_id);

/** The runtime's two Redis protocol clients, each as an app would hand it to `createRedisTurnLock`. */
const RUNTIME_CLIENTS = {
  ioredis: async (url: string) => {
    const client = new IoRedis(url, { maxRetriesPerRequest: 1 });
    return { client, close: async () => void client.disconnect() };
  },
  "node-redis": async (url: string) => {
    const client = createClient({ url });
    await client.connect();
    return { client, close: async () => void client.destroy() };
  },
} as const;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("the worker's peek over REDIS_URL, against the runtime's lock in the same Redis", () => {
  it.each(Object.keys(RUNTIME_CLIENTS) as (keyof typeof RUNTIME_CLIENTS)[])(
    "sees the lock createRedisTurnLock holds through %s as held, and free once released",
    async (name) => {
      const url = requireRedisUrl();
      const runtime = await RUNTIME_CLIENTS[name](url);
      onTestFinished(runtime.close);
      const peek = await openRedisTurnLock(url);
      onTestFinished(peek.close);
      const orgId = `org-${randomUUID()}`;
      const threadId = `thread-${randomUUID()}`;
      const lock = createRedisTurnLock({ redis: runtime.client, orgIdOf, logger: { warn: () => {} } });
      expect(await peek.isHeld(orgId, threadId)).toBe(false);
      const lease = await lock.acquire(threadId, {
        threadId,
        configurable: { org_id: orgId },
        context: undefined,
      });
      expect(await peek.isHeld(orgId, threadId)).toBe(true);
      expect(await peek.isHeld(orgId, `${threadId}-other`)).toBe(false);
      expect(await peek.isHeld(`${orgId}-other`, threadId)).toBe(false);
      await lease.release();
      expect(await peek.isHeld(orgId, threadId)).toBe(false);
    },
  );

  it("sees holdTurnLock's lock while the turn runs, under the runtime's own prefix", async () => {
    const url = requireRedisUrl();
    const runtime = await RUNTIME_CLIENTS.ioredis(url);
    onTestFinished(runtime.close);
    const peek = await openRedisTurnLock(url, { keyPrefix: "app:turn:" });
    onTestFinished(peek.close);
    const orgId = `org-${randomUUID()}`;
    const during = await holdTurnLock(orgId, "t1", () => peek.isHeld(orgId, "t1"), {
      redis: runtime.client,
      keyPrefix: "app:turn:",
    });
    expect(during).toBe(true);
    expect(await peek.isHeld(orgId, "t1")).toBe(false);
  });

  it("answers not held when nothing listens at REDIS_URL, and reports why", async () => {
    const errors: unknown[] = [];
    const peek = await openRedisTurnLock(`redis://127.0.0.1:${await closedPort()}`, {
      timeoutMs: 300,
      onError: (error) => errors.push(error),
    });
    onTestFinished(peek.close);
    expect(await peek.isHeld("org_1", "t1")).toBe(false);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("Redis not reachable");
    expect(String(errors[0])).toContain("ECONNREFUSED");
  });
});

/** The command from source, as the published bin runs its build. */
const FROM_SOURCE: WorkerCommand = {
  command: process.execPath,
  args: [
    "--conditions=@context-cleaner/source",
    "--import",
    "tsx",
    fileURLToPath(new URL("../../packages/core/src/bin/context-cleaner.ts", import.meta.url)),
  ],
  cwd: fileURLToPath(new URL("../..", import.meta.url)),
};

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 90_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe("context-cleaner worker with REDIS_URL", () => {
  let services: FunctionServices;
  let repository: DigestRepository;

  beforeAll(async () => {
    services = await startFunctionServices("redis-lock");
    repository = createDigestRepository(services.database);
  });

  afterAll(async () => {
    await services?.close();
  });

  it("hands back the job of a thread whose turn holds the runtime's lock, set through ioredis", async () => {
    const url = requireRedisUrl();
    const thread = heavyThread();
    const orgId = `org-${randomUUID()}`;
    const threadId = `busy-${randomUUID()}`;
    await writeCheckpoint(services.saver, { orgId, threadId, messages: thread.messages, at: new Date() });
    const runtime = await RUNTIME_CLIENTS.ioredis(url);
    onTestFinished(runtime.close);
    const lease = await createRedisTurnLock({ redis: runtime.client, orgIdOf }).acquire(threadId, {
      threadId,
      configurable: { org_id: orgId },
      context: undefined,
    });
    onTestFinished(lease.release);

    const worker = startWorker(
      FROM_SOURCE,
      ["--endpoint", new URL(services.queueUrl).origin, "--wait-time", "1", "--visibility-timeout", "600"],
      {
        DIGEST_QUEUE_URL: services.queueUrl,
        DATABASE_URL: services.databaseUrl,
        CONTEXT_CLEANER_DB_DRIVER: "pg",
        CHECKPOINT_DATABASE_URL: services.checkpointReaderUrl,
        CHECKPOINT_SCHEMA: services.checkpointSchema,
        REDIS_URL: url,
        AWS_REGION: "us-east-1",
      },
    );
    const entries = () =>
      worker
        .stdout()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { level: string; message: string; [key: string]: unknown });
    try {
      const started = await until("the worker to start", async () =>
        entries().find((entry) => entry.message === "worker started"),
      );
      expect(started.turnLockPeek).toBe("redis");
      const published = await createTurnEventPublisher({
        queueUrl: services.queueUrl,
        sqs: services.sqs,
        logger: { warn: () => {} },
      }).publishTurnEnded({
        orgId,
        threadId,
        rawToolChars: rawToolChars(thread.messages),
        turnEndedAt: new Date(),
      });
      expect(published.status).toBe("sent");
      const pass = await until(
        "the job's pass record",
        async () => (await repository.getPass(orgId, threadId)) ?? undefined,
      );
      expect(pass).toMatchObject({ status: "skipped", reason: "turn_lock" });
      expect((await repository.loadThreadDigests(orgId, threadId)).size).toBe(0);
    } finally {
      worker.child.kill("SIGTERM");
    }
    expect(await worker.exited).toBe(0);
    // The peek answered: no failure to reach Redis, and no error.
    expect(
      entries().filter(
        (entry) => entry.level === "ERROR" || entry.message.startsWith("turn-lock peek failed"),
      ),
    ).toEqual([]);
    expect(entries().at(-1)?.message).toBe("worker stopped");
  });
});
