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
    // From turn 3 on, one small result's digest (26 chars shorter than the result) waits,
    // its batch not paying for the rewrite: the budget counts it raw, as the view shows it.
    expect(digests.turns.map((turn) => turn.countedToolChars)).toEqual([384_634, 283_524, 227_070, 100_763]);
    expect(last?.promptChars).toBeLessThan(0.15 * simulation.rawChars);
    expect(last?.retention).toEqual({ total: 40, strict: 40, recoverable: 40 });
    expect(simulation.passes["next-user-message"]?.at(-1)).toMatchObject({ status: "done" });
    expect(simulation.digestSample?.digest).toContain("[Condensed by context-cleaner");
  });

  it("with the worker at turn end, the pass classifies with the next turn's wall: the same digests in time", () => {
    const written = (timing: "turn-end" | "next-user-message") =>
      simulation.passes[timing]?.map((pass) => [pass.status, pass.digestsWritten]);
    expect(written("turn-end")).toEqual([
      ["done", 6],
      ["done", 4],
      ["done", 3],
    ]);
    expect(written("turn-end")).toEqual(written("next-user-message"));
    expect(runOf("with-digests-turn-end").turns).toHaveLength(4);
    expect(runOf("with-digests-turn-end").turns).toEqual(runOf("with-digests").turns);
  });

  it("counts cache breaks: the drop-oldest backstop shifts the prefix, pruneMessages on nearly every call", () => {
    const breaks = (id: string) => runOf(id).turns.reduce((sum, turn) => sum + turn.cacheBreaks, 0);
    expect(breaks("raw")).toBe(0);
    expect(breaks("blind-caps")).toBeGreaterThan(0);
    expect(breaks("prune-messages")).toBeGreaterThan(breaks("blind-caps"));
    expect(runOf("with-digests").viewMs).toHaveLength(runOf("raw").viewMs.length);
  });
});
