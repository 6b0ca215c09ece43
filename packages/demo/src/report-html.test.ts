import { describe, expect, it } from "vitest";
import { TARIFFS, type TariffId } from "./cache-prices";
import type { TurnCost } from "./cache-scenarios";
import { compareContestants } from "./comparison";
import { floorComparison } from "./cost-comparison";
import { renderReport } from "./report-html";
import { buildReportSet } from "./report-sets";
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

import { escapeHtml, niceMax, renderLineChart } from "./svg-charts";

function turns(values: number[]): TurnRecord[] {
  return values.map((value, index) => ({
    turn: index + 1,
    modelCalls: 1,
    promptChars: value,
    sentChars: value,
    callChars: [value],
    rawToolChars: value,
    countedToolChars: value,
    budgetCuts: 0,
    perResultCuts: 0,
    cacheBreaks: 0,
    invalidatedChars: 0,
    batchesApplied: null,
    viewParts: { resultsAsGiven: value, resultsCondensed: 0, conversation: 0 },
    retention: { total: 2, strict: 1, recoverable: 2 },
    missedProbes: [{ toolCallId: "c1", answer: "$1", result: "condensed", handle: true }],
    everyCall: { total: 4, strict: 2, recoverable: 4 },
    previousTurn: { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 },
    cost: { warm: turnCost(value / 4), cold: turnCost(value / 2) },
  }));
}

const runs: ContestantRun[] = [
  {
    id: "raw",
    label: "raw",
    accounting: "none",
    turns: turns([10, 5_000_000]),
    firstBudgetCutTurn: null,
    viewMs: [0],
  },
  {
    id: "blind-caps",
    label: "blind <caps>",
    accounting: "blind",
    turns: turns([10, 20]),
    firstBudgetCutTurn: null,
    viewMs: [1],
  },
  {
    id: "with-digests",
    label: "with digests",
    accounting: "effective",
    workerTiming: "next-user-message",
    turns: turns([10, 15]),
    firstBudgetCutTurn: null,
    viewMs: [1],
  },
];
const simulation: ThreadSimulation = {
  thread: "t",
  turns: 2,
  probes: 2,
  rawChars: 100,
  floor: Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, 20])) as Record<TariffId, number>,
  counters: [],
  contestants: runs,
  passes: {},
};

describe("renderReport", () => {
  const html = renderReport({
    title: "Report",
    summary: "summary",
    definitions: ["a definition"],
    sets: [
      {
        id: "set",
        title: "Set",
        description: "d",
        simulations: [simulation],
        rows: [],
        floor: floorComparison([simulation]),
        findings: ["a finding"],
      },
    ],
    digest: {
      thread: "t",
      sample: {
        toolCallId: "c",
        call: 'read_document(file_id="x", offset=0)',
        original: "Rent is $5 <b>",
        digest: "Rent: $5",
        answer: "$5",
        answerKept: true,
      },
    },
  });

  it("is self-contained: no script, no external asset", () => {
    expect(html).not.toMatch(/<script|<link|src=|href=|@import|url\((?!#)/i);
  });

  it("draws one line per contestant for prompt chars and one per budget track, with escaped labels", () => {
    const prompt = html.slice(html.indexOf('id="set-prompt-0"'), html.indexOf('id="set-cost-warm-0"'));
    expect(
      prompt.match(/<path data-series="[^"]+" clip-path="[^"]+" d="M-?[\d.]+ -?[\d.]+ L-?[\d.]+ -?[\d.]+"/g),
    ).toHaveLength(3);
    expect(prompt).toContain("blind &lt;caps&gt;");
    expect(prompt).toContain("raw leaves the scale (up to 5M)");
    const budget = html.slice(html.indexOf('id="set-budget-0"'));
    expect(budget.match(/<path data-series=/g)).toHaveLength(2);
    expect(budget).not.toContain("the raw ceiling");
  });

  it("draws each turn's cost beside the prompt chars, warm and cold, and the cost columns in the table", () => {
    const warm = html.slice(html.indexOf('id="set-cost-warm-0"'), html.indexOf('id="set-cost-cold-0"'));
    const cold = html.slice(html.indexOf('id="set-cost-cold-0"'), html.indexOf('id="set-budget-0"'));
    expect(warm.match(/<path data-series=/g)).toHaveLength(3);
    // Turns of 10 and 15 prompt chars priced at a quarter (warm) and a half (cold) of them.
    expect(warm).toContain("<title>with digests, 2: 4</title>");
    expect(cold).toContain("<title>with digests, 2: 8</title>");
    expect(html.indexOf('id="set-prompt-0"')).toBeLessThan(html.indexOf('id="set-cost-warm-0"'));
  });

  it("notes the raw ceiling under a budget chart whose effective track passed it", () => {
    const past = runs.map((run) =>
      run.id === "with-digests" ? { ...run, turns: turns([10, 2_500_000]) } : run,
    );
    const report = renderReport({
      title: "Report",
      summary: "",
      definitions: [],
      sets: [
        {
          id: "set",
          title: "Set",
          description: "",
          simulations: [{ ...simulation, contestants: past }],
          rows: [],
          floor: floorComparison([simulation]),
          findings: [],
        },
      ],
    });
    expect(report.slice(report.indexOf('id="set-budget-0"'))).toContain(
      "(the raw ceiling) the effective accounting",
    );
  });

  it("puts every table in a container that scrolls sideways within its section, the page no wider", () => {
    const report = renderReport({
      title: "Report",
      summary: "",
      definitions: [],
      sets: [
        {
          id: "set",
          title: "Set",
          description: "",
          simulations: [simulation],
          rows: compareContestants([simulation]),
          floor: floorComparison([simulation]),
          findings: [],
        },
      ],
    });
    const style = report.slice(report.indexOf("<style>"), report.indexOf("</style>"));
    expect(style).toMatch(/\.table-scroll \{[^}]*overflow-x: auto;/);
    expect(style).toMatch(/\.table-scroll \{[^}]*max-width: 100%;/);
    const tables = report.match(/<table class="comparison"/g) ?? [];
    expect(tables).toHaveLength(3);
    expect(report.match(/<div class="table-scroll">\n<table class="comparison"/g)).toHaveLength(
      tables.length,
    );
  });

  it("shows the comparison, the cost under every tariff and the previous turn, cost tables with a floor row", () => {
    const rows = compareContestants([simulation]);
    const report = renderReport({
      title: "Report",
      summary: "",
      definitions: [],
      sets: [
        {
          id: "set",
          title: "Set",
          description: "",
          simulations: [simulation],
          rows,
          floor: floorComparison([simulation]),
          findings: [],
        },
      ],
    });
    const table = (id: string) => {
      const start = report.indexOf(`id="${id}"`);
      return report.slice(start, report.indexOf("</table>", start));
    };
    const rowIds = (html: string) =>
      (html.match(/<tr(?: class="[^"]+")?><th scope="row">[^<]+/g) ?? []).length;
    expect(rowIds(table("set-table"))).toBe(4);
    expect(table("set-table")).toContain(
      '<tr class="floor"><th scope="row">floor (every message written once',
    );
    expect(table("set-table")).toContain("<th>strict retention, every call</th>");
    expect(rowIds(table("set-cost-table"))).toBe(4);
    expect(table("set-cost-table")).toContain("<th>OpenAI GPT-5, cold</th>");
    expect(table("set-cost-table")).toContain('<tr class="floor">');
    expect(rowIds(table("set-previous-turn-table"))).toBe(3);
    expect(table("set-previous-turn-table")).not.toContain('class="floor"');
    expect(report).toContain("A contestant costing more than raw shows a negative share;");
  });

  it("shows a single-turn set call by call: its tables, and a chart of the prompt at every model call", () => {
    // One turn of four calls per contestant.
    const single: ThreadSimulation = {
      ...simulation,
      turns: 1,
      contestants: runs.map((run, index) => ({
        ...run,
        turns: [{ ...(run.turns[0] as TurnRecord), callChars: [10, 400_000, 200_000 + index, 300_000] }],
      })),
    };
    const report = renderReport({
      title: "Report",
      summary: "",
      definitions: [],
      sets: [buildReportSet("one", "One turn", "", [single], "single-turn")],
    });
    expect(report).toContain('id="one-single-turn-table"');
    expect(report).toContain('id="one-single-turn-t-table"');
    expect(report).toContain("<th>largest prompt (chars)</th>");
    expect(report).not.toContain('id="one-previous-turn-table"');
    expect(report).not.toContain('id="one-prompt-0"');
    const chart = report.slice(report.indexOf('id="one-calls-0"'));
    expect(
      chart.match(/<path data-series="[^"]+" clip-path="[^"]+" d="(?:[ML]-?[\d.]+ -?[\d.]+ ?){4}"/g),
    ).toHaveLength(3);
    expect(chart).toContain("<title>blind &lt;caps&gt;, 3: 200,001</title>");
    // Labels under the axis: the first call, then every fifth (none here).
    expect(chart.match(/<text class="tick" x="[\d.]+" y="270"/g)).toHaveLength(1);
    expect(chart).toContain("history budget 320,000");
  });

  it("shows the digest beside its page, the probe answer marked in both", () => {
    expect(html).toContain('id="digest-original"');
    expect(html).toContain("Rent is <mark>$5</mark> &lt;b&gt;");
    expect(html).toContain("Rent: <mark>$5</mark>");
  });
});

describe("svg helpers", () => {
  it("round axis maxima up to 1, 2, 2.5 or 5 times a power of ten", () => {
    expect([niceMax(0), niceMax(7), niceMax(320_000), niceMax(600_001), niceMax(2_100_000)]).toEqual([
      1, 10, 500_000, 1_000_000, 2_500_000,
    ]);
  });

  it("escape every character that could break out of text or an attribute", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  it("print every nth label under the x axis when told, the first always", () => {
    const svg = renderLineChart({
      id: "c",
      title: "c",
      xLabel: "x",
      yLabel: "y",
      xTicks: Array.from({ length: 12 }, (_, index) => `call ${index + 1}`),
      labelEvery: 5,
      series: [{ id: "s", label: "s", color: "#000", values: Array.from({ length: 12 }, () => 1) }],
    });
    expect(svg.match(/>call \d+<\/text>/g)).toEqual([">call 1</text>", ">call 5</text>", ">call 10</text>"]);
    expect(svg).toContain("<title>s, call 7: 1</title>");
  });

  it("place a series' points left to right across the plot", () => {
    const svg = renderLineChart({
      id: "c",
      title: "c",
      xLabel: "x",
      yLabel: "y",
      xTicks: ["1", "2", "3"],
      series: [{ id: "s", label: "s", color: "#000", values: [0, 50, 100] }],
    });
    const d = svg.match(/ d="([^"]+)"/)?.[1] ?? "";
    const points = d
      .split(/[ML]/)
      .filter(Boolean)
      .map((pair) => pair.trim().split(" ").map(Number));
    expect(points.map(([x]) => x)).toEqual([72, 384, 696]);
    expect(points.map(([, y]) => y)).toEqual([252, 144, 36]);
  });
});
