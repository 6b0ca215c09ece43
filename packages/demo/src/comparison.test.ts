import { describe, expect, it } from "vitest";
import { TARIFFS, type TariffId } from "./cache-prices";
import type { TurnCost } from "./cache-scenarios";
import { compareContestants, formatTurnsBeforeCut } from "./comparison";
import {
  comparisonTable,
  costTable,
  previousTurnTable,
  renderComparisonTable,
  setTables,
  singleTurnTable,
} from "./comparison-tables";
import { floorComparison, formatCostCell, formatFloorCell, type ScenarioCost } from "./cost-comparison";
import { lossFindings, singleTurnFindings, targetFindings } from "./findings";
import type { ContestantRun, ThreadSimulation, TurnRecord } from "./simulate-turns";

function turnCost(units: number, fields: Partial<TurnCost> = {}): TurnCost {
  return {
    calls: [],
    units: Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, units])) as Record<TariffId, number>,
    sentChars: 100,
    notCachedChars: 25,
    promptChars: 100,
    cacheBreaks: 0,
    retention: { total: 10, strict: 10, recoverable: 10 },
    ...fields,
  };
}

function turn(number: number, fields: Partial<TurnRecord> = {}): TurnRecord {
  return {
    turn: number,
    modelCalls: 1,
    promptChars: 100,
    sentChars: 100,
    callChars: [100],
    rawToolChars: 0,
    countedToolChars: 0,
    budgetCuts: 0,
    perResultCuts: 0,
    cacheBreaks: 0,
    invalidatedChars: 0,
    batchesApplied: null,
    viewParts: { resultsAsGiven: 0, resultsCondensed: 0, conversation: 100 },
    retention: { total: 10, strict: 10, recoverable: 10 },
    missedProbes: [],
    everyCall: { total: 20, strict: 20, recoverable: 20 },
    previousTurn: { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 },
    cost: { warm: turnCost(100), cold: turnCost(100) },
    ...fields,
  };
}

function run(id: string, turns: TurnRecord[], viewMs: number[]): ContestantRun {
  const cut = turns.find((record) => record.budgetCuts > 0);
  return {
    id,
    label: id,
    accounting: id === "raw" ? "none" : id === "with-digests" ? "effective" : "blind",
    turns,
    firstBudgetCutTurn: cut ? cut.turn : null,
    viewMs,
  };
}

const units = (value: number) =>
  Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, value])) as Record<TariffId, number>;

function simulation(name: string, runs: ContestantRun[], floor = 200): ThreadSimulation {
  return {
    thread: name,
    turns: 3,
    probes: 10,
    rawChars: 1_000,
    floor: units(floor),
    counters: [],
    contestants: runs,
    passes: {},
  };
}

const simulations = [
  simulation("one", [
    run(
      "blind-caps",
      [
        turn(1),
        turn(2, { budgetCuts: 2 }),
        turn(3, { promptChars: 300, cacheBreaks: 1, retention: { total: 10, strict: 4, recoverable: 6 } }),
      ],
      [1, 3],
    ),
    run("with-digests", [turn(1), turn(2), turn(3, { promptChars: 50, cacheBreaks: 3 })], [2, 4]),
  ]),
  simulation("two", [
    run(
      "blind-caps",
      [
        turn(1, { budgetCuts: 1 }),
        turn(2),
        turn(3, { promptChars: 200, retention: { total: 10, strict: 10, recoverable: 10 } }),
      ],
      [5],
    ),
    run(
      "with-digests",
      [
        turn(1),
        turn(2),
        turn(3, {
          budgetCuts: 1,
          promptChars: 70,
          retention: { total: 10, strict: 9, recoverable: 10 },
          missedProbes: [{ toolCallId: "c9", answer: "$9", result: "condensed", handle: true }],
        }),
      ],
      [6, 8],
    ),
  ]),
];

describe("compareContestants", () => {
  it("adds the last views up over the threads and keeps per-thread turns before the first cut", () => {
    const [blind, digests] = compareContestants(simulations);
    expect(blind).toMatchObject({
      id: "blind-caps",
      viewShare: 0.25,
      strict: 14,
      recoverable: 16,
      probes: 20,
      budgetCuts: 3,
      cacheBreaksPerThread: 0.5,
      medianViewMs: 3,
    });
    expect(blind?.turnsBeforeFirstCut.map((entry) => [entry.thread, entry.turns, entry.cut])).toEqual([
      ["one", 1, true],
      ["two", 0, true],
    ]);
    expect(digests).toMatchObject({ viewShare: 0.06, strict: 19, recoverable: 20, medianViewMs: 5 });
    // Every turn's last view: 10 + 10 + 4 and 10 + 10 + 10 of 60 for blind caps.
    expect(blind).toMatchObject({ strictEveryTurn: 54, probesEveryTurn: 60 });
    expect(digests).toMatchObject({ strictEveryTurn: 59, probesEveryTurn: 60 });
    expect(formatTurnsBeforeCut(digests as NonNullable<typeof digests>)).toBe("3+, 2");
  });

  it("renders one table row per contestant, then the floor's", () => {
    const table = renderComparisonTable(compareContestants(simulations), floorComparison(simulations)).split(
      "\n",
    );
    expect(table).toHaveLength(5);
    expect(table[3]).toBe(
      "| with-digests | – (–) | – (–) | – (–) | – (–) | 100.0% | 100.0% | 6.0% | 19/20 (95.0%) | 20/20 (100.0%) | 98.3% | 3+, 2 | 1 | 0.50 | 25.0% | 5.00 |",
    );
    expect(table[4]).toBe(
      `| floor (every message written once, nothing read) | 100% (–) | 100% (–) | 100% (–) | 100% (–) |${" – |".repeat(11)}`,
    );
  });

  it("adds retention at every call and the previous turn's probes up over turns and threads", () => {
    const held = { total: 4, strict: 2, standIn: 3, handle: 4, lost: 0 };
    const measured = simulations.map((entry, index) => ({
      ...entry,
      contestants: entry.contestants.map((candidate) => ({
        ...candidate,
        turns: candidate.turns.map((record) =>
          record.turn === 2
            ? {
                ...record,
                everyCall: { total: 8, strict: 3 + index, recoverable: 6 },
                previousTurn: index === 0 ? held : { ...held, strict: 1, lost: 1 },
              }
            : record,
        ),
      })),
    }));
    const digests = compareContestants(measured)[1];
    // Turns 1 and 3 at 20 of 20 in both threads, turn 2 at 3 and 4 of 8.
    expect(digests?.everyCall).toEqual({ total: 96, strict: 87, recoverable: 92 });
    expect(digests?.previousTurn).toEqual({ total: 8, strict: 3, standIn: 6, handle: 8, lost: 1 });
    expect(previousTurnTable(compareContestants(measured)).rows[1]?.cells).toEqual([
      "8",
      "3 (37.5%)",
      "6 (75.0%)",
      "8 (100.0%)",
      "1 (12.5%)",
    ]);
    expect(
      comparisonTable(compareContestants(measured), floorComparison(measured)).rows[1]?.cells.slice(4, 6),
    ).toEqual(["90.6%", "95.8%"]);
  });

  it("gives every counter the simulation ran a column, its per-turn counts summed; none without counters", () => {
    const counted = simulations.map((entry) => ({
      ...entry,
      counters: [{ id: "refused", label: "requests refused" }],
      contestants: entry.contestants.map((candidate) => ({
        ...candidate,
        turns: candidate.turns.map((record) => ({ ...record, counts: { refused: record.turn } })),
      })),
    }));
    const rows = compareContestants(counted);
    expect(rows[0]?.counts).toEqual([{ id: "refused", label: "requests refused", value: 12 }]);
    const table = comparisonTable(rows, floorComparison(counted));
    expect(table.headers.at(-1)).toBe("requests refused");
    expect(table.rows.map((row) => row.cells.at(-1))).toEqual(["12", "12", "–"]);
    const plain = comparisonTable(compareContestants(simulations), floorComparison(simulations));
    expect(plain.headers).toHaveLength(table.headers.length - 1);
    expect(plain.headers.at(-1)).toBe("median view ms");
  });
});

describe("compareContestants, cost with prompt caching", () => {
  const priced = [
    simulation("one", [
      run("raw", [turn(1, { cost: { warm: turnCost(1_000), cold: turnCost(2_000) } })], [0]),
      run(
        "with-digests",
        [
          turn(1, {
            cacheBreaks: 1,
            cost: {
              warm: turnCost(300, { notCachedChars: 40 }),
              cold: turnCost(1_000, { cacheBreaks: 1, retention: { total: 10, strict: 7, recoverable: 10 } }),
            },
          }),
        ],
        [1],
      ),
    ]),
    simulation("two", [
      run("raw", [turn(1, { cost: { warm: turnCost(1_000), cold: turnCost(2_000) } })], [0]),
      run("with-digests", [turn(1, { cost: { warm: turnCost(500), cold: turnCost(2_000) } })], [1]),
    ]),
  ];

  it("sums each scenario's cost over the threads and divides by raw's, per tariff and per thread", () => {
    const digests = compareContestants(priced)[1];
    expect(digests?.cost.warm.vsRaw?.["anthropic-5m"]).toBeCloseTo(0.4, 10);
    expect(digests?.cost.cold.vsRaw?.["openai-gpt-4.1"]).toBeCloseTo(0.75, 10);
    expect(digests?.cost.warm.perThread.map(({ thread, vsRaw }) => ({ thread, vsRaw }))).toEqual([
      { thread: "one", vsRaw: 0.3 },
      { thread: "two", vsRaw: 0.5 },
    ]);
    // 40 + 25 of 200 sent chars; cold: 1 break in 2 turns, 17 of 20 probes.
    expect(digests?.cost.warm.notCachedShare).toBeCloseTo(0.325, 10);
    expect(digests?.cost.cold).toMatchObject({
      cacheBreaksPerTurn: 0.5,
      strictEveryTurn: 17,
      probesEveryTurn: 20,
    });
    expect(digests?.cacheBreaksPerTurn).toBe(0.5);
  });

  it("removes a share of the avoidable cost: (raw − cost) / (raw − floor), summed over the threads, per tariff", () => {
    const digests = compareContestants(priced)[1];
    // Warm: raw 2,000, digests 800, floor 400. Cold: raw 4,000, digests 3,000.
    expect(digests?.cost.warm.removed?.["anthropic-5m"]).toBeCloseTo(0.75, 10);
    expect(digests?.cost.cold.removed?.["openai-gpt-5"]).toBeCloseTo(1_000 / 3_600, 10);
    expect(digests?.cost.warm.floorUnits["anthropic-1h"]).toBe(400);
    // Per thread, Anthropic 5-minute: (1,000 − 300) / 800 and (1,000 − 500) / 800.
    expect(digests?.cost.warm.perThread.map((entry) => entry.removed)).toEqual([0.875, 0.625]);
    expect(compareContestants(priced)[0]?.cost.warm.removed?.["openai-gpt-4o"]).toBe(0);
  });

  it("gives a contestant costing more than raw a negative share", () => {
    const dearer = priced.map((entry) => ({
      ...entry,
      contestants: [
        ...entry.contestants,
        run("blind-caps", [turn(1, { cost: { warm: turnCost(1_400), cold: turnCost(2_000) } })], [1]),
      ],
    }));
    const blind = compareContestants(dearer)[2];
    expect(blind?.cost.warm.removed?.["anthropic-5m"]).toBeCloseTo(-0.5, 10);
    expect(blind?.cost.cold.removed?.["anthropic-5m"]).toBe(0);
    expect(formatCostCell(blind?.cost.warm as ScenarioCost, "anthropic-5m")).toBe("-50.0% (1.40×)");
  });

  it("prices the floor against raw, and has no share without raw or with raw at the floor", () => {
    const floor = floorComparison(priced);
    expect(floor.warm.units["anthropic-5m"]).toBe(400);
    expect(floor.warm.vsRaw?.["anthropic-5m"]).toBeCloseTo(0.2, 10);
    expect(floor.cold.vsRaw?.["openai-gpt-4.1"]).toBeCloseTo(0.1, 10);
    expect(formatFloorCell(floor.warm, "anthropic-5m")).toBe("100% (0.20×)");
    const rawOnly = priced.map((entry) => ({ ...entry, contestants: entry.contestants.slice(1) }));
    expect(compareContestants(rawOnly)[0]?.cost.warm.removed).toBeNull();
    expect(floorComparison(rawOnly).warm.vsRaw).toBeNull();
    const atFloor = priced.map((entry) => ({ ...entry, floor: units(1_000) }));
    expect(compareContestants(atFloor)[1]?.cost.warm.removed?.["anthropic-5m"]).toBeNull();
    expect(formatCostCell(compareContestants(atFloor)[1]?.cost.warm as ScenarioCost, "anthropic-5m")).toBe(
      "– (0.40×)",
    );
  });

  it("shows the share removed and the ratio in the tables, warm then cold, with the floor row, every tariff in the cost table", () => {
    const rows = compareContestants(priced);
    const floor = floorComparison(priced);
    const main = renderComparisonTable(rows, floor).split("\n");
    expect(main[3]).toMatch(
      /^\| with-digests \| 75\.0% \(0\.40×\) \| 27\.8% \(0\.75×\) \| 75\.0% \(0\.40×\) \| 27\.8% \(0\.75×\) \| /,
    );
    expect(main[3]).toContain("| 0.50 | 32.5% |");
    expect(main[4]).toMatch(
      /^\| floor .* \| 100% \(0\.20×\) \| 100% \(0\.10×\) \| 100% \(0\.20×\) \| 100% \(0\.10×\) \| – \|/,
    );
    const cost = costTable(rows, floor);
    expect(cost.headers).toHaveLength(10);
    expect(cost.headers.slice(0, 3)).toEqual([
      "Anthropic 5-min, warm",
      "Anthropic 5-min, cold",
      "Anthropic 1-hour, warm",
    ]);
    expect(cost.rows.map((row) => [row.id, row.cells[0], row.cells[9]])).toEqual([
      ["raw", "0.0% (1.00×)", "0.0% (1.00×)"],
      ["with-digests", "75.0% (0.40×)", "27.8% (0.75×)"],
      ["floor", "100% (0.20×)", "100% (0.10×)"],
    ]);
    expect(cost.legend).toContain("negative above raw's cost");
    const cheaper = priced.map((entry) => ({
      ...entry,
      contestants: [
        ...entry.contestants,
        run("blind-caps", [turn(1, { cost: { warm: turnCost(200), cold: turnCost(200) } })], [1]),
      ],
    }));
    expect(targetFindings(compareContestants(cheaper)).at(-1)).toBe(
      "cost with prompt caching (Anthropic, 5-minute cache): 75.0% of the avoidable cost removed (0.40× raw) with every call warm, 27.8% (0.75×) with each turn cold; 0.50 cache breaks per turn",
    );
    expect(lossFindings(compareContestants(cheaper))).toEqual([
      "blind-caps beats context-cleaner on fewer cache breaks per thread (0.0 vs 0.5); a lower cost with prompt caching, every call warm (100.0% vs 75.0% of the avoidable cost removed; 0.20× vs 0.40× raw)",
    ]);
  });
});

describe("findings", () => {
  it("say which targets this project met and missed", () => {
    const lines = targetFindings(compareContestants(simulations));
    expect(lines[0]).toBe(
      'strict retention 19/20 (95.0%, target 100%): missed: 1 answer is not verbatim in the last views: two "$9" (call c9: its result condensed without it; a re-read handle in view)',
    );
    expect(lines[1]).toMatch(/^recoverable retention 20\/20 .*: met$/);
    expect(lines[2]).toMatch(/^view 6\.0% .*: met$/);
    expect(lines[3]).toBe(
      "turns before the first budget cut vs blind caps: one 3+ vs 1 (3.0×); two 2 vs 0 (2.0×) (target ≥ 3×): missed: two: cut in turn 3, where 3× blind caps' 0 needs 3 turns uncut",
    );
  });

  it("say why a missed target was missed: the answers lacking, what the view holds, threads that end first", () => {
    const lost = [
      { toolCallId: "c1", answer: "$1", result: "absent" as const, handle: false },
      { toolCallId: "c2", answer: "$2", result: "cut" as const, handle: false },
      { toolCallId: "c3", answer: "$3", result: "condensed" as const, handle: true },
      { toolCallId: "c4", answer: "$4", result: "absent" as const, handle: false },
    ];
    const short = [
      simulation("short", [
        run("blind-caps", [turn(1), turn(2, { budgetCuts: 1 })], [1]),
        run(
          "with-digests",
          [
            turn(1),
            turn(2, {
              promptChars: 150,
              viewParts: { resultsAsGiven: 90, resultsCondensed: 40, conversation: 20 },
              retention: { total: 10, strict: 6, recoverable: 7 },
              missedProbes: lost,
            }),
          ],
          [1],
        ),
      ]),
    ];
    const lines = targetFindings(compareContestants(short));
    expect(lines[0]).toBe(
      'strict retention 6/10 (60.0%, target 100%): missed: 4 answers are not verbatim in the last views: short "$1" (call c1: its result out of the view; no re-read handle), short "$2" (call c2: its result cut by the caps before the view; no re-read handle), short "$3" (call c3: its result condensed without it; a re-read handle in view) and 1 more',
    );
    expect(lines[1]).toBe(
      'recoverable retention 7/10 (70.0%, target 100%): missed: 3 answers have neither the text nor a re-read handle in the last views: short "$1" (call c1: its result out of the view; no re-read handle), short "$2" (call c2: its result cut by the caps before the view; no re-read handle), short "$4" (call c4: its result out of the view; no re-read handle)',
    );
    expect(lines[2]).toBe(
      "view 15.0% of raw chars (target ≤ 6.0%): missed: the last views hold results kept raw (the recency window, the keep-rules) at 9.0%, condensed results at 4.0%, the conversation (messages and tool calls) at 2.0% of raw chars; over the target on its own: results kept raw",
    );
    expect(lines[3]).toBe(
      "turns before the first budget cut vs blind caps: short 2+ vs 1 (2.0×) (target ≥ 3×): missed: short: never cut, end after 2 turns: 3× blind caps' 1 needs 3",
    );
  });

  it("name each column where a peer beats this project, and only those", () => {
    expect(lossFindings(compareContestants(simulations))).toEqual([
      "blind-caps beats context-cleaner on fewer cache breaks per thread (0.5 vs 1.5); a faster view (median 3.00 ms vs 5.00 ms)",
    ]);
    const forgetful = simulations.map((entry) => ({
      ...entry,
      contestants: entry.contestants.map((candidate) =>
        candidate.id === "with-digests"
          ? {
              ...candidate,
              turns: candidate.turns.map((record) => ({
                ...record,
                everyCall: { total: 20, strict: 15, recoverable: 20 },
              })),
            }
          : candidate,
      ),
    }));
    expect(lossFindings(compareContestants(forgetful))[0]).toContain(
      "more strict retention at every call (100.0% vs 75.0%)",
    );
  });
});

describe("inside one long turn", () => {
  // Two single-turn threads: raw, blind caps (no ledger) and this project (a ledger on every call).
  const single = [
    simulation("one", [
      run(
        "raw",
        [turn(1, { callChars: [100, 400, 900], cost: { warm: turnCost(1_000), cold: turnCost(1_000) } })],
        [0],
      ),
      run(
        "blind-caps",
        [
          turn(1, {
            callChars: [100, 400, 700],
            budgetCuts: 1,
            cost: { warm: turnCost(1_100), cold: turnCost(1_100) },
          }),
        ],
        [1],
      ),
      run(
        "with-digests",
        [
          turn(1, {
            callChars: [100, 350, 300],
            cacheBreaks: 1,
            batchesApplied: 1,
            everyCall: { total: 10, strict: 8, recoverable: 10 },
            cost: { warm: turnCost(600), cold: turnCost(600) },
          }),
        ],
        [1],
      ),
    ]),
    simulation("two", [
      run(
        "raw",
        [turn(1, { callChars: [200, 500], cost: { warm: turnCost(1_000), cold: turnCost(1_000) } })],
        [0],
      ),
      run(
        "blind-caps",
        [turn(1, { callChars: [200, 500], cost: { warm: turnCost(1_100), cold: turnCost(1_100) } })],
        [1],
      ),
      run(
        "with-digests",
        [
          turn(1, {
            callChars: [200, 380],
            batchesApplied: 0,
            everyCall: { total: 6, strict: 6, recoverable: 6 },
            cost: { warm: turnCost(800), cold: turnCost(800) },
          }),
        ],
        [1],
      ),
    ]),
  ];

  it("takes the largest prompt over every call of every thread, and averages the batches applied per turn", () => {
    const [raw, blind, digests] = compareContestants(single);
    expect([raw?.largestPromptChars, blind?.largestPromptChars, digests?.largestPromptChars]).toEqual([
      900, 700, 380,
    ]);
    expect(digests?.batchesAppliedPerTurn).toBe(0.5);
    expect(blind?.batchesAppliedPerTurn).toBeNull();
    expect(digests?.cacheBreaksPerTurn).toBe(0.5);
  });

  it("shows cost warm, the largest prompt, retention at every call, cuts, breaks, batches and the counters, then the floor", () => {
    const counted = single.map((entry) => ({
      ...entry,
      counters: [{ id: "refused", label: "refused (prefix check)" }],
      contestants: entry.contestants.map((candidate) => ({
        ...candidate,
        turns: candidate.turns.map((record) => ({
          ...record,
          counts: { refused: candidate.id === "raw" ? 0 : 2 },
        })),
      })),
    }));
    const table = singleTurnTable(compareContestants(counted), floorComparison(counted));
    expect(table.headers).toEqual([
      "share removed (cost / raw), Anthropic 5-min, warm",
      "share removed (cost / raw), OpenAI GPT-4.1, warm",
      "largest prompt (chars)",
      "strict retention, every call",
      "recoverable retention, every call",
      "results cut",
      "cache breaks / turn",
      "batches applied / turn (ledger)",
      "refused (prefix check)",
    ]);
    // Warm: raw 2,000, floor 400; this project 1,400: (2,000 − 1,400) / 1,600; blind caps 2,200.
    expect(table.rows.map((row) => [row.id, ...row.cells])).toEqual([
      ["raw", "0.0% (1.00×)", "0.0% (1.00×)", "900", "100.0%", "100.0%", "0", "0.00", "–", "0"],
      ["blind-caps", "-12.5% (1.10×)", "-12.5% (1.10×)", "700", "100.0%", "100.0%", "1", "0.00", "–", "4"],
      ["with-digests", "37.5% (0.70×)", "37.5% (0.70×)", "380", "87.5%", "100.0%", "0", "0.50", "0.50", "4"],
      ["floor", "100% (0.20×)", "100% (0.20×)", "–", "–", "–", "–", "–", "–", "–"],
    ]);
  });

  it("gives a single-turn set the single-turn table, one per thread and the cost table; a set of turns its three tables", () => {
    const rows = compareContestants(single);
    const floor = floorComparison(single);
    const perThread = single.map((entry) => ({
      thread: entry.thread,
      rows: compareContestants([entry]),
      floor: floorComparison([entry]),
    }));
    const tables = setTables({ kind: "single-turn", rows, floor, perThread });
    expect(tables.map((table) => table.id)).toEqual([
      "single-turn",
      "single-turn-one",
      "single-turn-two",
      "cost",
    ]);
    expect(tables[1]?.rows.find((row) => row.id === "with-digests")?.cells[2]).toBe("350");
    expect(tables[3]?.legend).toContain("warm and cold are the same");
    expect(setTables({ rows, floor }).map((table) => table.id)).toEqual([
      "comparison",
      "cost",
      "previous-turn",
    ]);
  });

  it("finds this project's largest prompt against the history budget, its retention, cost and batches", () => {
    expect(singleTurnFindings(compareContestants(single))).toEqual([
      "largest prompt 380 chars (raw 900): within the 320,000-char history budget",
      "retention at every call: 87.5% strict, 100.0% recoverable",
      "cost with prompt caching, every call warm: 37.5% of the avoidable cost removed on Anthropic's 5-minute cache (0.70× raw), 37.5% on OpenAI GPT-4.1 (0.70× raw)",
      "0.50 cache breaks and 0.50 batches applied per turn",
    ]);
  });
});
