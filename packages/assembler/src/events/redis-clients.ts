/**
 * The two Redis calls the turn lock makes. The `Redis` client of `@upstash/redis`
 * has them as they are; ioredis and node-redis clients are adapted by {@link turnLockRedisOf}.
 */
export interface TurnLockRedis {
  /** `SET key value NX EX seconds`: `"OK"` when set, `null` when the key exists. */
  set(key: string, value: string, options: { nx: true; ex: number }): Promise<unknown>;
  /** `EVAL script numkeys keys… args…`. */
  eval(script: string, keys: string[], args: string[]): Promise<unknown>;
}

/**
 * The shape of an `ioredis` client as far as the turn lock tells it apart: its `status`
 * and `defineCommand`, and the two commands it sends. Declared structurally, so this
 * package needs no Redis client of its own.
 */
export interface IoRedisLike {
  readonly status: string;
  defineCommand: (...args: never[]) => unknown;
  set: (...args: never[]) => Promise<unknown>;
  eval: (...args: never[]) => Promise<unknown>;
}

/** The shape of a `redis` (node-redis 4 or later) client, told apart by `isOpen` and `sendCommand`. */
export interface NodeRedisLike {
  readonly isOpen: boolean;
  sendCommand: (...args: never[]) => unknown;
  set: (...args: never[]) => Promise<unknown>;
  eval: (...args: never[]) => Promise<unknown>;
}

/** A Redis client the turn lock accepts: `@upstash/redis`, `ioredis`, `redis` (node-redis), or anything with {@link TurnLockRedis}'s two calls. */
export type TurnLockRedisClient = TurnLockRedis | IoRedisLike | NodeRedisLike;

function isIoRedis(client: object): client is IoRedisLike {
  const candidate = client as Partial<IoRedisLike>;
  return typeof candidate.status === "string" && typeof candidate.defineCommand === "function";
}

function isNodeRedis(client: object): client is NodeRedisLike {
  const candidate = client as Partial<NodeRedisLike>;
  return typeof candidate.isOpen === "boolean" && typeof candidate.sendCommand === "function";
}

type Call = (...args: unknown[]) => Promise<unknown>;

/**
 * The client's `SET NX EX` and `EVAL` in the Upstash call shape the lock is written
 * against. ioredis takes `SET key value EX seconds NX` and `EVAL script numkeys keys… args…`
 * as positional arguments; node-redis takes `{ NX, EX }` and `{ keys, arguments }`.
 */
export function turnLockRedisOf(client: TurnLockRedisClient): TurnLockRedis {
  if (isIoRedis(client)) {
    const set = client.set.bind(client) as unknown as Call;
    const evaluate = client.eval.bind(client) as unknown as Call;
    return {
      set: (key, value, options) => set(key, value, "EX", options.ex, "NX"),
      eval: (script, keys, args) => evaluate(script, keys.length, ...keys, ...args),
    };
  }
  if (isNodeRedis(client)) {
    const set = client.set.bind(client) as unknown as Call;
    const evaluate = client.eval.bind(client) as unknown as Call;
    return {
      set: (key, value, options) => set(key, value, { NX: true, EX: options.ex }),
      eval: (script, keys, args) => evaluate(script, { keys, arguments: args }),
    };
  }
  return client;
}
