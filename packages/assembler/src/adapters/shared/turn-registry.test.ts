import { describe, expect, it } from "vitest";
import { validateOrgPolicy } from "../../org-policy";
import type { TurnContext } from "../../turn-ports";
import type { DigestMap } from "../../types";
import { TurnRegistry } from "./turn-registry";

function turnOf(threadId: string): TurnContext {
  return { threadId, configurable: { thread_id: threadId }, context: undefined };
}

function registry(overrides: Partial<ConstructorParameters<typeof TurnRegistry>[0]> = {}) {
  const log: string[] = [];
  const turns = new TurnRegistry({
    loadDigests: async (threadId) => {
      log.push(`load ${threadId}`);
      return new Map() as DigestMap;
    },
    turnLock: {
      acquire: async (threadId) => {
        log.push(`acquire ${threadId}`);
        return { release: () => void log.push(`release ${threadId}`) };
      },
    },
    disabled: false,
    ...overrides,
  });
  return { log, turns };
}

describe("TurnRegistry", () => {
  it("loads a thread's digests once per turn and again when the turn's key changes", async () => {
    const { log, turns } = registry();
    await turns.digests(turnOf("a"), "user-1");
    await turns.digests(turnOf("a"), "user-1");
    await turns.digests(turnOf("a"), "user-2");
    expect(log).toEqual(["acquire a", "load a", "release a", "acquire a", "load a"]);
  });

  it("releases a stale turn of the same thread before beginning a new one, and releases once", async () => {
    const { log, turns } = registry();
    await turns.begin(turnOf("a"));
    await turns.begin(turnOf("a"));
    await turns.abandon("a");
    await turns.abandon("a");
    expect(log.filter((entry) => entry.startsWith("release"))).toEqual(["release a", "release a"]);
    expect(turns.openThreads).toEqual([]);
  });

  it("remembers at most maxOpenTurns threads, releasing the oldest", async () => {
    const { log, turns } = registry({ maxOpenTurns: 2 });
    for (const thread of ["a", "b", "c"]) await turns.begin(turnOf(thread));
    expect(turns.openThreads).toEqual(["b", "c"]);
    expect(log).toContain("release a");
  });

  it("reports a loader that throws synchronously and serves no digests", async () => {
    const reported: string[] = [];
    const { turns } = registry({
      loadDigests: () => {
        throw new Error("bad config");
      },
      onError: (_error, stage) => reported.push(stage),
    });
    expect(await turns.digests(turnOf("a"))).toBeNull();
    expect(reported).toEqual(["load-digests"]);
  });

  it("runs a turn whose load failed as mode off, unless the thread's last known mode holds", async () => {
    let fail = true;
    const shadow = validateOrgPolicy({ mode: "shadow" });
    const { turns } = registry({
      loadDigests: async () => {
        if (fail) throw new Error("connect ECONNREFUSED 127.0.0.1:5432");
        return { digests: new Map(), policy: shadow };
      },
      onError: () => {},
      // No backoff between the loads: each turn tries its load.
      backoff: { initialMs: 0, maxMs: 0 },
    });
    // Unknown: what `off` sends, never a cleaned view for an org in shadow or off.
    expect((await turns.loaded(turnOf("a"), "1")).policy?.mode).toBe("off");
    fail = false;
    expect((await turns.loaded(turnOf("a"), "2")).policy?.mode).toBe("shadow");
    fail = true;
    expect(await turns.loaded(turnOf("a"), "3")).toEqual({ digests: null, policy: shadow });
    expect((await turns.loaded(turnOf("b"), "1")).policy?.mode).toBe("off");
  });

  it("loads nothing with the kill switch on", async () => {
    const { log, turns } = registry({ disabled: true });
    expect(await turns.digests(turnOf("a"))).toBeNull();
    expect(log).toEqual(["acquire a"]);
  });

  it("publishes no turn-ended event with the kill switch on, and still releases the lock", async () => {
    const events: unknown[] = [];
    const { log, turns } = registry({ disabled: true, publishTurnEnded: (event) => void events.push(event) });
    await turns.begin(turnOf("a"));
    await turns.end(turnOf("a"), 500_000);
    expect(events).toEqual([]);
    expect(log).toEqual(["acquire a", "release a"]);
  });

  it("ends a turn by publishing, then releasing, with the injected clock", async () => {
    const events: unknown[] = [];
    const { log, turns } = registry({
      publishTurnEnded: (event) => {
        log.push("publish");
        events.push(event);
      },
      now: () => new Date("2026-01-02T03:04:05Z"),
    });
    await turns.begin(turnOf("a"));
    await turns.end(turnOf("a"), 1234);
    expect(events).toEqual([{ threadId: "a", rawToolChars: 1234, turnEndedAt: "2026-01-02T03:04:05.000Z" }]);
    expect(log.slice(-2)).toEqual(["publish", "release a"]);
  });
});

describe("TurnRegistry cache context", () => {
  const reportShowing = (condensedIds: string[]) =>
    ({ ledger: { condensedIds } }) as unknown as Parameters<TurnRegistry["recordCall"]>[1];

  it("marks a turn's first call, measures the idle time there and keeps it, and passes on what the previous call showed", async () => {
    let now = 1_000_000;
    const { turns } = registry({ now: () => new Date(now) });
    await turns.begin(turnOf("a"));
    expect(turns.cacheContext("a")).toEqual({ turnStart: true });
    turns.recordCall("a", reportShowing([]));
    now += 2_000;
    expect(turns.cacheContext("a")).toEqual({ turnStart: false, shown: [] });
    turns.recordCall("a", reportShowing(["c1"]));
    await turns.end(turnOf("a"), 0);
    now += 600_000;
    await turns.begin(turnOf("a"));
    expect(turns.cacheContext("a")).toEqual({ turnStart: true, idleMs: 600_000, shown: ["c1"] });
    turns.recordCall("a", reportShowing(["c1", "c2"]));
    now += 5_000;
    expect(turns.cacheContext("a")).toEqual({ turnStart: false, idleMs: 600_000, shown: ["c1", "c2"] });
  });

  it("keeps the previous calls of at most maxOpenTurns threads", () => {
    const { turns } = registry({ maxOpenTurns: 1 });
    turns.recordCall("a", reportShowing(["x"]));
    turns.recordCall("b", reportShowing(["y"]));
    expect(turns.cacheContext("a")).toEqual({ turnStart: true });
    expect(turns.cacheContext("b").shown).toEqual(["y"]);
  });

  it("skips a loader that failed for a while, says so once naming the cause, and loads again once it works", async () => {
    let nowMs = Date.parse("2026-12-01T10:00:00Z");
    const reported: { message: string; stage: string }[] = [];
    const calls: number[] = [];
    let down = true;
    const { turns } = registry({
      now: () => new Date(nowMs),
      loadDigests: async () => {
        calls.push(nowMs);
        if (down) {
          const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
            code: "ECONNREFUSED",
          });
          throw Object.assign(new Error("database unreachable at 127.0.0.1:5432", { cause: refused }), {
            code: "database_unreachable",
          });
        }
        return new Map([
          ["c1", { digest: "d", contentSha256: "h", digestChars: 1, kind: "digest" }],
        ]) as DigestMap;
      },
      onError: (error, stage) => reported.push({ message: (error as Error).message, stage }),
    });
    const turnAt = async (thread: string, seconds: number) => {
      nowMs += seconds * 1000;
      return turns.digests(turnOf(thread));
    };
    expect(await turnAt("a", 0)).toBeNull();
    expect(reported).toHaveLength(1);
    expect(reported[0]?.stage).toBe("load-digests");
    expect(reported[0]?.message).toMatch(
      /^loading the thread's digests failed \(connect ECONNREFUSED 127\.0\.0\.1:5432\): it is skipped for 30 s/,
    );
    // Within 30 s no turn calls the loader, and nothing more is said.
    expect(await turnAt("b", 10)).toBeNull();
    expect(await turnAt("c", 19)).toBeNull();
    expect(calls).toHaveLength(1);
    // Past it, one turn tries again; failing again, it is skipped for twice as long, silently.
    expect(await turnAt("d", 2)).toBeNull();
    expect(calls).toHaveLength(2);
    expect(await turnAt("e", 59)).toBeNull();
    expect(calls).toHaveLength(2);
    expect(reported).toHaveLength(1);
    // Once it works, turns load again; a later outage is said again.
    down = false;
    expect((await turnAt("f", 2))?.size).toBe(1);
    expect((await turnAt("g", 1))?.size).toBe(1);
    down = true;
    expect(await turnAt("h", 1)).toBeNull();
    expect(reported).toHaveLength(2);
    expect(calls).toHaveLength(5);
  });

  it("skips a turn lock that failed for a while and runs unlocked, said once", async () => {
    let nowMs = 0;
    const reported: string[] = [];
    let acquires = 0;
    const { turns } = registry({
      now: () => new Date(nowMs),
      turnLock: {
        acquire: async () => {
          acquires++;
          throw new TypeError("fetch failed", {
            cause: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }),
          });
        },
      },
      onError: (error, stage) => reported.push(`${stage}: ${(error as Error).message}`),
    });
    for (const [thread, seconds] of [
      ["a", 0],
      ["b", 5],
      ["c", 20],
    ] as const) {
      nowMs += seconds * 1000;
      await turns.begin(turnOf(thread));
    }
    expect(acquires).toBe(1);
    expect(reported).toEqual([
      expect.stringMatching(
        /^acquire-lock: taking the turn lock failed \(connect ECONNREFUSED\): it is skipped for 30 s .* turns run unlocked/,
      ),
    ]);
  });

  it("reports a refusal marked not retryable every time, without skipping the loader", async () => {
    const reported: unknown[] = [];
    let calls = 0;
    const refusal = Object.assign(new Error("invalid thread id"), { retryable: false });
    const { turns } = registry({
      loadDigests: async () => {
        calls++;
        throw refusal;
      },
      onError: (error) => reported.push(error),
    });
    await turns.digests(turnOf("a"));
    await turns.digests(turnOf("b"));
    expect(calls).toBe(2);
    expect(reported).toEqual([refusal, refusal]);
  });
});
