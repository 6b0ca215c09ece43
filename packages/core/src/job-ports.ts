import type { DigestRepository } from "@context-cleaner/db";

/**
 * The storage port of the digest job: the storage package's repository satisfies it
 * (Neon, node-postgres or embedded PGlite behind it).
 */
export type DigestStore = Pick<
  DigestRepository,
  | "upsertDigests"
  | "loadThreadDigests"
  | "findReusableDigests"
  | "reserveSpend"
  | "settleSpend"
  | "recordPass"
  | "getPass"
>;

/**
 * Best-effort peek at whether a turn is running on a thread (DESIGN §8 step 4). Safety
 * never depends on it: a mid-turn pass only adds rows for pre-existing messages.
 */
export interface TurnLock {
  isHeld(orgId: string, threadId: string): Promise<boolean>;
}

/** A turn lock for embedded runs, where no turn runs beside the worker. */
export const NO_TURN_LOCK: TurnLock = { isHeld: async () => false };
