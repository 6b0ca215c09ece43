import { checkInteger, withDeadline } from "@context-cleaner/assembler/internal";
import type { TurnLock } from "../ports";
import { createTurnLockPeek, type TurnLockPeekOptions } from "./turn-lock-peek";

/**
 * The calls of a `redis` (node-redis 5 or later) client the peek makes, declared
 * structurally: this module loads `redis` only in {@link openRedisTurnLock}.
 */
export interface RedisPeekClient {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  on(event: "error", listener: (error: unknown) => void): unknown;
  on(event: "ready", listener: () => void): unknown;
  off(event: "ready", listener: () => void): unknown;
  connect(): Promise<unknown>;
  exists(keys: string[]): Promise<number>;
  destroy(): void;
}

export interface RedisTurnLockPeekOptions extends TurnLockPeekOptions {
  /**
   * Each peek's deadline, the wait for a connection included; past it the peek answers
   * "not held" and the failure goes to `onError`. @default 1000
   */
  timeoutMs?: number;
}

/** A turn-lock peek that holds a connection, released by `close()`. */
export interface ClosableTurnLock extends TurnLock {
  close(): Promise<void>;
}

export const REDIS_TURN_LOCK_DEFAULTS = { timeoutMs: 1_000 } as const;

/** Between reconnection attempts: 50 ms, doubling, at most 2 s; it never gives up (Redis may come back). */
function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 2_000);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves once the client is connected; stops listening when `signal` aborts. */
function untilReady(client: RedisPeekClient, signal: AbortSignal): Promise<void> {
  if (client.isReady) return Promise.resolve();
  return new Promise((resolve) => {
    const ready = () => {
      client.off("ready", ready);
      signal.removeEventListener("abort", stop);
      resolve();
    };
    const stop = () => client.off("ready", ready);
    client.on("ready", ready);
    signal.addEventListener("abort", stop, { once: true });
  });
}

/**
 * The worker's turn-lock peek over the Redis protocol, through a node-redis client: whether
 * the key the runtime's `holdTurnLock` or `createRedisTurnLock` sets (`turnLockKey`, with
 * an ioredis, node-redis or Upstash client) exists in this Redis. The peek owns the
 * client: it connects it (unless it is open already), leaves reconnecting to the client's
 * strategy, and `close()` destroys it. A peek waits for the connection until its deadline,
 * then answers "not held" and reports the last connection error to `onError`.
 *
 * @throws {InvalidOptionError} for a `timeoutMs` that is not a positive integer.
 */
export function createRedisTurnLockPeek(
  client: RedisPeekClient,
  options: RedisTurnLockPeekOptions = {},
): ClosableTurnLock {
  const timeoutMs = checkInteger(options.timeoutMs ?? REDIS_TURN_LOCK_DEFAULTS.timeoutMs, "timeoutMs");
  let connectionError: unknown;
  // node-redis emits each failed connection attempt; a peek that meets the failure reports it.
  client.on("error", (error) => {
    connectionError = error;
  });
  client.on("ready", () => {
    connectionError = undefined;
  });
  if (!client.isOpen) {
    client.connect().catch((error: unknown) => {
      connectionError = error;
    });
  }
  const peek = createTurnLockPeek(
    {
      async exists(...keys) {
        try {
          return await withDeadline("Redis EXISTS", timeoutMs, async (signal) => {
            await untilReady(client, signal);
            return client.exists(keys);
          });
        } catch (error) {
          if (client.isReady || connectionError === undefined) throw error;
          throw new Error(`Redis not reachable: ${messageOf(connectionError)}`, { cause: connectionError });
        }
      },
    },
    options,
  );
  let closed = false;
  return {
    isHeld: peek.isHeld,
    async close() {
      if (closed) return;
      closed = true;
      client.destroy();
    },
  };
}

/**
 * {@link createRedisTurnLockPeek} over a node-redis client of `url` (`redis://` or
 * `rediss://`, with its user, password and database): the Redis the runtime's turn lock is
 * in. The client reconnects in the background (50 ms, doubling, at most 2 s, for ever) and
 * queues no command while disconnected. Loads `redis` (an optional peer of this package) here.
 */
export async function openRedisTurnLock(
  url: string,
  options: RedisTurnLockPeekOptions = {},
): Promise<ClosableTurnLock> {
  const { createClient } = await import("redis");
  const client = createClient({
    url,
    disableOfflineQueue: true,
    socket: { reconnectStrategy: reconnectDelay },
  });
  return createRedisTurnLockPeek(client, options);
}
