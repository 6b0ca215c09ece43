import { createServer, type Server } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis as UpstashRedis } from "@upstash/redis";
import { Redis as DirectRedis } from "ioredis";
import { createClient } from "redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { requireRedisUrl, startUpstashRelay, type UpstashRelay } from "#test/repo/services/upstash-relay";
import { holdTurnLock, turnLockKey } from "./turn-lock";

// The real @upstash/redis client, through a local REST relay, against a real Redis.
let relay: UpstashRelay;
let upstash: UpstashRedis;
let direct: DirectRedis;
const PREFIX = "test:turn-lock:";
const KEY = turnLockKey("org_1", "thread_1", PREFIX);

function recordingLogger() {
  const warnings: string[] = [];
  const errors: unknown[] = [];
  return {
    warnings,
    errors,
    logger: {
      warn: (message: string, attributes?: { error?: unknown }) => {
        warnings.push(message);
        errors.push(attributes?.error);
      },
    },
  };
}

beforeAll(async () => {
  const redisUrl = requireRedisUrl();
  relay = await startUpstashRelay(redisUrl);
  upstash = new UpstashRedis({ url: relay.url, token: relay.token, enableTelemetry: false });
  direct = new DirectRedis(redisUrl);
});

afterAll(async () => {
  direct?.disconnect();
  await relay?.close();
});

beforeEach(async () => {
  await direct.del(KEY);
});

describe("holdTurnLock on Redis through the Upstash client", () => {
  it("sets the key with this turn's token and the TTL while the turn runs, and deletes it after", async () => {
    let inside: { value: string | null; ttl: number } | undefined;
    const result = await holdTurnLock(
      "org_1",
      "thread_1",
      async () => {
        inside = { value: await direct.get(KEY), ttl: await direct.ttl(KEY) };
        return "reply";
      },
      { redis: upstash, keyPrefix: PREFIX, ttlSeconds: 60 },
    );
    expect(result).toBe("reply");
    expect(inside?.value).toMatch(/^[0-9a-f-]{36}$/);
    expect(inside?.ttl).toBeGreaterThan(50);
    expect(inside?.ttl).toBeLessThanOrEqual(60);
    expect(await direct.exists(KEY)).toBe(0);
  });

  it("lets a second turn of the thread run, and leaves the key to the first", async () => {
    const seen: (string | null)[] = [];
    await holdTurnLock(
      "org_1",
      "thread_1",
      async () => {
        const first = await direct.get(KEY);
        await holdTurnLock("org_1", "thread_1", async () => seen.push("second ran"), {
          redis: upstash,
          keyPrefix: PREFIX,
        });
        seen.push(first, await direct.get(KEY));
      },
      { redis: upstash, keyPrefix: PREFIX },
    );
    expect(seen[0]).toBe("second ran");
    expect(seen[2]).toBe(seen[1]);
    expect(await direct.exists(KEY)).toBe(0);
  });

  it("does not delete the key when another token took it meanwhile", async () => {
    await holdTurnLock("org_1", "thread_1", () => direct.set(KEY, "later-turn"), {
      redis: upstash,
      keyPrefix: PREFIX,
    });
    expect(await direct.get(KEY)).toBe("later-turn");
  });

  it("lets the key expire by its TTL when a turn outlives it", async () => {
    await holdTurnLock(
      "org_1",
      "thread_1",
      async () => {
        await sleep(1_200);
        expect(await direct.exists(KEY)).toBe(0);
        await direct.set(KEY, "next-turn");
      },
      { redis: upstash, keyPrefix: PREFIX, ttlSeconds: 1 },
    );
    expect(await direct.get(KEY)).toBe("next-turn");
  });

  it("runs the turn when Redis cannot be reached, each call cut off at the deadline rather than after the client's retries", async () => {
    const closed: Server = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = new UpstashRedis({
      url: `http://127.0.0.1:${port}`,
      token: "t",
      enableTelemetry: false,
    });
    const { logger, warnings, errors } = recordingLogger();
    let turns = 0;

    // The client retries a refused connection five times over about 4 s of backoff; the
    // deadline (300 ms) ends each call first, and the warnings say so.
    const result = await holdTurnLock(
      "org_1",
      "thread_1",
      () => {
        turns += 1;
        return "reply";
      },
      { redis: unreachable, timeoutMs: 300, logger },
    );

    expect(result).toBe("reply");
    expect(turns).toBe(1);
    expect(warnings).toEqual([expect.stringContaining("not taken"), expect.stringContaining("not released")]);
    expect(errors).toEqual([
      "Redis SET did not finish within 300 ms",
      "Redis EVAL did not finish within 300 ms",
    ]);
  });
});

describe("holdTurnLock on Redis through ioredis and node-redis", () => {
  it("takes and releases the key with the ioredis client itself", async () => {
    const during = await holdTurnLock(
      "org_1",
      "thread_1",
      async () => [await direct.get(KEY), await direct.ttl(KEY)],
      {
        redis: direct,
        keyPrefix: PREFIX,
        ttlSeconds: 120,
      },
    );
    expect(during[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(during[1])).toBeGreaterThan(100);
    expect(await direct.exists(KEY)).toBe(0);
  });

  it("takes and releases the key with the node-redis client itself, and leaves another turn's key", async () => {
    const nodeRedis = createClient({ url: requireRedisUrl() });
    await nodeRedis.connect();
    try {
      const during = await holdTurnLock("org_1", "thread_1", () => nodeRedis.get(KEY), {
        redis: nodeRedis,
        keyPrefix: PREFIX,
      });
      expect(during).toMatch(/^[0-9a-f-]{36}$/);
      expect(await direct.exists(KEY)).toBe(0);

      await direct.set(KEY, "another-turn");
      await holdTurnLock("org_1", "thread_1", () => undefined, { redis: nodeRedis, keyPrefix: PREFIX });
      expect(await direct.get(KEY)).toBe("another-turn");
    } finally {
      await nodeRedis.quit();
    }
  });
});
