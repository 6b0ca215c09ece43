import { describe, expect, it } from "vitest";
import { turnLockRedisOf } from "./redis-clients";
import { holdTurnLock } from "./turn-lock";

// Fakes that answer as the real clients do, each in its own calling convention, and
// refuse the other conventions: a lock that sent Upstash-shaped arguments would fail.
function fakeIoRedis() {
  const values = new Map<string, string>();
  const calls: unknown[][] = [];
  return {
    values,
    calls,
    client: {
      status: "ready",
      defineCommand: () => undefined,
      async set(...args: unknown[]) {
        calls.push(["set", ...args]);
        const [key, value, ex, seconds, nx] = args;
        if (ex !== "EX" || typeof seconds !== "number" || nx !== "NX") throw new Error("ERR syntax error");
        if (values.has(key as string)) return null;
        values.set(key as string, value as string);
        return "OK";
      },
      async eval(...args: unknown[]) {
        calls.push(["eval", ...args]);
        const [, numKeys, key, token] = args;
        if (numKeys !== 1) throw new Error("ERR wrong number of keys");
        if (values.get(key as string) !== token) return 0;
        values.delete(key as string);
        return 1;
      },
    },
  };
}

function fakeNodeRedis() {
  const values = new Map<string, string>();
  const calls: unknown[][] = [];
  return {
    values,
    calls,
    client: {
      isOpen: true,
      sendCommand: async () => undefined,
      async set(key: string, value: string, options: { NX?: boolean; EX?: number }) {
        calls.push(["set", key, value, options]);
        if (options?.NX !== true || typeof options.EX !== "number") throw new Error("ERR syntax error");
        if (values.has(key)) return null;
        values.set(key, value);
        return "OK";
      },
      async eval(_script: string, options: { keys: string[]; arguments: string[] }) {
        calls.push(["eval", options]);
        const [key] = options.keys;
        if (key === undefined || values.get(key) !== options.arguments[0]) return 0;
        values.delete(key);
        return 1;
      },
    },
  };
}

describe("the turn lock on other Redis clients", () => {
  it("sends ioredis's positional SET … EX seconds NX and EVAL script numkeys key token", async () => {
    const { client, values, calls } = fakeIoRedis();
    const seen = await holdTurnLock("org_1", "thread_1", () => values.size, {
      redis: client,
      ttlSeconds: 60,
    });
    expect(seen).toBe(1);
    expect(values.size).toBe(0);
    expect(calls[0]).toEqual(["set", expect.any(String), expect.any(String), "EX", 60, "NX"]);
    expect(calls[1]?.slice(0, 2)).toEqual(["eval", expect.stringContaining('redis.call("GET", KEYS[1])')]);
    expect(calls[1]?.[2]).toBe(1);
  });

  it("sends node-redis's { NX, EX } and { keys, arguments }", async () => {
    const { client, values, calls } = fakeNodeRedis();
    const seen = await holdTurnLock("org_1", "thread_1", () => values.size, {
      redis: client,
      ttlSeconds: 45,
    });
    expect(seen).toBe(1);
    expect(values.size).toBe(0);
    expect(calls[0]?.[3]).toEqual({ NX: true, EX: 45 });
    expect(calls[1]?.[1]).toEqual({ keys: [expect.any(String)], arguments: [expect.any(String)] });
  });

  it("leaves an Upstash-shaped client as it is", () => {
    const upstash = { set: async () => "OK", eval: async () => 1 };
    expect(turnLockRedisOf(upstash)).toBe(upstash);
  });

  it("leaves the key of a turn that held it first, on every client", async () => {
    for (const fake of [fakeIoRedis(), fakeNodeRedis()]) {
      await holdTurnLock(
        "org_1",
        "thread_1",
        async () => {
          const before = [...fake.values.values()];
          await holdTurnLock("org_1", "thread_1", () => undefined, { redis: fake.client });
          expect([...fake.values.values()]).toEqual(before);
        },
        { redis: fake.client },
      );
      expect(fake.values.size).toBe(0);
    }
  });
});
