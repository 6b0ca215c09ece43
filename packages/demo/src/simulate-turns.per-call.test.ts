import type { Message, ToolMessage } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { type Contestant, RAW } from "./contestants";
import { largestPromptChars, type ObservedCall, simulateThread } from "./simulate-turns";
import { viewChars } from "./view-measures";

const call = (id: string, offset: number): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name: "read_document", args: { file_id: "cd_1", offset } }],
});
const result = (id: string, content: string): ToolMessage => ({
  role: "tool",
  toolCallId: id,
  toolName: "read_document",
  content,
});

// Turn 1: three model calls (before a, before b, the reply); turn 2: two (before c, the reply).
const thread = {
  name: "small",
  messages: [
    { role: "user", content: "read the lease" },
    call("a", 0),
    result("a", "Base Rent is $1,200,000 per year."),
    call("b", 100),
    result("b", "The deposit is $50,000."),
    { role: "assistant", content: "Read." },
    { role: "user", content: "and the cap?" },
    call("c", 200),
    result("c", "The cap is $9,000,000."),
    { role: "assistant", content: "Done." },
  ] satisfies Message[],
  probes: [
    { answer: "$1,200,000", toolCallId: "a" },
    { answer: "$50,000", toolCallId: "b" },
    { answer: "$9,000,000", toolCallId: "c" },
  ],
};

const latestOnly = (prompt: readonly Message[]) => {
  const latest = prompt.findLast((message) => message.role === "tool");
  return latest?.role === "tool" ? latest.toolCallId : undefined;
};

/** Every result but the latest replaced by a placeholder; the calls stay. */
const CLEARS: Contestant = {
  id: "clears",
  label: "clears",
  accounting: "blind",
  view: (prompt) => ({
    messages: prompt.map((message) =>
      message.role === "tool" && message.toolCallId !== latestOnly(prompt)
        ? { ...message, content: "[cleared]" }
        : message,
    ),
    elapsedMs: 0,
  }),
};

/** Every result but the latest dropped, with its call. */
const DROPS: Contestant = {
  id: "drops",
  label: "drops",
  accounting: "blind",
  view: (prompt) => {
    const keep = latestOnly(prompt);
    return {
      messages: prompt.filter((message) =>
        message.role === "tool"
          ? message.toolCallId === keep
          : message.role !== "assistant" || !message.toolCalls?.some((entry) => entry.id !== keep),
      ),
      elapsedMs: 0,
    };
  },
};

describe("simulateThread, measured at every model call", () => {
  it("counts strict and recoverable retention over every (call, arrived probe) pair", async () => {
    const simulation = await simulateThread(thread, { contestants: [RAW, CLEARS, DROPS], orgId: "o" });
    const everyCall = (id: string) =>
      simulation.contestants.find((run) => run.id === id)?.turns.map((turn) => turn.everyCall);
    // Pairs: turn 1, 0 + 1 + 2; turn 2, 2 + 3 (the probes arrived before each call).
    expect(everyCall("raw")).toEqual([
      { total: 3, strict: 3, recoverable: 3 },
      { total: 5, strict: 5, recoverable: 5 },
    ]);
    // Only the latest result whole; the cleared ones keep their calls, the dropped ones nothing.
    expect(everyCall("clears")).toEqual([
      { total: 3, strict: 2, recoverable: 3 },
      { total: 5, strict: 2, recoverable: 5 },
    ]);
    expect(everyCall("drops")).toEqual([
      { total: 3, strict: 2, recoverable: 2 },
      { total: 5, strict: 2, recoverable: 2 },
    ]);
  });

  it("measures at each turn's first call what the view holds of the previous turn's results", async () => {
    const simulation = await simulateThread(thread, { contestants: [RAW, CLEARS, DROPS], orgId: "o" });
    const previousTurn = (id: string) =>
      simulation.contestants.find((run) => run.id === id)?.turns.map((turn) => turn.previousTurn);
    const none = { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 };
    expect(previousTurn("raw")).toEqual([none, { total: 2, strict: 2, standIn: 0, handle: 2, lost: 0 }]);
    // a: a placeholder with its call; b: whole.
    expect(previousTurn("clears")).toEqual([none, { total: 2, strict: 1, standIn: 1, handle: 2, lost: 0 }]);
    expect(previousTurn("drops")).toEqual([none, { total: 2, strict: 1, standIn: 0, handle: 1, lost: 1 }]);
  });

  it("adds each counter's per-call counts up per turn, given every call's prompt, view and the previous view", async () => {
    const seen: string[] = [];
    const simulation = await simulateThread(thread, {
      contestants: [RAW, DROPS],
      orgId: "o",
      counters: [
        {
          id: "dropped",
          label: "messages dropped",
          count: (observed: ObservedCall) => {
            seen.push(
              `${observed.contestant} ${observed.turn}.${observed.call} ${observed.previousView?.length ?? "-"}`,
            );
            return observed.prompt.length - observed.view.messages.length;
          },
        },
      ],
    });
    expect(simulation.counters).toEqual([{ id: "dropped", label: "messages dropped" }]);
    const counts = (id: string) =>
      simulation.contestants.find((run) => run.id === id)?.turns.map((turn) => turn.counts);
    expect(counts("raw")).toEqual([{ dropped: 0 }, { dropped: 0 }]);
    // Turn 1: 0 + 0 + 2 (a's call and result); turn 2: 2 + 4.
    expect(counts("drops")).toEqual([{ dropped: 2 }, { dropped: 6 }]);
    expect(seen.filter((line) => line.startsWith("drops"))).toEqual([
      "drops 1.1 -",
      "drops 1.2 1",
      "drops 1.3 3",
      "drops 2.1 3",
      "drops 2.2 5",
    ]);
  });

  it("records no counts without counters", async () => {
    const simulation = await simulateThread(thread, { contestants: [RAW], orgId: "o" });
    expect(simulation.counters).toEqual([]);
    expect(simulation.contestants[0]?.turns[0]).not.toHaveProperty("counts");
  });

  it("records the prompt chars of every call, the largest of them the run's largest prompt", async () => {
    const simulation = await simulateThread(thread, { contestants: [RAW, DROPS], orgId: "o" });
    const run = (id: string) => simulation.contestants.find((candidate) => candidate.id === id);
    // Raw sends every message before each assistant message: turn 1 before indices 1, 3, 5; turn 2 before 7, 9.
    const before = (index: number) => viewChars(thread.messages.slice(0, index));
    expect(run("raw")?.turns.map((turn) => turn.callChars)).toEqual([
      [before(1), before(3), before(5)],
      [before(7), before(9)],
    ]);
    expect(largestPromptChars(run("raw") as NonNullable<ReturnType<typeof run>>)).toBe(before(9));
    // Drops keeps the latest result only: its largest prompt is another call's, smaller than raw's.
    const drops = run("drops") as NonNullable<ReturnType<typeof run>>;
    const perCall = drops.turns.flatMap((turn) => turn.callChars);
    expect(perCall).toHaveLength(5);
    expect(largestPromptChars(drops)).toBe(Math.max(...perCall));
    expect(largestPromptChars(drops)).toBeLessThan(before(9));
  });

  it("counts the calls whose view's ledger landed a batch; null for a contestant whose views carry none", async () => {
    /** Reports a batch applied once the prompt holds two results or more, none before. */
    const batching: Contestant = {
      id: "batching",
      label: "batching",
      accounting: "blind",
      cacheAware: true,
      view: (prompt) => ({
        messages: prompt,
        elapsedMs: 0,
        batch: prompt.filter((message) => message.role === "tool").length >= 2 ? "applied" : "none",
      }),
    };
    const simulation = await simulateThread(thread, { contestants: [RAW, batching], orgId: "o" });
    const batches = (id: string) =>
      simulation.contestants.find((run) => run.id === id)?.turns.map((turn) => turn.batchesApplied);
    // Turn 1: prompts with 0, 1 and 2 results; turn 2: 2 and 3.
    expect(batches("batching")).toEqual([1, 2]);
    expect(batches("raw")).toEqual([null, null]);
  });
});
