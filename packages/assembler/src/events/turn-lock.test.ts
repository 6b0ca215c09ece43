import { describe, expect, it } from "vitest";
import { InvalidOptionError } from "../errors";
import type { TurnContext } from "../turn-ports";
import type { TurnLockRedis } from "./redis-clients";
import type { TurnEventLogger } from "./turn-event-publisher";
import { createRedisTurnLock, holdTurnLock, TURN_LOCK_DEFAULTS, turnLockKey } from "./turn-lock";

/**
 * An in-memory Redis answering the lock's two calls: SET NX EX, and the release script
 * (delete while the value is the caller's token). The services tier runs the real script.
 */
function fakeRedis(failures: { set?: () => Promise<unknown>; eval?: () => Promise<unknown> } = {}) {
  const values = new Map<string, string>();
  const calls: { command: string; args: unknown[] }[] = [];
  const redis: TurnLockRedis = {
    async set(key, value, options) {
      calls.push({ command: "set", args: [key, value, options] });
      if (failures.set) return failures.set();
      if (values.has(key)) return null;
      values.set(key, value);
      return "OK";
    },
    async eval(script, keys, args) {
      calls.push({ command: "eval", args: [script, keys, args] });
      if (failures.eval) return failures.eval();
      const [key] = keys;
      if (key !== undefined && values.get(key) === args[0]) {
        values.delete(key);
        return 1;
      }
      return 0;
    },
  };
  return { redis, values, calls };
}

function recordingLogger() {
  const warnings: string[] = [];
  const logger: TurnEventLogger = { warn: (message) => warnings.push(message) };
  return { logger, warnings };
}

const KEY = turnLockKey("org_1", "thread_1");

describe("turnLockKey", () => {
  it("puts the prefix before the URI-encoded ids", () => {
    expect(KEY).toBe("context-cleaner:turn-lock:org_1:thread_1");
    expect(turnLockKey("a:b", "c", "p:")).toBe("p:a%3Ab:c");
    expect(turnLockKey("a:b", "c")).not.toBe(turnLockKey("a", "b:c"));
  });

  it("keys an id with a lone surrogate by a hash instead of throwing, one key per pair", () => {
    const key = turnLockKey("org_1", "thread_\uD800");
    expect(key).toMatch(/^context-cleaner:turn-lock:[0-9a-f]{64}$/);
    expect(turnLockKey("org_1", "thread_\uDC00")).not.toBe(key);
    expect(turnLockKey("org_1", "thread_\uD800")).toBe(key);
  });

  it("holds and releases the lock of such a thread, the turn running as usual", async () => {
    const { redis, values } = fakeRedis();
    const key = turnLockKey("org_1", "thread_\uD800");
    const seen = await holdTurnLock("org_1", "thread_\uD800", async () => values.has(key), { redis });
    expect(seen).toBe(true);
    expect(values.has(key)).toBe(false);
  });
});

describe("holdTurnLock", () => {
  it("holds the key with a token and the TTL while the turn runs, and releases it after", async () => {
    const { redis, values, calls } = fakeRedis();
    let seen: string | undefined;

    const result = await holdTurnLock(
      "org_1",
      "thread_1",
      async () => {
        seen = values.get(KEY);
        return "reply";
      },
      { redis, ttlSeconds: 120 },
    );

    expect(result).toBe("reply");
    expect(seen).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0]?.args).toEqual([KEY, seen, { nx: true, ex: 120 }]);
    expect(values.has(KEY)).toBe(false);
  });

  it("uses the default TTL and a custom prefix", async () => {
    const { redis, calls } = fakeRedis();
    await holdTurnLock("org_1", "thread_1", () => 1, { redis, keyPrefix: "app:" });
    expect(calls[0]?.args[0]).toBe("app:org_1:thread_1");
    expect(calls[0]?.args[2]).toEqual({ nx: true, ex: TURN_LOCK_DEFAULTS.ttlSeconds });
  });

  it("runs a second turn of the same thread anyway and leaves the first turn's key alone", async () => {
    const { redis, values, calls } = fakeRedis();
    values.set(KEY, "first-turn");
    let ran = false;

    await holdTurnLock(
      "org_1",
      "thread_1",
      () => {
        ran = true;
      },
      { redis },
    );

    expect(ran).toBe(true);
    expect(values.get(KEY)).toBe("first-turn");
    expect(calls.map((call) => call.command)).toEqual(["set"]);
  });

  it("does not delete a key whose token changed during the turn (expired, taken by a later turn)", async () => {
    const { redis, values } = fakeRedis();
    await holdTurnLock(
      "org_1",
      "thread_1",
      () => {
        values.set(KEY, "later-turn");
      },
      { redis },
    );
    expect(values.get(KEY)).toBe("later-turn");
  });

  it("releases the key and rethrows when the turn fails", async () => {
    const { redis, values } = fakeRedis();
    await expect(
      holdTurnLock(
        "org_1",
        "thread_1",
        async () => {
          throw new Error("model call failed");
        },
        { redis },
      ),
    ).rejects.toThrow("model call failed");
    expect(values.has(KEY)).toBe(false);
  });

  it("runs the turn when Redis fails, logs it, and still tries the token-checked release", async () => {
    const { redis, calls } = fakeRedis({
      set: async () => {
        throw new Error("ECONNREFUSED");
      },
    });
    const { logger, warnings } = recordingLogger();

    expect(await holdTurnLock("org_1", "thread_1", () => "reply", { redis, logger })).toBe("reply");
    expect(warnings).toEqual([expect.stringContaining("not taken")]);
    expect(calls.map((call) => call.command)).toEqual(["set", "eval"]);
  });

  it("does not wait past the deadline for a Redis that does not answer", async () => {
    const { redis } = fakeRedis({ set: () => new Promise(() => {}), eval: () => new Promise(() => {}) });
    const { logger, warnings } = recordingLogger();

    expect(await holdTurnLock("org_1", "thread_1", () => "reply", { redis, logger, timeoutMs: 5 })).toBe(
      "reply",
    );
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toContain("not released");
  });

  it("returns the turn's result when the release fails", async () => {
    const { redis } = fakeRedis({
      eval: async () => {
        throw new Error("NOSCRIPT");
      },
    });
    const { logger, warnings } = recordingLogger();
    expect(await holdTurnLock("org_1", "thread_1", () => 7, { redis, logger })).toBe(7);
    expect(warnings).toEqual([expect.stringContaining("not released")]);
  });

  it("rejects a TTL or deadline that is not a positive integer", async () => {
    const { redis } = fakeRedis();
    await expect(holdTurnLock("o", "t", () => 1, { redis, ttlSeconds: 0 })).rejects.toThrow(
      InvalidOptionError,
    );
    await expect(holdTurnLock("o", "t", () => 1, { redis, timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
  });
});

describe("createRedisTurnLock", () => {
  const turn = (orgId: string): TurnContext => ({
    threadId: "thread_1",
    configurable: { thread_id: "thread_1", org_id: orgId },
    context: undefined,
  });
  const orgIdOf = (context: TurnContext) => String(context.configurable.org_id);

  it("sets the key of the turn's org and thread while the lease is held, and deletes it once on release", async () => {
    const { redis, values, calls } = fakeRedis();
    const lock = createRedisTurnLock({ redis, orgIdOf, ttlSeconds: 120 });
    const lease = await lock.acquire("thread_1", turn("org_1"));
    const token = values.get(KEY);
    expect(token).toMatch(/^[0-9a-f-]{36}$/);
    expect(calls[0]).toEqual({ command: "set", args: [KEY, token, { nx: true, ex: 120 }] });
    await lease.release();
    await lease.release();
    expect(values.has(KEY)).toBe(false);
    expect(calls.filter((call) => call.command === "eval")).toHaveLength(1);
  });

  it("leaves the key of an earlier turn of the same thread to that turn", async () => {
    const { redis, values } = fakeRedis();
    const lock = createRedisTurnLock({ redis, orgIdOf });
    const first = await lock.acquire("thread_1", turn("org_1"));
    const held = values.get(KEY);
    const second = await lock.acquire("thread_1", turn("org_1"));
    await second.release();
    expect(values.get(KEY)).toBe(held);
    await first.release();
    expect(values.has(KEY)).toBe(false);
  });

  it("keys each org apart", async () => {
    const { redis, values } = fakeRedis();
    const lock = createRedisTurnLock({ redis, orgIdOf, keyPrefix: "p:" });
    await lock.acquire("thread_1", turn("org_2"));
    expect([...values.keys()]).toEqual([turnLockKey("org_2", "thread_1", "p:")]);
  });

  it("never rejects for Redis: it logs, and the release still tries the token-checked delete", async () => {
    const { logger, warnings } = recordingLogger();
    const { redis, calls } = fakeRedis({
      set: () => Promise.reject(new Error("connection refused")),
      eval: () => Promise.reject(new Error("connection refused")),
    });
    const lease = await createRedisTurnLock({ redis, orgIdOf, logger }).acquire("thread_1", turn("org_1"));
    await lease.release();
    expect(warnings).toEqual([
      "context-cleaner: turn lock not taken; the turn runs without it",
      "context-cleaner: turn lock not released; it expires by itself",
    ]);
    expect(calls.map((call) => call.command)).toEqual(["set", "eval"]);
  });

  it("rejects a TTL or deadline that is not a positive integer when created", () => {
    const { redis } = fakeRedis();
    expect(() => createRedisTurnLock({ redis, orgIdOf, ttlSeconds: 0 })).toThrow(InvalidOptionError);
    expect(() => createRedisTurnLock({ redis, orgIdOf, timeoutMs: 1.5 })).toThrow(InvalidOptionError);
  });
});
