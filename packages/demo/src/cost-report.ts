import { TARIFFS } from "./cache-prices";
import { SCENARIOS, type ScenarioId } from "./cache-scenarios";
import { COST_COLUMNS, type ComparisonRow } from "./comparison";
import { formatCostRatio } from "./cost-comparison";
import type { ThreadSimulation } from "./simulate-turns";
import { escapeHtml, type LineSeries, niceMax, renderLineChart } from "./svg-charts";

type StyleOf = (id: string, index: number) => { color: string; dash?: string };

const tariffLabel = (id: string) => TARIFFS.find((tariff) => tariff.id === id)?.label.split(" (")[0] ?? id;
const scenarioLabel = (id: ScenarioId) => SCENARIOS.find((scenario) => scenario.id === id)?.label ?? id;

/** The comparison table's cost header cells. */
export function costHeaderCells(): string {
  return [
    "<th>cache breaks / turn</th>",
    "<th>sent chars not cached (warm)</th>",
    ...COST_COLUMNS.map(
      (column) =>
        `<th>cost / raw: ${escapeHtml(tariffLabel(column.tariff))}, ${escapeHtml(column.scenario)}</th>`,
    ),
  ].join("");
}

/** A row's cost cells, in the order of {@link costHeaderCells}. */
export function costCells(row: ComparisonRow): string {
  return [
    `<td>${row.cacheBreaksPerTurn.toFixed(2)}</td>`,
    `<td>${(100 * row.cost.warm.notCachedShare).toFixed(1)}%</td>`,
    ...COST_COLUMNS.map((column) => `<td>${formatCostRatio(row.cost[column.scenario], column.tariff)}</td>`),
  ].join("");
}

/** Cost of each turn (Anthropic, 5-minute cache) per contestant under one scenario, in input-token units. */
export function costChart(
  simulation: ThreadSimulation,
  scenario: ScenarioId,
  chartId: string,
  styleOf: StyleOf,
): string {
  const perTurn = (turn: ThreadSimulation["contestants"][number]["turns"][number]) =>
    Math.round(turn.cost[scenario].units["anthropic-5m"]);
  const bounded = simulation.contestants
    .filter((run) => run.accounting !== "none")
    .flatMap((run) => run.turns.map(perTurn));
  return renderLineChart({
    yMax: niceMax(Math.max(1, ...bounded) * 1.15),
    id: chartId,
    title: `${simulation.thread}: cost of each turn, Anthropic 5-minute cache, ${scenarioLabel(scenario)}`,
    xLabel: "turn",
    yLabel: "cost (uncached input tokens)",
    xTicks: simulation.contestants[0]?.turns.map((turn) => String(turn.turn)) ?? [],
    series: simulation.contestants.map(
      (run, index): LineSeries => ({
        id: run.id,
        label: run.label,
        ...styleOf(run.id, index),
        values: run.turns.map(perTurn),
      }),
    ),
    note: "Each turn's calls priced as reads at 0.1×, writes at 1.25× and uncached input at 1× the base input price, in tokens of uncached input (chars / 4).",
  });
}
