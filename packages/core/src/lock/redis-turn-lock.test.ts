import { EventEmitter } from "node:events";
import { InvalidOptionError } from "@context-cleaner/assembler";
import { createRedisTurnLock, turnLockKey } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { createRedisTurnLockPeek } from "./redis-turn-lock";

/**
 * An in-memory stand-in for one `redis` (node-redis) client over one Redis: the calls the
 * runtime's lock makes (`SET` with `{ NX, EX }`, `EVAL` with `{ keys, arguments }`) and the
 * ones the worker's peek makes (`connect`, `EXISTS`, the `ready` and `error` events).
 */
class FakeNodeRedis extends EventEmitter {
  readonly store = new Map<string, string>();
  isOpen = false;
  isReady = false;
  destroyed = 0;
  readonly asked: string[][] = [];

  constructor(private readonly onConnect: (client: FakeNodeRedis) => void = (client) => client.ready()) {
    super();
  }

  ready(): void {
    this.isReady = true;
    this.emit("ready");
  }

  async connect(): Promise<this> {
    this.isOpen = true;
    this.onConnect(this);
    return this;
  }

  sendCommand(): never {
    throw new Error("not used");
  }

  async set(key: string, value: string, options: { NX?: boolean; EX?: number }): Promise<string | null> {
    if (options.NX && this.store.has(key)) return null;
    this.store.set(key, value);
    return "OK";
  }

  async eval(_script: string, options: { keys: string[]; arguments: string[] }): Promise<number> {
    // The runtime's release script: delete the key only while it holds the turn's token.
    const [key] = options.keys;
    if (key === undefined || this.store.get(key) !== options.arguments[0]) return 0;
    this.store.delete(key);
    return 1;
  }

  async exists(keys: string[]): Promise<number> {
    this.asked.push(keys);
    if (!this.isReady) throw new Error("The client is offline");
    return keys.filter((key) => this.store.has(key)).length;
  }

  destroy(): void {
    this.destroyed += 1;
    this.isOpen = false;
    this.isReady = false;
  }
}

const TURN = { threadId: "thread_7", configurable: { org_id: "org_1" }, context: undefined };
const orgIdOf = (turn: typeof TURN) => String(turn.configurable.org_id);

describe("createRedisTurnLockPeek", () => {
  it("sees the lock the runtime's createRedisTurnLock holds through a node-redis client, and not after its release", async () => {
    const client = new FakeNodeRedis();
    const runtime = createRedisTurnLock({ redis: client, orgIdOf, logger: { warn: () => {} } });
    const peek = createRedisTurnLockPeek(client);
    const lease = await runtime.acquire("thread_7", TURN);
    expect(client.store.has(turnLockKey("org_1", "thread_7"))).toBe(true);
    expect(await peek.isHeld("org_1", "thread_7")).toBe(true);
    expect(await peek.isHeld("org_1", "thread_8")).toBe(false);
    expect(await peek.isHeld("org_2", "thread_7")).toBe(false);
    await lease.release();
    expect(await peek.isHeld("org_1", "thread_7")).toBe(false);
    expect(client.asked.at(-1)).toEqual([turnLockKey("org_1", "thread_7")]);
  });

  it("looks under the runtime's prefix when it has its own", async () => {
    const client = new FakeNodeRedis();
    const runtime = createRedisTurnLock({ redis: client, orgIdOf, keyPrefix: "app:lock:" });
    await runtime.acquire("thread_7", TURN);
    expect(
      await createRedisTurnLockPeek(client, { keyPrefix: "app:lock:" }).isHeld("org_1", "thread_7"),
    ).toBe(true);
    expect(await createRedisTurnLockPeek(client).isHeld("org_1", "thread_7")).toBe(false);
  });

  it("connects the client itself, and a peek waits for the connection", async () => {
    const client = new FakeNodeRedis((connecting) => setTimeout(() => connecting.ready(), 5));
    client.store.set(turnLockKey("org_1", "thread_7"), "token");
    const peek = createRedisTurnLockPeek(client, { timeoutMs: 10_000 });
    expect(client.isOpen).toBe(true);
    expect(client.isReady).toBe(false);
    expect(await peek.isHeld("org_1", "thread_7")).toBe(true);
  });

  it("leaves a client that is already open to its connection", async () => {
    const client = new FakeNodeRedis();
    await client.connect();
    let connects = 0;
    client.connect = async () => {
      connects += 1;
      return client;
    };
    createRedisTurnLockPeek(client);
    expect(connects).toBe(0);
  });

  it("answers not held past its deadline when Redis cannot be reached, and reports the last connection error", async () => {
    const client = new FakeNodeRedis((connecting) =>
      connecting.emit("error", new Error("connect ECONNREFUSED 127.0.0.1:6390")),
    );
    const reported: unknown[] = [];
    const peek = createRedisTurnLockPeek(client, {
      timeoutMs: 20,
      onError: (error, thread) => reported.push(error, thread),
    });
    expect(await peek.isHeld("org_1", "thread_7")).toBe(false);
    expect(reported).toHaveLength(2);
    expect(String(reported[0])).toBe("Error: Redis not reachable: connect ECONNREFUSED 127.0.0.1:6390");
    expect(reported[1]).toEqual({ orgId: "org_1", threadId: "thread_7" });
    // No command was sent while disconnected.
    expect(client.asked).toEqual([]);
  });

  it("reports a peek that outlives its deadline on a connected client as such", async () => {
    const client = new FakeNodeRedis();
    client.exists = () => new Promise<number>(() => {});
    const reported: unknown[] = [];
    const peek = createRedisTurnLockPeek(client, { timeoutMs: 20, onError: (error) => reported.push(error) });
    expect(await peek.isHeld("org_1", "thread_7")).toBe(false);
    expect(reported).toEqual([expect.objectContaining({ name: "DeadlineExceededError" })]);
  });

  it("destroys the client at close, once", async () => {
    const client = new FakeNodeRedis();
    const peek = createRedisTurnLockPeek(client);
    await peek.close();
    await peek.close();
    expect(client.destroyed).toBe(1);
  });

  it("refuses a timeout that is not a positive integer", () => {
    expect(() => createRedisTurnLockPeek(new FakeNodeRedis(), { timeoutMs: 0 })).toThrow(InvalidOptionError);
  });
});
