import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { type Contestant, RAW, type SimulatedCacheContext } from "./contestants";
import { simulateThread } from "./simulate-turns";
import { viewChars } from "./view-measures";

// Two turns: a tool call and its 5,000-char result then an answer, and a one-call turn.
const thread: Message[] = [
  { role: "system", content: "You read documents." },
  { role: "user", content: "Read the lease." },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "t1", name: "read_document", args: { file_id: "f" } }],
  },
  { role: "tool", toolCallId: "t1", toolName: "read_document", content: "lease ".repeat(1_000) },
  { role: "assistant", content: "The lease runs five years." },
  { role: "user", content: "And the rent?" },
  { role: "assistant", content: "The rent is due monthly." },
];

/** A cache-aware contestant that records every context it is given and answers with a numbered condensed id. */
function recordingContestant(): { contestant: Contestant; contexts: (SimulatedCacheContext | undefined)[] } {
  const contexts: (SimulatedCacheContext | undefined)[] = [];
  return {
    contexts,
    contestant: {
      id: "aware",
      label: "aware",
      accounting: "blind",
      cacheAware: true,
      view(prompt, _digests, cache) {
        contexts.push(cache);
        return { messages: prompt, elapsedMs: 0, condensedIds: [`seen-${contexts.length}`] };
      },
    },
  };
}

async function play(contestants: Contestant[]) {
  return simulateThread(
    { name: "lease", messages: thread, probes: [] },
    { contestants, orgId: "scenarios-test" },
  );
}

describe("the two timing scenarios", () => {
  it("give a cache-aware contestant each scenario's context per call: turn start, idle time, the previous call's condensed ids", async () => {
    const { contestant, contexts } = recordingContestant();
    await play([contestant]);
    const base = { lifetimeMs: 300_000, provider: "anthropic" };
    // Warm and cold alternate per call; the first turn has no previous call (idle unknown).
    expect(contexts).toEqual([
      { turnStart: true, ...base },
      { turnStart: true, ...base },
      { turnStart: false, ...base, shown: ["seen-1"] },
      { turnStart: false, ...base, shown: ["seen-2"] },
      { turnStart: true, idleMs: 60_000, ...base, shown: ["seen-3"] },
      { turnStart: true, idleMs: 3_900_000, ...base, shown: ["seen-4"] },
    ]);
  });

  it("play other contestants once per call, without a context", async () => {
    const seen: (SimulatedCacheContext | undefined)[] = [];
    await play([
      {
        ...RAW,
        view: (prompt, _digests, cache) => {
          seen.push(cache);
          return { messages: prompt, elapsedMs: 0 };
        },
      },
    ]);
    expect(seen).toEqual([undefined, undefined, undefined]);
  });

  it("read the previous turn's prefix at a warm turn start and nothing at a cold one", async () => {
    const simulation = await play([RAW]);
    const second = simulation.contestants[0]?.turns[1];
    const previous = viewChars(thread.slice(0, 4));
    const sent = viewChars(thread.slice(0, 6));
    expect(second?.cost.warm.calls[0]?.anthropic).toMatchObject({
      readChars: previous,
      writeChars: sent - previous,
    });
    expect(second?.cost.cold.calls[0]?.anthropic).toMatchObject({ readChars: 0, writeChars: sent });
    expect(second?.cost.cold.calls[0]?.openai).toEqual({ cachedChars: 0, uncachedChars: sent });
    // The first turn is the same in both: its first call finds an empty cache either way.
    expect(simulation.contestants[0]?.turns[0]?.cost.cold.units).toEqual(
      simulation.contestants[0]?.turns[0]?.cost.warm.units,
    );
  });
});
