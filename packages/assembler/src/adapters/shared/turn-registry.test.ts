import { describe, expect, it } from "vitest";
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

  it("loads nothing with the kill switch on", async () => {
    const { log, turns } = registry({ disabled: true });
    expect(await turns.digests(turnOf("a"))).toBeNull();
    expect(log).toEqual(["acquire a"]);
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
