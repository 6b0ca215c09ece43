import { TURN_LOCK_DEFAULTS, turnLockKey } from "@context-cleaner/assembler/events";
import type { TurnLock } from "../ports";

/**
 * The one Redis call the peek makes. The `Redis` client of `@upstash/redis` has it as it
 * is; the node-redis peek (`./redis`) gives it over its connection.
 */
export interface TurnLockPeekRedis {
  exists(...keys: string[]): Promise<number>;
}

export interface TurnLockPeekOptions {
  /** Must equal the runtime's `holdTurnLock` prefix. @default "context-cleaner:turn-lock:" */
  keyPrefix?: string;
  /** Told of each Redis failure (the peek then answers "not held"). Must not throw. */
  onError?: (error: unknown, thread: { orgId: string; threadId: string }) => void;
}

/**
 * The worker's side of the turn lock: whether the key the runtime's `holdTurnLock` (or
 * `createRedisTurnLock`) sets exists. The key is the runtime's own `turnLockKey`; its value
 * is the holding turn's token, which only the runtime reads, so a key that exists is a
 * turn running. Best effort: a Redis failure answers "not held" and the job proceeds,
 * since safety never depends on the lock; the failure goes to `onError`.
 */
export function createTurnLockPeek(redis: TurnLockPeekRedis, options: TurnLockPeekOptions = {}): TurnLock {
  const prefix = options.keyPrefix ?? TURN_LOCK_DEFAULTS.keyPrefix;
  return {
    async isHeld(orgId, threadId) {
      try {
        return (await redis.exists(turnLockKey(orgId, threadId, prefix))) > 0;
      } catch (error) {
        try {
          options.onError?.(error, { orgId, threadId });
        } catch {
          // A failing error sink must not fail the job either.
        }
        return false;
      }
    },
  };
}
