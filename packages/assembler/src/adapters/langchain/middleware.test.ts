import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  digestsForThread,
  digestText,
  documentPage,
  langChainPairingProblems,
  PAGE_CHARS,
  readDocument,
  readRequest,
  resultOf,
  ScriptedReaderModel,
} from "#test/assembler/fixtures/scripted-agent";
import type { ThreadTurnEnded } from "../../events/turn-event";
import type { RuntimeTurnLock, TurnContext } from "../../turn-ports";
import type { DigestMap } from "../../types";
import { contextCleanerMiddleware } from "./middleware";

const THREAD = { configurable: { thread_id: "thread-1", org_id: "org-1" } };
const CLOCK = new Date("2026-03-01T12:00:00.000Z");

/** A runtime around the agent: digest rows written between turns, events, lock, model calls. */
function harness() {
  const log: string[] = [];
  const model = new ScriptedReaderModel({});
  const checkpointer = new MemorySaver();
  let digests: DigestMap = new Map();
  const loads: TurnContext[] = [];
  const published: ThreadTurnEnded[] = [];
  const turnLock: RuntimeTurnLock = {
    acquire: async (threadId) => {
      log.push(`acquire ${threadId}`);
      return { release: () => void log.push(`release ${threadId}`) };
    },
  };
  const middleware = contextCleanerMiddleware({
    loadDigests: async (_threadId, turn) => {
      loads.push(turn);
      log.push("load digests");
      return digests;
    },
    publishTurnEnded: (event) => {
      log.push("publish");
      published.push(event);
    },
    turnLock,
    now: () => CLOCK,
    options: { disabled: false },
  });
  const agent = createAgent({ model, tools: [readDocument], checkpointer, middleware: [middleware] });
  const callsBefore = () => model.calls.length;
  return {
    log,
    model,
    loads,
    published,
    agent,
    /** Runs one user turn; returns the message lists the model received during it. */
    async turn(request: string): Promise<BaseMessage[][]> {
      const first = callsBefore();
      await agent.invoke({ messages: [{ role: "user", content: request }] }, THREAD);
      return model.calls.slice(first);
    },
    async rawThread(): Promise<BaseMessage[]> {
      const saved = await checkpointer.getTuple(THREAD);
      if (!saved) throw new Error("no checkpoint for the thread");
      return (saved.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
    },
    /** What the worker would do after a turn: digest every tool result of the raw thread. */
    async digestThread(): Promise<void> {
      digests = digestsForThread(await this.rawThread());
    },
  };
}

describe("contextCleanerMiddleware with createAgent", () => {
  it("sends the model the condensed view turn after turn while the checkpoint keeps the raw record", async () => {
    const runtime = harness();
    const turn1 = await runtime.turn(readRequest("lease_445", 5));
    await runtime.digestThread();
    const turn2 = await runtime.turn(readRequest("nda_3", 4));
    await runtime.digestThread();
    const turn3 = await runtime.turn(readRequest("memo_9", 2));

    // Turn 1 sees no condensed result (no digests yet).
    for (const messages of turn1) {
      expect(messages.some((message) => String(message.content).startsWith("[Condensed"))).toBe(false);
    }
    // Turn 2: every page turn 1 read reaches the model condensed (the recency wall starts at
    // the latest user message), on every call of the turn.
    for (const messages of turn2) {
      for (let page = 0; page < 5; page++) {
        expect(resultOf(messages, `lease_445_p${page}`)?.content).toBe(digestText(`lease_445_p${page}`));
      }
    }
    // Turn 3: the lease pages and turn 2's pages (outside the window, not referenced by it)
    // reach the model condensed.
    expect(turn3).toHaveLength(3);
    for (const messages of turn3) {
      for (let page = 0; page < 5; page++) {
        expect(resultOf(messages, `lease_445_p${page}`)?.content).toBe(digestText(`lease_445_p${page}`));
      }
      for (let page = 0; page < 4; page++) {
        expect(resultOf(messages, `nda_3_p${page}`)?.content).toBe(digestText(`nda_3_p${page}`));
      }
      expect(langChainPairingProblems(messages)).toEqual([]);
    }

    const raw = await runtime.rawThread();
    expect(resultOf(raw, "lease_445_p2")?.content).toBe(documentPage("lease_445", 2 * PAGE_CHARS));
    expect(raw.filter((message) => message.getType() === "tool")).toHaveLength(11);
    expect(langChainPairingProblems(raw)).toEqual([]);
  });

  it("loads digests once per turn, publishes the turn-ended event and holds the lock around the turn", async () => {
    const runtime = harness();
    await runtime.turn(readRequest("lease_445", 3));
    await runtime.turn(readRequest("nda_3", 1));

    expect(runtime.loads).toHaveLength(2);
    expect(runtime.loads[0]).toMatchObject({
      threadId: "thread-1",
      configurable: { thread_id: "thread-1", org_id: "org-1" },
    });
    // Each event announces its turn as the thread held it: message count and latest message id.
    const raw = await runtime.rawThread();
    const turn1 = raw.slice(0, 1 + 3 * 2 + 1);
    expect(runtime.published).toEqual([
      {
        threadId: "thread-1",
        rawToolChars: 3 * PAGE_CHARS,
        turnEndedAt: CLOCK.toISOString(),
        messageCount: turn1.length,
        lastMessageId: turn1.at(-1)?.id,
      },
      {
        threadId: "thread-1",
        rawToolChars: 4 * PAGE_CHARS,
        turnEndedAt: CLOCK.toISOString(),
        messageCount: raw.length,
        lastMessageId: raw.at(-1)?.id,
      },
    ]);
    expect(raw.at(-1)?.id).toEqual(expect.any(String));
    expect(turn1.at(-1)?.content).toBe("Done reading.");
    const turn = ["acquire thread-1", "load digests", "publish", "release thread-1"];
    expect(runtime.log).toEqual([...turn, ...turn]);
  });

  it("publishes mid-turn events as a long turn's tool output grows, before its turn-ended event, and reloads the digests after each", async () => {
    const model = new ScriptedReaderModel({});
    const published: ThreadTurnEnded[] = [];
    let loads = 0;
    const middleware = contextCleanerMiddleware({
      loadDigests: async () => {
        loads++;
        return new Map();
      },
      publishTurnEnded: (event) => void published.push(event),
      now: () => CLOCK,
      options: { disabled: false },
      midTurnEventChars: 3 * PAGE_CHARS,
      midTurnReloadDelayMs: 0,
    });
    const agent = createAgent({
      model,
      tools: [readDocument],
      checkpointer: new MemorySaver(),
      middleware: [middleware],
    });
    const result = await agent.invoke(
      { messages: [{ role: "user", content: readRequest("lease_445", 7) }] },
      THREAD,
    );
    const raw = result.messages as BaseMessage[];
    // Calls see 0..7 pages: events at 3 and 6 pages, each announcing the thread as the call saw it.
    expect(published.map((event) => [event.rawToolChars, event.midTurn])).toEqual([
      [3 * PAGE_CHARS, true],
      [6 * PAGE_CHARS, true],
      [7 * PAGE_CHARS, undefined],
    ]);
    const atThree = raw.findIndex(
      (message) => message.getType() === "tool" && message.id === published[0]?.lastMessageId,
    );
    expect(published[0]?.messageCount).toBe(atThree + 1);
    expect(raw[atThree]?.getType()).toBe("tool");
    // The turn's own load, and one reload per event, at the call after it.
    expect(loads).toBe(3);
  });

  it("releases the lock when the model fails, and the next turn runs", async () => {
    const runtime = harness();
    runtime.model.failOnCall = 2;
    await expect(runtime.turn(readRequest("lease_445", 3))).rejects.toThrow("model unavailable");
    expect(runtime.log).toEqual(["acquire thread-1", "load digests", "release thread-1"]);
    expect(runtime.published).toEqual([]);

    runtime.model.failOnCall = undefined;
    await runtime.turn("Hello again.");
    expect(runtime.log.slice(3)).toEqual(["acquire thread-1", "load digests", "publish", "release thread-1"]);
  });

  it("never fails a turn for a failing loader, publisher or lock; it reports them", async () => {
    const model = new ScriptedReaderModel({});
    const reported: string[] = [];
    const middleware = contextCleanerMiddleware({
      loadDigests: async () => {
        throw new Error("database down");
      },
      publishTurnEnded: async () => {
        throw new Error("queue down");
      },
      turnLock: {
        acquire: async () => {
          throw new Error("redis down");
        },
      },
      onError: (error, stage, threadId) => reported.push(`${stage} ${threadId}: ${(error as Error).message}`),
      options: { disabled: false },
    });
    const agent = createAgent({
      model,
      tools: [readDocument],
      checkpointer: new MemorySaver(),
      middleware: [middleware],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: readRequest("a", 1) }] }, THREAD);
    expect(result.messages.at(-1)?.content).toBe("Done reading.");
    // The loader and the lock are then skipped for a while: said once, naming the cause.
    expect(reported.sort()).toEqual([
      expect.stringMatching(
        /^acquire-lock thread-1: taking the turn lock failed \(redis down\): it is skipped/,
      ),
      expect.stringMatching(
        /^load-digests thread-1: loading the thread's digests failed \(database down\): it is skipped/,
      ),
      "publish-turn-ended thread-1: queue down",
    ]);
  });

  it("never fails a turn for a loader that resolves to something not a Map or an onReport that throws; the lock is released", async () => {
    for (const broken of ["not-a-map", "report-throws"] as const) {
      const model = new ScriptedReaderModel({});
      const reported: string[] = [];
      const lockLog: string[] = [];
      const middleware = contextCleanerMiddleware({
        // A map that went through a JSON cache comes back as a plain object.
        loadDigests: async () => (broken === "not-a-map" ? ({} as unknown as DigestMap) : new Map()),
        turnLock: {
          acquire: async (threadId) => {
            lockLog.push(`acquire ${threadId}`);
            return { release: () => void lockLog.push(`release ${threadId}`) };
          },
        },
        onError: (_error, stage, threadId) => reported.push(`${stage} ${threadId}`),
        options: {
          disabled: false,
          ...(broken === "report-throws"
            ? {
                onReport: () => {
                  throw new Error("metrics sink down");
                },
              }
            : {}),
        },
      });
      const agent = createAgent({
        model,
        tools: [readDocument],
        checkpointer: new MemorySaver(),
        middleware: [middleware],
      });
      const result = await agent.invoke(
        { messages: [{ role: "user", content: readRequest("a", 1) }] },
        THREAD,
      );
      expect(result.messages.at(-1)?.content).toBe("Done reading.");
      expect(reported[0]).toBe(broken === "not-a-map" ? "load-digests thread-1" : "assemble thread-1");
      expect(lockLog).toEqual(["acquire thread-1", "release thread-1"]);
    }
  });

  it("assembles without digests, lock or event when the run has no thread id", async () => {
    const model = new ScriptedReaderModel({});
    let loads = 0;
    const agent = createAgent({
      model,
      tools: [readDocument],
      middleware: [
        contextCleanerMiddleware({
          loadDigests: async () => {
            loads++;
            return null;
          },
        }),
      ],
    });
    await agent.invoke({ messages: [{ role: "user", content: readRequest("a", 2) }] });
    expect(loads).toBe(0);
    expect(model.calls).toHaveLength(3);
  });
});
