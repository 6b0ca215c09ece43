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

describe("TurnRegistry mid-turn events", () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  const row = (text: string) => ({ digest: text, contentSha256: "a".repeat(64), digestChars: text.length });

  function midTurnRegistry(overrides: Partial<ConstructorParameters<typeof TurnRegistry>[0]> = {}) {
    let now = Date.parse("2026-01-02T03:00:00Z");
    const events: unknown[] = [];
    const loads: string[] = [];
    const reported: string[] = [];
    let rows: DigestMap = new Map();
    const turns = new TurnRegistry({
      loadDigests: async (threadId) => {
        loads.push(threadId);
        return rows;
      },
      publishTurnEnded: (event) => void events.push(event),
      onError: (_error, stage) => reported.push(stage),
      now: () => new Date(now),
      disabled: false,
      midTurnEventChars: 100_000,
      midTurnReloadDelayMs: 5_000,
      ...overrides,
    });
    const call = (rawToolChars: number, messageCount: number, shown: string[] = []) => {
      turns.observe(turnOf("a"), () => ({ rawToolChars, messageCount, lastMessageId: `m${messageCount}` }));
      const context = turns.cacheContext("a");
      turns.recordCall("a", { ledger: { condensedIds: shown, sent: [] } } as unknown as Parameters<
        TurnRegistry["recordCall"]
      >[1]);
      return context;
    };
    return {
      turns,
      events,
      loads,
      reported,
      call,
      setRows: (next: DigestMap) => {
        rows = next;
      },
      advance: (ms: number) => {
        now += ms;
      },
    };
  }

  it("publishes one mid-turn event each time the turn's new tool output since its start or its last event reaches the threshold", async () => {
    const { turns, events, call } = midTurnRegistry();
    await turns.begin(turnOf("a"));
    call(400_000, 3); // the turn's first call: what came before is the previous turn's
    call(480_000, 5);
    expect(events).toEqual([]);
    call(500_000, 7);
    call(599_999, 9);
    call(600_000, 11);
    await settle();
    expect(events).toEqual([
      {
        threadId: "a",
        rawToolChars: 500_000,
        turnEndedAt: "2026-01-02T03:00:00.000Z",
        messageCount: 7,
        lastMessageId: "m7",
        midTurn: true,
      },
      expect.objectContaining({ rawToolChars: 600_000, messageCount: 11, midTurn: true }),
    ]);
    // The turn-ended event comes after them, without the mark.
    await turns.end(turnOf("a"), 600_000, { messageCount: 12 });
    expect(events).toHaveLength(3);
    expect(events[2]).not.toHaveProperty("midTurn");
  });

  it("publishes none under the kill switch, with the setting off, or without a publisher", async () => {
    for (const overrides of [
      { disabled: true },
      { midTurnEventChars: false as const },
      { publishTurnEnded: undefined },
    ]) {
      const { turns, events, loads, call } = midTurnRegistry(overrides);
      await turns.begin(turnOf("a"));
      call(0, 1);
      call(900_000, 3);
      await settle();
      expect(events).toEqual([]);
      expect(loads.length).toBeLessThanOrEqual(1);
    }
  });

  it("reports a publish that fails as publish-mid-turn, and the turn goes on without a reload", async () => {
    const { turns, reported, loads, call, advance } = midTurnRegistry({
      publishTurnEnded: (event) => {
        if (event.midTurn) throw new Error("queue down");
      },
    });
    await turns.begin(turnOf("a"));
    call(0, 1);
    call(200_000, 3);
    await settle();
    advance(60_000);
    call(210_000, 5);
    await settle();
    expect(reported).toEqual(["publish-mid-turn"]);
    expect(loads).toEqual(["a"]);
  });

  it("reloads the digests once per event, at the first call the delay after it, and hands the rows to the calls after", async () => {
    const { turns, loads, call, advance, setRows } = midTurnRegistry();
    await turns.begin(turnOf("a"));
    call(0, 1);
    call(150_000, 3); // publishes
    await settle();
    advance(4_000);
    expect(call(160_000, 5).midTurnDigests).toBeUndefined();
    await settle();
    expect(loads).toEqual(["a"]); // the turn's own load only: too early
    setRows(new Map([["p1", row("digest of p1")]]));
    advance(1_000);
    // Due: the read starts, the call does not wait for it.
    expect(call(170_000, 7).midTurnDigests).toBeUndefined();
    await settle();
    expect(loads).toEqual(["a", "a"]);
    expect([...(call(180_000, 9).midTurnDigests?.keys() ?? [])]).toEqual(["p1"]);
    advance(60_000);
    call(190_000, 11);
    await settle();
    // No new event, no new reload.
    expect(loads).toEqual(["a", "a"]);
  });

  it("leaves out of the reloaded rows the results the previous call showed condensed, and keeps the ones it used", async () => {
    const { turns, call, advance, setRows } = midTurnRegistry();
    await turns.begin(turnOf("a"));
    call(0, 1);
    call(150_000, 3);
    await settle();
    setRows(
      new Map([
        ["p1", row("row p1")],
        ["p2", row("row p2")],
      ]),
    );
    advance(5_000);
    call(160_000, 5, ["p1"]); // starts the reload; this call showed p1 condensed (inline)
    await settle();
    const first = call(170_000, 7, ["p1", "p2"]).midTurnDigests;
    expect([...(first?.keys() ?? [])]).toEqual(["p2"]);
    // A second event's reload: p2 keeps the row it was condensed with, p3 arrives, p1 stays out.
    call(300_000, 9, ["p1", "p2"]);
    await settle();
    setRows(
      new Map([
        ["p1", row("row p1")],
        ["p2", row("row p2, rewritten")],
        ["p3", row("row p3")],
      ]),
    );
    advance(5_000);
    call(310_000, 11, ["p1", "p2"]);
    await settle();
    const second = call(320_000, 13, ["p1", "p2"]).midTurnDigests;
    expect(second?.get("p2")).toBe(first?.get("p2"));
    expect([...(second?.keys() ?? [])].sort()).toEqual(["p2", "p3"]);
  });

  it("reports a reload that fails as load-digests and keeps the turn's rows", async () => {
    let fail = false;
    const { turns, reported, call, advance } = midTurnRegistry({
      loadDigests: async () => {
        if (fail) throw new Error("connect ECONNREFUSED");
        return new Map();
      },
    });
    await turns.begin(turnOf("a"));
    call(0, 1);
    call(150_000, 3);
    await settle();
    fail = true;
    advance(5_000);
    call(160_000, 5);
    await settle();
    expect(call(170_000, 7).midTurnDigests).toBeUndefined();
    expect(reported).toEqual(["load-digests"]);
  });

  it("refuses settings out of range", () => {
    expect(() => midTurnRegistry({ midTurnEventChars: 0 })).toThrow(/midTurnEventChars/);
    expect(() => midTurnRegistry({ midTurnReloadDelayMs: -1 })).toThrow(/midTurnReloadDelayMs/);
  });
});
