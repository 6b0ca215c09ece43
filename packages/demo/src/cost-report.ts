import { SCENARIOS, type ScenarioId } from "./cache-scenarios";
import type { ThreadSimulation } from "./simulate-turns";
import { type LineSeries, niceMax, renderLineChart } from "./svg-charts";

type StyleOf = (id: string, index: number) => { color: string; dash?: string };

const scenarioLabel = (id: ScenarioId) => SCENARIOS.find((scenario) => scenario.id === id)?.label ?? id;

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
