/**
 * The comparison's tables, as data the printed (Markdown) and the HTML report render
 * alike: the comparison (headline: the share of the avoidable cost removed and retention
 * at every call), the cost under every tariff, and what each turn's first call still has
 * of the previous turn. Each cost table has a floor row next to the contestants.
 */
import { TARIFFS, type TariffId } from "./cache-prices";
import { SCENARIOS, type ScenarioId } from "./cache-scenarios";
import { type ComparisonRow, formatTurnsBeforeCut } from "./comparison";
import { type FloorCost, formatCostCell, formatFloorCell } from "./cost-comparison";

/** One row of a table: a contestant, or the floor. */
export interface TableRow {
  /** The contestant's id, or `floor`. */
  id: string;
  label: string;
  cells: string[];
}

export interface ComparisonTable {
  /** Unique within a set: `comparison`, `cost`, `previous-turn`. */
  id: string;
  title: string;
  /** Headers of the columns after the first (the contestant's). */
  headers: string[];
  rows: TableRow[];
  /** How to read the cells, under the table. */
  legend: string;
}

/** The floor row's id and label. */
export const FLOOR_ROW = { id: "floor", label: "floor (every message written once, nothing read)" } as const;

/** How to read a cost cell; the legend of every table with cost columns. */
export const COST_LEGEND =
  "Cost cells: the share of the avoidable cost removed, (raw − cost) / (raw − floor), then the cost over raw's in brackets. The floor writes every message of the thread to the cache once and reads nothing (Anthropic 1.25× on the 5-minute cache, 2× on the 1-hour cache; OpenAI 1×): 100%; raw is 0%. A contestant costing more than raw shows a negative share; one costing less than the floor (possible only by not showing the model every message) more than 100%.";

/** The headline cost columns of the comparison: Anthropic 5-minute and OpenAI GPT-4.1 class, warm then cold. */
export const COST_COLUMNS = [
  { tariff: "anthropic-5m", scenario: "warm" },
  { tariff: "anthropic-5m", scenario: "cold" },
  { tariff: "openai-gpt-4.1", scenario: "warm" },
  { tariff: "openai-gpt-4.1", scenario: "cold" },
] as const satisfies readonly { tariff: TariffId; scenario: ScenarioId }[];

/** Every tariff, warm then cold: the columns of the cost table. */
const ALL_COST_COLUMNS = TARIFFS.flatMap((tariff) =>
  SCENARIOS.map((scenario) => ({ tariff: tariff.id as TariffId, scenario: scenario.id as ScenarioId })),
);

/** Each tariff's name in a column header. */
export const TARIFF_NAMES: Record<TariffId, string> = {
  "anthropic-5m": "Anthropic 5-min",
  "anthropic-1h": "Anthropic 1-hour",
  "openai-gpt-4o": "OpenAI GPT-4o",
  "openai-gpt-4.1": "OpenAI GPT-4.1",
  "openai-gpt-5": "OpenAI GPT-5",
};

const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
const fraction = (part: number, whole: number) => `${part}/${whole} (${percent(part, whole)})`;
const counted = (part: number, whole: number) => `${part} (${percent(part, whole)})`;

type CostColumn = { tariff: TariffId; scenario: ScenarioId };

function costHeader(column: CostColumn): string {
  return `${TARIFF_NAMES[column.tariff]}, ${column.scenario}`;
}

function floorRow(
  columns: readonly CostColumn[],
  floor: Record<ScenarioId, FloorCost>,
  width: number,
): TableRow {
  const cells = columns.map((column) => formatFloorCell(floor[column.scenario], column.tariff));
  return { ...FLOOR_ROW, cells: [...cells, ...Array.from({ length: width - cells.length }, () => "–")] };
}

/**
 * The comparison: the share of the avoidable cost removed (Anthropic 5-minute, OpenAI
 * GPT-4.1 class, warm and cold), retention at every call, then the figures of each
 * thread's last view, the budget, the cache and the view's speed, and a column per
 * counter the simulation ran; the floor row last.
 */
export function comparisonTable(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
): ComparisonTable {
  const counters = rows[0]?.counts ?? [];
  const headers = [
    ...COST_COLUMNS.map((column) => `share removed (cost / raw), ${costHeader(column)}`),
    "strict retention, every call",
    "recoverable retention, every call",
    "view / raw chars",
    "strict retention, last view",
    "recoverable retention, last view",
    "strict, every turn's last view",
    "turns before 1st budget cut (+ = never cut)",
    "results cut",
    "cache breaks / turn",
    "not cached, warm",
    "median view ms",
    ...counters.map((counter) => counter.label),
  ];
  const body = rows.map(
    (row): TableRow => ({
      id: row.id,
      label: row.label,
      cells: [
        ...COST_COLUMNS.map((column) => formatCostCell(row.cost[column.scenario], column.tariff)),
        percent(row.everyCall.strict, row.everyCall.total),
        percent(row.everyCall.recoverable, row.everyCall.total),
        percent(row.promptChars, row.rawChars),
        fraction(row.strict, row.probes),
        fraction(row.recoverable, row.probes),
        percent(row.strictEveryTurn, row.probesEveryTurn),
        formatTurnsBeforeCut(row),
        String(row.budgetCuts),
        row.cacheBreaksPerTurn.toFixed(2),
        `${(100 * row.cost.warm.notCachedShare).toFixed(1)}%`,
        row.medianViewMs.toFixed(2),
        ...counters.map((counter) => String(row.counts.find((entry) => entry.id === counter.id)?.value ?? 0)),
      ],
    }),
  );
  return {
    id: "comparison",
    title: "Comparison: share of the avoidable cost removed, retention at every call, and more",
    headers,
    rows: [...body, floorRow(COST_COLUMNS, floor, headers.length)],
    legend: `${COST_LEGEND} Retention at every call: over every (model call, probe whose result arrived before it) pair, the answer verbatim in the view (strict) or, failing that, a re-read handle for its result in it (recoverable).`,
  };
}

/** The cost under every tariff, warm and cold, with the floor row. */
export function costTable(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
): ComparisonTable {
  return {
    id: "cost",
    title: "Cost with prompt caching, every tariff: share of the avoidable cost removed (cost / raw)",
    headers: ALL_COST_COLUMNS.map(costHeader),
    rows: [
      ...rows.map(
        (row): TableRow => ({
          id: row.id,
          label: row.label,
          cells: ALL_COST_COLUMNS.map((column) => formatCostCell(row.cost[column.scenario], column.tariff)),
        }),
      ),
      floorRow(ALL_COST_COLUMNS, floor, ALL_COST_COLUMNS.length),
    ],
    legend:
      "Cells as in the comparison: the share of the avoidable cost removed (negative above raw's cost), then the cost over raw's.",
  };
}

/** What each turn's first call still has of the probes whose results arrived in the previous turn. */
export function previousTurnTable(rows: readonly ComparisonRow[]): ComparisonTable {
  return {
    id: "previous-turn",
    title: "What the model still has of the previous turn (each turn's first call)",
    headers: [
      "probes of the previous turn",
      "answer verbatim",
      "in a digest / stand-in",
      "re-read handle",
      "none of these",
    ],
    rows: rows.map((row) => {
      const { total, strict, standIn, handle, lost } = row.previousTurn;
      return {
        id: row.id,
        label: row.label,
        cells: [
          String(total),
          counted(strict, total),
          counted(standIn, total),
          counted(handle, total),
          counted(lost, total),
        ],
      };
    }),
    legend:
      "At each turn's first model call, the probes whose results arrived in the previous turn, summed over turns and threads. A probe counts in every form the view holds it in: its answer verbatim; its result as a digest or stand-in (the view's result of the call is not what the contestant was given: a digest, a stub, a placeholder); a re-read handle (a re-read line naming its call, or the call itself). None of these: the model has nothing of it.",
  };
}

/** The cost columns of the single-turn table: Anthropic 5-minute and OpenAI GPT-4.1 class, warm (a single turn has no cold start). */
export const SINGLE_TURN_COST_COLUMNS = [
  { tariff: "anthropic-5m", scenario: "warm" },
  { tariff: "openai-gpt-4.1", scenario: "warm" },
] as const satisfies readonly { tariff: TariffId; scenario: ScenarioId }[];

const integer = (value: number) => value.toLocaleString("en-US");

/**
 * The single-turn table: inside one long user turn, the share of the avoidable cost removed
 * (warm), the largest prompt any call sent, retention at every call, results cut, how
 * often the prompt's prefix changed (cache breaks, and the batches the ledger reports
 * applied) and a column per counter; the floor row last. `title` names the threads.
 */
export function singleTurnTable(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
  options: { id?: string; title?: string } = {},
): ComparisonTable {
  const counters = rows[0]?.counts ?? [];
  const headers = [
    ...SINGLE_TURN_COST_COLUMNS.map((column) => `share removed (cost / raw), ${costHeader(column)}`),
    "largest prompt (chars)",
    "strict retention, every call",
    "recoverable retention, every call",
    "results cut",
    "cache breaks / turn",
    "batches applied / turn (ledger)",
    ...counters.map((counter) => counter.label),
  ];
  const body = rows.map(
    (row): TableRow => ({
      id: row.id,
      label: row.label,
      cells: [
        ...SINGLE_TURN_COST_COLUMNS.map((column) => formatCostCell(row.cost[column.scenario], column.tariff)),
        integer(row.largestPromptChars),
        percent(row.everyCall.strict, row.everyCall.total),
        percent(row.everyCall.recoverable, row.everyCall.total),
        String(row.budgetCuts),
        row.cacheBreaksPerTurn.toFixed(2),
        row.batchesAppliedPerTurn === null ? "–" : row.batchesAppliedPerTurn.toFixed(2),
        ...counters.map((counter) => String(row.counts.find((entry) => entry.id === counter.id)?.value ?? 0)),
      ],
    }),
  );
  return {
    id: options.id ?? "single-turn",
    title: options.title ?? "Inside one long turn: cost, largest prompt, retention at every call, batches",
    headers,
    rows: [...body, floorRow(SINGLE_TURN_COST_COLUMNS, floor, headers.length)],
    legend: `${COST_LEGEND} Largest prompt: the most chars one model call sent (the history budget is 320,000). Retention at every call: over every (model call, probe whose result arrived before it) pair, the answer verbatim in the view (strict) or, failing that, a re-read handle for its result in it (recoverable). Results cut: results the conversation budget cut as they arrived. Cache breaks: model calls whose view changed an earlier message of the previous call's view; batches applied: calls whose assembly report's ledger landed a batch of condensations (– for a contestant without one).`,
  };
}

/** The set's tables, in print order. */
export function comparisonTables(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
): ComparisonTable[] {
  return [comparisonTable(rows, floor), costTable(rows, floor), previousTurnTable(rows)];
}

/** What a set's tables are made from: its rows and floor, and for a single-turn set each thread's own. */
export interface TableSource {
  /** `turns` (the default): the comparison, cost and previous-turn tables; `single-turn`: the single-turn tables. */
  kind?: "turns" | "single-turn";
  rows: readonly ComparisonRow[];
  floor: Record<ScenarioId, FloorCost>;
  /** Per thread, its own rows and floor (single-turn sets). */
  perThread?: readonly {
    thread: string;
    rows: readonly ComparisonRow[];
    floor: Record<ScenarioId, FloorCost>;
  }[];
}

/**
 * A set's tables, in print order: for a set of turns, the comparison, the cost and the
 * previous turn's tables; for a single-turn set, the single-turn table over all its
 * threads, one per thread, and the cost table (a single turn has no previous turn).
 */
export function setTables(set: TableSource): ComparisonTable[] {
  if (set.kind !== "single-turn") return comparisonTables(set.rows, set.floor);
  return [
    singleTurnTable(set.rows, set.floor),
    ...(set.perThread ?? []).map((entry) => ({
      ...singleTurnTable(entry.rows, entry.floor, {
        id: `single-turn-${entry.thread}`,
        title: `${entry.thread}: cost, largest prompt, retention at every call, batches`,
      }),
      legend: `The single-turn table's columns, over ${entry.thread} alone.`,
    })),
    {
      ...costTable(set.rows, set.floor),
      legend: `${costTable(set.rows, set.floor).legend} In a single turn warm and cold are the same: its first call finds no cache either way.`,
    },
  ];
}

const markdownCell = (text: string) => text.replace(/\|/g, "\\|");

/** A table as Markdown: header, alignment row, one line per row. */
export function renderMarkdownTable(table: ComparisonTable): string {
  return [
    `| contestant | ${table.headers.map(markdownCell).join(" | ")} |`,
    `|---|${table.headers.map(() => "---:").join("|")}|`,
    ...table.rows.map((row) => `| ${[row.label, ...row.cells].map(markdownCell).join(" | ")} |`),
  ].join("\n");
}

/** The comparison's main table as Markdown. */
export function renderComparisonTable(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
): string {
  return renderMarkdownTable(comparisonTable(rows, floor));
}

/** Tables as Markdown, each under its title and over its legend. */
export function renderTables(tables: readonly ComparisonTable[]): string {
  return tables
    .map((table) => `### ${table.title}\n\n${renderMarkdownTable(table)}\n\n${table.legend}`)
    .join("\n\n");
}

/** Every table of a set of turns as Markdown, each under its title and over its legend. */
export function renderComparisonTables(
  rows: readonly ComparisonRow[],
  floor: Record<ScenarioId, FloorCost>,
): string {
  return renderTables(comparisonTables(rows, floor));
}
