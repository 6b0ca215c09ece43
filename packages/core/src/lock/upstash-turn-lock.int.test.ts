import { createRedisTurnLock, holdTurnLock } from "@context-cleaner/assembler/events";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireRedisUrl, startUpstashRelay, type UpstashRelay } from "#test/repo/services/upstash-relay";
import { createUpstashTurnLock } from "./upstash-turn-lock";

let relay: UpstashRelay;
let redis: Redis;

beforeAll(async () => {
  relay = await startUpstashRelay(requireRedisUrl());
  redis = new Redis({ url: relay.url, token: relay.token, enableTelemetry: false });
});

afterAll(async () => {
  await relay?.close();
});

describe("createUpstashTurnLock against the runtime's holdTurnLock", () => {
  it("sees the lock exactly while a turn holds it", async () => {
    const lock = createUpstashTurnLock(redis, { keyPrefix: "test:peek:" });
    const during = await holdTurnLock("org_1", "thread_7", () => lock.isHeld("org_1", "thread_7"), {
      redis,
      keyPrefix: "test:peek:",
    });
    expect(during).toBe(true);
    expect(await lock.isHeld("org_1", "thread_7")).toBe(false);
    expect(await lock.isHeld("org_1", "other-thread")).toBe(false);
  });

  it("sees the lock a framework integration holds through createRedisTurnLock", async () => {
    const lock = createUpstashTurnLock(redis, { keyPrefix: "test:lease:" });
    const runtime = createRedisTurnLock({
      redis,
      keyPrefix: "test:lease:",
      orgIdOf: (turn) => String(turn.configurable.org_id),
    });
    const lease = await runtime.acquire("thread_8", {
      threadId: "thread_8",
      configurable: { org_id: "org_1" },
      context: undefined,
    });
    expect(await lock.isHeld("org_1", "thread_8")).toBe(true);
    await lease.release();
    expect(await lock.isHeld("org_1", "thread_8")).toBe(false);
  });

  it("answers not held and reports the error when the token is refused", async () => {
    const errors: unknown[] = [];
    const wrongToken = new Redis({ url: relay.url, token: "wrong", enableTelemetry: false });
    const lock = createUpstashTurnLock(wrongToken, { onError: (error) => errors.push(error) });
    expect(await lock.isHeld("org_1", "thread_7")).toBe(false);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("Unauthorized");
  });
});
