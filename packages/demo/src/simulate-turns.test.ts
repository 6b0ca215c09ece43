import { createExtractiveDigester, fixedClock } from "@context-cleaner/core";
import { createDatabase, createDigestRepository, type Database } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureThreads } from "./demo-threads";
import { createLineup } from "./lineup";
import {
  type ContestantRun,
  simulateThread,
  type ThreadSimulation,
  turnsBeforeFirstCut,
} from "./simulate-turns";

// The credit-agreement fixture: turns of 384,634 / 225,486 / 85,203 raw tool chars, then the closing request.
const thread = fixtureThreads().find((fixture) => fixture.name === "credit-agreement");
let database: Database;
let simulation: ThreadSimulation;
const runOf = (id: string) => simulation.contestants.find((run) => run.id === id) as ContestantRun;

beforeAll(async () => {
  if (!thread) throw new Error("the credit-agreement fixture is missing");
  database = await createDatabase("pglite://");
  await database.migrate();
  simulation = await simulateThread(thread, {
    contestants: createLineup(),
    worker: {
      store: createDigestRepository(database),
      digester: createExtractiveDigester(),
      clock: fixedClock(new Date("2026-01-06T12:00:00.000Z")),
    },
    orgId: "simulate-test",
  });
});

afterAll(async () => {
  await database?.close();
});

describe("simulateThread over the credit-agreement fixture", () => {
  it("plays four user turns; raw shows the whole thread in the last prompt and is never cut", () => {
    const raw = runOf("raw");
    expect(simulation.turns).toBe(4);
    expect(raw.turns.map((turn) => turn.turn)).toEqual([1, 2, 3, 4]);
    expect(raw.firstBudgetCutTurn).toBeNull();
    // Everything but the pending ask_user call, the last model call's own output.
    expect(raw.turns.at(-1)?.promptChars).toBeLessThan(simulation.rawChars);
    expect(raw.turns.at(-1)?.promptChars).toBeGreaterThan(simulation.rawChars - 1_000);
    expect(raw.turns.at(-1)?.retention).toEqual({ total: 40, strict: 40, recoverable: 40 });
  });

  it("prices the thread's floor from the messages played, each once at the write price, under raw's cost", () => {
    expect(simulation.floor["anthropic-5m"]).toBeCloseTo((simulation.rawChars * 1.25) / 4, 6);
    expect(simulation.floor["anthropic-1h"]).toBeCloseTo((simulation.rawChars * 2) / 4, 6);
    expect(simulation.floor["openai-gpt-5"]).toBeCloseTo(simulation.rawChars / 4, 6);
    const raw = runOf("raw");
    for (const scenario of ["warm", "cold"] as const) {
      for (const tariff of ["anthropic-5m", "anthropic-1h", "openai-gpt-4o", "openai-gpt-5"] as const) {
        const cost = raw.turns.reduce((sum, turn) => sum + turn.cost[scenario].units[tariff], 0);
        expect(cost, `${scenario} ${tariff}`).toBeGreaterThan(simulation.floor[tariff]);
      }
    }
  });

  it("cuts under blind accounting in turn 3, once 610,120 raw chars were spent in two turns", () => {
    const blind = runOf("blind-caps");
    expect(blind.turns.map((turn) => turn.countedToolChars)).toEqual([384_634, 610_120, 613_000, 613_000]);
    expect(blind.firstBudgetCutTurn).toBe(3);
    expect(turnsBeforeFirstCut(blind)).toBe(2);
    // The other blind-accounting contestants record the same thread, so the same cuts.
    for (const id of ["trim-messages", "prune-messages", "clear-tool-results", "inline-only"]) {
      expect(runOf(id).turns.map((turn) => turn.budgetCuts)).toEqual(
        blind.turns.map((turn) => turn.budgetCuts),
      );
    }
  });

  it("gives the budget back once the worker's digests load: never cut, every probe in view", () => {
    const digests = runOf("with-digests");
    const last = digests.turns.at(-1);
    expect(digests.firstBudgetCutTurn).toBeNull();
    // Each turn start condenses every page of the turn before (the recency wall starts at
    // the latest user message): the budget counts their digests from then on.
    expect(digests.turns.map((turn) => turn.countedToolChars)).toEqual([384_634, 251_056, 124_920, 100_763]);
    expect(last?.promptChars).toBeLessThan(0.15 * simulation.rawChars);
    expect(last?.retention).toEqual({ total: 40, strict: 40, recoverable: 40 });
    expect(last?.missedProbes).toEqual([]);
    // The last view's parts add up to it, and the digests loaded at the turn's start are in it.
    const parts = last?.viewParts;
    expect((parts?.resultsAsGiven ?? 0) + (parts?.resultsCondensed ?? 0) + (parts?.conversation ?? 0)).toBe(
      last?.promptChars,
    );
    expect(parts?.resultsCondensed).toBeGreaterThan(0);
    expect(runOf("raw").turns.at(-1)?.viewParts.resultsCondensed).toBe(0);
    expect(simulation.passes["next-user-message"]?.at(-1)).toMatchObject({ status: "done" });
    expect(simulation.digestSample?.digest).toContain("[Condensed by context-cleaner");
  });

  it("with the worker at turn end, the pass classifies with the next turn's wall: the same digests in time", () => {
    const written = (timing: "turn-end" | "next-user-message") =>
      simulation.passes[timing]?.map((pass) => [pass.status, pass.digestsWritten]);
    expect(written("turn-end")).toEqual([
      ["done", 7],
      ["done", 5],
      ["done", 1],
    ]);
    expect(written("turn-end")).toEqual(written("next-user-message"));
    expect(runOf("with-digests-turn-end").turns).toHaveLength(4);
    expect(runOf("with-digests-turn-end").turns).toEqual(runOf("with-digests").turns);
  });

  it("names the probes a last view lacks: blind caps' cut results, each with where it is and whether a handle is", () => {
    const last = runOf("blind-caps").turns.at(-1);
    const missing = (last?.retention.total ?? 0) - (last?.retention.strict ?? 0);
    expect(missing).toBeGreaterThan(0);
    expect(last?.missedProbes).toHaveLength(missing);
    expect(last?.missedProbes.filter((probe) => !probe.handle)).toHaveLength(
      (last?.retention.total ?? 0) - (last?.retention.recoverable ?? 0),
    );
    for (const probe of last?.missedProbes ?? []) expect(["cut", "absent"]).toContain(probe.result);
  });

  it("measures retention at every call and what each turn's first call holds of the previous turn", () => {
    for (const turn of runOf("raw").turns) {
      expect(turn.everyCall.strict).toBe(turn.everyCall.total);
      expect(turn.previousTurn).toMatchObject({ strict: turn.previousTurn.total, standIn: 0, lost: 0 });
    }
    // Turn 1's 31 probes at turn 2's first call; the peers' format conversions are no stand-ins.
    expect(runOf("with-digests").turns[1]?.previousTurn).toMatchObject({ total: 31, strict: 31, handle: 31 });
    expect(runOf("with-digests").turns[1]?.previousTurn.standIn).toBeGreaterThan(0);
    for (const id of ["blind-caps", "trim-messages", "prune-messages"]) {
      expect(runOf(id).turns.every((turn) => turn.previousTurn.standIn === 0)).toBe(true);
    }
    const everyCall = (id: string) => runOf(id).turns.reduce((sum, turn) => sum + turn.everyCall.strict, 0);
    expect(everyCall("blind-caps")).toBeLessThan(everyCall("with-digests"));
  });

  it("counts cache breaks: the drop-oldest backstop shifts the prefix, pruneMessages on nearly every call", () => {
    const breaks = (id: string) => runOf(id).turns.reduce((sum, turn) => sum + turn.cacheBreaks, 0);
    expect(breaks("raw")).toBe(0);
    expect(breaks("blind-caps")).toBeGreaterThan(0);
    expect(breaks("prune-messages")).toBeGreaterThan(breaks("blind-caps"));
    expect(runOf("with-digests").viewMs).toHaveLength(runOf("raw").viewMs.length);
  });
});
