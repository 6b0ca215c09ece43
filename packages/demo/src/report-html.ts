import { BUDGET_DEFAULTS } from "@context-cleaner/assembler";
import { COMPACTION_DEFAULTS } from "@context-cleaner/assembler/internal";
import type { ScenarioId } from "./cache-scenarios";
import type { ComparisonRow } from "./comparison";
import { type ComparisonTable, FLOOR_ROW, setTables, type TableSource } from "./comparison-tables";
import type { FloorCost } from "./cost-comparison";
import { costChart } from "./cost-report";
import type { DigestSample } from "./digest-sample";
import type { ContestantRun, ThreadSimulation } from "./simulate-turns";
import { escapeHtml, type LineSeries, niceMax, renderBarChart, renderLineChart } from "./svg-charts";

/** A set of threads played together, with its comparison. */
export interface ReportSet extends TableSource {
  id: string;
  title: string;
  description: string;
  simulations: readonly ThreadSimulation[];
  rows: readonly ComparisonRow[];
  /** The threads' floor against raw's cost, per scenario (the floor row of the cost tables). */
  floor: Record<ScenarioId, FloorCost>;
  /** Short findings for this set: targets met or missed, where a peer does better. */
  findings: readonly string[];
}

export interface ReportInput {
  title: string;
  /** What was played and how (settings, timings), one paragraph. */
  summary: string;
  /** How to read the figures, one line each. */
  definitions: readonly string[];
  sets: readonly ReportSet[];
  digest?: { thread: string; sample: DigestSample };
}

/** Colour and dash of each contestant, the same in every chart. */
const STYLES: Record<string, { color: string; dash?: string }> = {
  raw: { color: "#7f7f7f", dash: "2 3" },
  "blind-caps": { color: "#d62728" },
  "trim-messages": { color: "#ff7f0e", dash: "6 3" },
  "prune-messages": { color: "#9467bd", dash: "6 3" },
  "clear-tool-results": { color: "#8c564b", dash: "2 2" },
  "inline-only": { color: "#17becf", dash: "4 2" },
  "with-digests": { color: "#2ca02c" },
  "with-digests-turn-end": { color: "#1f77b4", dash: "8 3" },
};
const FALLBACK_COLORS = ["#e377c2", "#bcbd22", "#393b79", "#637939"];

function styleOf(id: string, index: number): { color: string; dash?: string } {
  return STYLES[id] ?? { color: FALLBACK_COLORS[index % FALLBACK_COLORS.length] as string };
}

const integer = (value: number) => value.toLocaleString("en-US");

/** A y axis for the bounded series: a series far above them (raw) leaves the scale, with a note. */
function boundedScale(values: readonly number[], floor: number): number {
  return niceMax(Math.max(floor, ...values) * 1.15);
}

function promptChart(simulation: ThreadSimulation, chartId: string): string {
  const bounded = simulation.contestants
    .filter((run) => run.accounting !== "none")
    .flatMap((run) => run.turns.map((turn) => turn.promptChars));
  return renderLineChart({
    yMax: boundedScale(bounded, COMPACTION_DEFAULTS.historyBudgetChars),
    id: chartId,
    title: `${simulation.thread}: prompt chars at each turn's last model call`,
    xLabel: "turn",
    yLabel: "prompt chars",
    xTicks: simulation.contestants[0]?.turns.map((turn) => String(turn.turn)) ?? [],
    series: simulation.contestants.map(
      (run, index): LineSeries => ({
        id: run.id,
        label: run.label,
        ...styleOf(run.id, index),
        values: run.turns.map((turn) => turn.promptChars),
      }),
    ),
    rules: [{ value: COMPACTION_DEFAULTS.historyBudgetChars, label: "history budget 320,000" }],
  });
}

/** Prompt chars at every model call of a thread (a single-turn thread: the turn call by call). */
function callPromptChart(simulation: ThreadSimulation, chartId: string): string {
  const perCall = (run: ContestantRun) => run.turns.flatMap((turn) => turn.callChars);
  const calls = perCall(simulation.contestants[0] as ContestantRun).length;
  const bounded = simulation.contestants.filter((run) => run.accounting !== "none").flatMap(perCall);
  return renderLineChart({
    yMax: boundedScale(bounded, COMPACTION_DEFAULTS.historyBudgetChars),
    id: chartId,
    title: `${simulation.thread}: prompt chars at every model call`,
    xLabel: "model call",
    yLabel: "prompt chars",
    xTicks: Array.from({ length: calls }, (_, index) => String(index + 1)),
    labelEvery: 5,
    series: simulation.contestants.map(
      (run, index): LineSeries => ({
        id: run.id,
        label: run.label,
        ...styleOf(run.id, index),
        values: perCall(run),
      }),
    ),
    rules: [{ value: COMPACTION_DEFAULTS.historyBudgetChars, label: "history budget 320,000" }],
  });
}

/** One run per budget track: blind accounting and each effective track. */
function budgetRuns(simulation: ThreadSimulation): ContestantRun[] {
  const seen = new Set<string>();
  return simulation.contestants.filter((run) => {
    if (run.accounting === "none") return false;
    const key = `${run.accounting}:${run.workerTiming ?? ""}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function budgetLabel(run: ContestantRun): string {
  if (run.accounting === "blind") return "blind accounting (raw chars)";
  return run.workerTiming === "turn-end"
    ? "effective accounting, worker at turn end"
    : "effective accounting (effectiveToolChars)";
}

function budgetChart(simulation: ThreadSimulation, chartId: string): string {
  const runs = budgetRuns(simulation);
  const blind = runs
    .filter((run) => run.accounting === "blind")
    .flatMap((run) => run.turns.map((turn) => turn.countedToolChars));
  return renderLineChart({
    yMax: boundedScale(blind, BUDGET_DEFAULTS.conversationBudgetChars),
    id: chartId,
    title: `${simulation.thread}: tool chars the conversation budget counts at each turn's end`,
    xLabel: "turn",
    yLabel: "tool chars counted",
    xTicks: runs[0]?.turns.map((turn) => String(turn.turn)) ?? [],
    series: runs.map(
      (run, index): LineSeries => ({
        id: `${run.accounting}${run.workerTiming ? `-${run.workerTiming}` : ""}`,
        label: `${budgetLabel(run)} — ${run.turns.reduce((sum, turn) => sum + turn.budgetCuts, 0)} results cut`,
        ...styleOf(run.id, index),
        values: run.turns.map((turn) => turn.countedToolChars),
      }),
    ),
    rules: [{ value: BUDGET_DEFAULTS.conversationBudgetChars, label: "conversation budget 600,000" }],
    ...(runs.some((run) => (run.turns.at(-1)?.rawToolChars ?? 0) > BUDGET_DEFAULTS.rawCeilingChars)
      ? {
          note: "Past 2,000,000 raw tool chars (the raw ceiling) the effective accounting counts raw chars again.",
        }
      : {}),
  });
}

function retentionChart(set: ReportSet): string {
  return renderBarChart({
    id: `${set.id}-retention`,
    title: `${set.title}: probe retention in the last view`,
    max: 100,
    unit: "%",
    groups: set.rows.map((row, index) => ({
      label: row.label,
      bars: [
        {
          id: `${row.id}-strict`,
          label: "strict",
          color: styleOf(row.id, index).color,
          value: (100 * row.strict) / Math.max(1, row.probes),
        },
        {
          id: `${row.id}-recoverable`,
          label: "recoverable",
          color: styleOf(row.id, index).color,
          opacity: 0.5,
          value: (100 * row.recoverable) / Math.max(1, row.probes),
        },
      ],
    })),
  });
}

function rowClass(id: string): string {
  if (id === "with-digests") return ' class="this-project"';
  return id === FLOOR_ROW.id ? ' class="floor"' : "";
}

/** A table in its scrolling container, its legend under it. */
function htmlTable(set: ReportSet, table: ComparisonTable): string {
  const id = table.id === "comparison" ? `${set.id}-table` : `${set.id}-${table.id}-table`;
  const body = table.rows
    .map(
      (row) =>
        `<tr${rowClass(row.id)}><th scope="row">${escapeHtml(row.label)}</th>${row.cells.map((cell) => `<td>${escapeHtml(cell)}</td>`).join("")}</tr>`,
    )
    .join("\n");
  return `<h3>${escapeHtml(table.title)}</h3>
<div class="table-scroll">
<table class="comparison" id="${escapeHtml(id)}">
<thead><tr><th>contestant</th>${table.headers.map((header) => `<th>${escapeHtml(header)}</th>`).join("")}</tr></thead>
<tbody>
${body}
</tbody></table>
</div>
<p class="legend">${escapeHtml(table.legend)}</p>`;
}

function highlight(text: string, answer: string | undefined): string {
  const escaped = escapeHtml(text);
  if (!answer) return escaped;
  const needle = escapeHtml(answer);
  return escaped.split(needle).join(`<mark>${needle}</mark>`);
}

/** About `radius` chars either side of `answer` (whitespace collapsed), cut at spaces. */
function excerpt(text: string, answer: string | undefined, radius = 180): string | undefined {
  if (!answer) return undefined;
  const flat = text.replace(/\s+/g, " ");
  const at = flat.indexOf(answer);
  if (at < 0) return undefined;
  const start = Math.max(0, flat.lastIndexOf(" ", Math.max(0, at - radius)));
  const endSpace = flat.indexOf(" ", at + answer.length + radius);
  const end = endSpace < 0 ? flat.length : endSpace;
  return `${start > 0 ? "… " : ""}${flat.slice(start, end).trim()}${end < flat.length ? " …" : ""}`;
}

function excerptBlock(text: string, answer: string | undefined): string {
  const lines = excerpt(text, answer);
  return lines === undefined ? "" : `<pre class="excerpt">${highlight(lines, answer)}</pre>`;
}

function digestPanel(digest: { thread: string; sample: DigestSample }): string {
  const { sample } = digest;
  return `<section id="digest" class="digest-panel">
<h2>One page and its digest</h2>
<p>${escapeHtml(digest.thread)}, the result of <code>${escapeHtml(sample.call)}</code>: ${integer(sample.original.length)} chars in the thread, ${integer(sample.digest.length)} chars in the view${sample.answer ? `. The probe answer <mark>${escapeHtml(sample.answer)}</mark> is ${sample.answerKept ? "kept verbatim" : "not in the digest; the re-read call brings it back"}` : ""}.</p>
<div class="side-by-side">
<div class="panel" id="digest-original"><h3>Original page (the checkpoint keeps it)</h3>${excerptBlock(sample.original, sample.answer)}<pre class="full">${highlight(sample.original, sample.answer)}</pre></div>
<div class="panel" id="digest-condensed"><h3>What the model sees</h3>${excerptBlock(sample.digest, sample.answer)}<pre class="full">${highlight(sample.digest, sample.answer)}</pre></div>
</div>
</section>`;
}

const STYLE = `
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2230; margin: 0 auto; max-width: 1180px; padding: 24px 28px 64px; }
h1 { font-size: 26px; margin: 0 0 6px; } h2 { font-size: 20px; margin: 36px 0 8px; border-bottom: 1px solid #dde1ea; padding-bottom: 4px; } h3 { font-size: 15px; margin: 0 0 6px; }
p.summary { color: #4a5168; margin: 0 0 12px; }
ul.findings li { margin: 4px 0; }
.table-scroll { max-width: 100%; overflow-x: auto; margin: 12px 0 4px; }
table.comparison { border-collapse: collapse; min-width: 100%; font-size: 13.5px; }
table.comparison th, table.comparison td { border: 1px solid #dde1ea; padding: 5px 8px; text-align: right; }
table.comparison td { white-space: nowrap; }
table.comparison thead th { min-width: 6em; vertical-align: bottom; }
table.comparison th[scope="row"] { min-width: 12em; }
table.comparison tr.this-project { background: #eef8ee; }
table.comparison tr.floor { background: #f6f3ea; font-style: italic; }
p.legend { font-size: 12.5px; color: #5b6275; margin: 0 0 12px; }
section.set h3 { margin-top: 20px; }
table.comparison th[scope="row"], table.comparison thead th:first-child { text-align: left; }
table.comparison thead th { background: #f3f5f9; font-weight: 600; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 18px; }
figure.chart { margin: 0; padding: 10px 12px; border: 1px solid #e6e9f0; border-radius: 8px; background: #fff; }
figure.chart figcaption { font-weight: 600; font-size: 14px; margin-bottom: 4px; }
figure.chart > svg { width: 100%; height: auto; display: block; }
figure.chart p.note { font-size: 12px; color: #5b6275; margin: 4px 0 0; }
ul.legend svg { flex: none; }
ul.definitions { font-size: 13.5px; color: #3b4154; }
ul.findings { background: #f8f9fc; border: 1px solid #e6e9f0; border-radius: 8px; padding: 10px 10px 10px 30px; }
svg .grid { stroke: #eceff5; } svg .tick { font-size: 12px; fill: #5b6275; } svg .axis { font-size: 13px; fill: #3b4154; }
svg .rule { stroke: #444; stroke-dasharray: 5 4; } svg .rule-label { font-size: 12px; fill: #333; paint-order: stroke; stroke: #fff; stroke-width: 4px; }
svg .bar-track { fill: #f1f3f7; } svg .bar-group { font-size: 14px; fill: #1d2230; } svg .bar-value { font-size: 13px; fill: #3b4154; }
ul.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; }
ul.legend li { display: flex; align-items: center; gap: 6px; }
.side-by-side { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.panel { border: 1px solid #e6e9f0; border-radius: 8px; padding: 10px; background: #fafbfd; min-width: 0; }
.panel pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; line-height: 1.4; margin: 0; }
.panel pre.full { max-height: 520px; overflow: auto; border-top: 1px solid #e6e9f0; padding-top: 8px; }
.panel pre.excerpt { background: #fff8d6; border: 1px solid #f0dc8a; border-radius: 6px; padding: 6px 8px; margin-bottom: 8px; }
mark { background: #ffe66d; padding: 0 1px; }
code { font-size: 13px; background: #f3f5f9; padding: 1px 4px; border-radius: 4px; }
`;

/** The self-contained HTML report: inline CSS and SVG, no script, no external asset. */
export function renderReport(input: ReportInput): string {
  const sections = input.sets
    .map((set) => {
      const charts = set.simulations
        .map((simulation, index) =>
          set.kind === "single-turn"
            ? callPromptChart(simulation, `${set.id}-calls-${index}`)
            : promptChart(simulation, `${set.id}-prompt-${index}`) +
              costChart(simulation, "warm", `${set.id}-cost-warm-${index}`, styleOf) +
              costChart(simulation, "cold", `${set.id}-cost-cold-${index}`, styleOf) +
              budgetChart(simulation, `${set.id}-budget-${index}`),
        )
        .join("\n");
      return `<section class="set" id="${escapeHtml(set.id)}">
<h2>${escapeHtml(set.title)}</h2>
<p>${escapeHtml(set.description)}</p>
${setTables(set)
  .map((table) => htmlTable(set, table))
  .join("\n")}
<ul class="findings">${set.findings.map((finding) => `<li>${escapeHtml(finding)}</li>`).join("")}</ul>
${retentionChart(set)}
<div class="charts">
${charts}
</div>
</section>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(input.title)}</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(input.title)}</h1>
<p class="summary">${escapeHtml(input.summary)}</p>
<ul class="definitions">${input.definitions.map((line) => `<li>${escapeHtml(line)}</li>`).join("")}</ul>
${sections}
${input.digest ? digestPanel(input.digest) : ""}
</body></html>
`;
}
