import { turnLockKey } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { createUpstashTurnLock, type TurnLockPeekRedis } from "./upstash-turn-lock";

function fakeRedis(keys: string[]): TurnLockPeekRedis & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    asked,
    async exists(...requested) {
      asked.push(requested);
      return requested.filter((key) => keys.includes(key)).length;
    },
  };
}

describe("createUpstashTurnLock", () => {
  it("reports the lock held exactly when the runtime's key exists", async () => {
    const redis = fakeRedis([turnLockKey("org_1", "busy")]);
    const lock = createUpstashTurnLock(redis);
    expect(await lock.isHeld("org_1", "busy")).toBe(true);
    expect(await lock.isHeld("org_1", "idle")).toBe(false);
    expect(redis.asked).toEqual([[turnLockKey("org_1", "busy")], [turnLockKey("org_1", "idle")]]);
  });

  it("looks under the configured prefix", async () => {
    const redis = fakeRedis([turnLockKey("org_1", "t1", "app:")]);
    expect(await createUpstashTurnLock(redis, { keyPrefix: "app:" }).isHeld("org_1", "t1")).toBe(true);
    expect(await createUpstashTurnLock(redis).isHeld("org_1", "t1")).toBe(false);
  });

  it("answers not held when Redis fails, and reports the failure", async () => {
    const failure = new Error("ECONNREFUSED");
    const reported: unknown[] = [];
    const lock = createUpstashTurnLock(
      {
        exists: async () => {
          throw failure;
        },
      },
      { onError: (error, thread) => reported.push(error, thread) },
    );
    expect(await lock.isHeld("org_1", "t1")).toBe(false);
    expect(reported).toEqual([failure, { orgId: "org_1", threadId: "t1" }]);
  });

  it("still answers when the error sink throws", async () => {
    const lock = createUpstashTurnLock(
      {
        exists: async () => {
          throw new Error("down");
        },
      },
      {
        onError: () => {
          throw new Error("sink broken");
        },
      },
    );
    expect(await lock.isHeld("org_1", "t1")).toBe(false);
  });
});
