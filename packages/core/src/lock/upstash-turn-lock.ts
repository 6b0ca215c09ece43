import { createTurnLockPeek, type TurnLockPeekOptions } from "./turn-lock-peek";

export type { TurnLockPeekRedis } from "./turn-lock-peek";

export type UpstashTurnLockOptions = TurnLockPeekOptions;

/**
 * The worker's side of the turn lock over Upstash's REST API: whether the key the
 * runtime's `holdTurnLock` sets exists, asked through the `Redis` client of
 * `@upstash/redis`. Best effort: a Redis failure answers "not held" and the job proceeds,
 * since safety never depends on the lock; the failure goes to `onError`.
 */
export const createUpstashTurnLock: typeof createTurnLockPeek = createTurnLockPeek;
