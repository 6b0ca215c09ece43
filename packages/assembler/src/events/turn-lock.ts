import { randomUUID } from "node:crypto";
import type { RuntimeTurnLock, TurnContext } from "../turn-ports";
import { checkInteger } from "../validate";
import { withDeadline } from "./deadline";
import { sha256Hex, uriEncoded } from "./message-ids";
import { type TurnLockRedisClient, turnLockRedisOf } from "./redis-clients";
import type { TurnEventLogger } from "./turn-event-publisher";

export interface HoldTurnLockOptions {
  /** `@upstash/redis`, `ioredis` or `redis` (node-redis), or any client with the two calls of `TurnLockRedis`. */
  redis: TurnLockRedisClient;
  /** @default "context-cleaner:turn-lock:" (the worker must use the same prefix) */
  keyPrefix?: string;
  /**
   * Expiry of the lock, so a crashed runtime cannot hold it for ever. A turn that runs
   * longer simply stops being seen as running. @default 900
   */
  ttlSeconds?: number;
  /** Deadline of each Redis call; past it the turn goes on without waiting. @default 1_000 */
  timeoutMs?: number;
  /** Where Redis failures are logged. @default console */
  logger?: TurnEventLogger;
}

export const TURN_LOCK_DEFAULTS = {
  keyPrefix: "context-cleaner:turn-lock:",
  ttlSeconds: 900,
  timeoutMs: 1_000,
} as const;

// Deletes the key only while it still holds this turn's token: a lock that expired and was
// taken by a later turn is left to that turn.
const RELEASE_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`;

/**
 * The Redis key of a thread's turn lock. Both ids are URI-encoded, so a `:` inside an org
 * id cannot make two threads share a key; an id that has no UTF-8 form (a lone surrogate)
 * is keyed by the sha256 hex of the pair instead, which has no `:`.
 */
export function turnLockKey(
  orgId: string,
  threadId: string,
  prefix: string = TURN_LOCK_DEFAULTS.keyPrefix,
): string {
  return `${prefix}${uriEncoded(orgId, threadId) ?? sha256Hex(["lock", orgId, threadId])}`;
}

/** A lock taken (or not) by {@link takeTurnLock}; releasing it twice is harmless. */
interface TakenLock {
  release(): Promise<void>;
}

/**
 * Sets the thread's key with a fresh token (`SET NX EX`); never throws. The release
 * deletes the key only while it holds that token, and is skipped when another turn held
 * the key first.
 */
async function takeTurnLock(
  orgId: string,
  threadId: string,
  options: HoldTurnLockOptions,
): Promise<TakenLock> {
  const ttlSeconds = checkInteger(options.ttlSeconds ?? TURN_LOCK_DEFAULTS.ttlSeconds, "ttlSeconds");
  const timeoutMs = checkInteger(options.timeoutMs ?? TURN_LOCK_DEFAULTS.timeoutMs, "timeoutMs");
  const logger = options.logger ?? console;
  const redis = turnLockRedisOf(options.redis);
  const key = turnLockKey(orgId, threadId, options.keyPrefix);
  const token = randomUUID();

  const report = (message: string, error: unknown) => {
    try {
      logger.warn(message, {
        orgId,
        threadId,
        error: error instanceof Error ? error.message : String(error),
      });
    } catch {
      // A broken logger must not fail the turn.
    }
  };

  // "taken": ours to release; "busy": another turn's; "unknown": the SET failed or timed
  // out and may still have landed, so releasing (token-checked) is both safe and needed.
  let lock: "taken" | "busy" | "unknown";
  try {
    const reply = await withDeadline("Redis SET", timeoutMs, () =>
      redis.set(key, token, { nx: true, ex: ttlSeconds }),
    );
    lock = reply === null ? "busy" : "taken";
  } catch (error) {
    report("context-cleaner: turn lock not taken; the turn runs without it", error);
    lock = "unknown";
  }
  let released = lock === "busy";
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await withDeadline("Redis EVAL", timeoutMs, () => redis.eval(RELEASE_SCRIPT, [key], [token]));
      } catch (error) {
        report("context-cleaner: turn lock not released; it expires by itself", error);
      }
    },
  };
}

/**
 * Runs one turn of an agent while a Redis key tells the digest worker that a turn is
 * running on the thread, so the worker requeues its job instead of reading the thread
 * mid-turn.
 *
 * The lock is a signal, not mutual exclusion, and the turn always runs:
 * - when another turn of the same thread already holds the key, this turn runs anyway
 *   (blocking a user's turn on a background optimisation would be wrong) and leaves the
 *   key to the turn that set it;
 * - when Redis fails or is slow, the failure is logged and the turn runs without the lock.
 *
 * Safety does not depend on the lock: a pass that does run mid-turn only adds digests of
 * messages that existed before, and a turn loads digests once, at its start.
 *
 * The key is released after `fn` settles, only if it still holds this turn's token.
 *
 * @returns what `fn` returns; rejects only with what `fn` throws.
 * @throws {InvalidOptionError} for a `ttlSeconds` or `timeoutMs` that is not a positive integer.
 */
export async function holdTurnLock<T>(
  orgId: string,
  threadId: string,
  fn: () => Promise<T> | T,
  options: HoldTurnLockOptions,
): Promise<T> {
  const lock = await takeTurnLock(orgId, threadId, options);
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}

export interface RedisTurnLockOptions extends HoldTurnLockOptions {
  /** The org a turn runs for, e.g. `orgIdOf` of `@context-cleaner/assembler/langchain` (it throws when `configurable.org_id` is unset). */
  orgIdOf(turn: TurnContext): string;
}

/**
 * The same Redis turn lock as {@link holdTurnLock}, as the `turnLock` a framework
 * integration takes (the LangChain `createAgent` middleware): `acquire` sets the
 * thread's key for the turn, and the lease's `release` deletes it while it still holds the
 * turn's token. It never throws for Redis: a failure is logged and the turn runs without it.
 *
 * @throws {InvalidOptionError} for a `ttlSeconds` or `timeoutMs` that is not a positive integer.
 */
export function createRedisTurnLock(options: RedisTurnLockOptions): RuntimeTurnLock {
  checkInteger(options.ttlSeconds ?? TURN_LOCK_DEFAULTS.ttlSeconds, "ttlSeconds");
  checkInteger(options.timeoutMs ?? TURN_LOCK_DEFAULTS.timeoutMs, "timeoutMs");
  return {
    acquire: (threadId, turn) => takeTurnLock(options.orgIdOf(turn), threadId, options),
  };
}
