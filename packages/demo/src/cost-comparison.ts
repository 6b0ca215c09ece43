import { TARIFFS, type TariffId } from "./cache-prices";
import { SCENARIOS, type ScenarioId } from "./cache-scenarios";
import type { ContestantRun, ThreadSimulation } from "./simulate-turns";

/** One contestant's prompt-cache figures over a set of threads, under one timing scenario. */
export interface ScenarioCost {
  /** Cost per tariff, base-input-token units summed over every call of every thread. */
  units: Record<TariffId, number>;
  /** `units` over raw's (sum over threads over raw's sum); null without a raw contestant. */
  vsRaw: Record<TariffId, number> | null;
  /** Per thread, the Anthropic 5-minute cost over raw's. */
  perThread: { thread: string; vsRaw: number | null }[];
  sentChars: number;
  /** Share of sent chars not read from Anthropic's cache (written or uncached). */
  notCachedShare: number;
  /** Model calls that broke the cache, per turn on average. */
  cacheBreaksPerTurn: number;
  /** Strict retention summed over every turn's last view, and the probes it counts. */
  strictEveryTurn: number;
  probesEveryTurn: number;
}

function unitsOf(run: ContestantRun, scenario: ScenarioId): Record<TariffId, number> {
  const units = Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, 0])) as Record<TariffId, number>;
  for (const turn of run.turns) {
    for (const tariff of TARIFFS) units[tariff.id] += turn.cost[scenario].units[tariff.id];
  }
  return units;
}

function runOf(simulation: ThreadSimulation, id: string): ContestantRun | undefined {
  return simulation.contestants.find((candidate) => candidate.id === id);
}

function scenarioCost(
  simulations: readonly ThreadSimulation[],
  id: string,
  scenario: ScenarioId,
): ScenarioCost {
  const units = Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, 0])) as Record<TariffId, number>;
  const rawUnits = { ...units };
  let hasRaw = true;
  let sentChars = 0;
  let notCached = 0;
  let breaks = 0;
  let turns = 0;
  let strictEveryTurn = 0;
  let probesEveryTurn = 0;
  const perThread: ScenarioCost["perThread"] = [];
  for (const simulation of simulations) {
    const run = runOf(simulation, id);
    if (!run) continue;
    const raw = runOf(simulation, "raw");
    const own = unitsOf(run, scenario);
    const rawOwn = raw ? unitsOf(raw, scenario) : undefined;
    if (!rawOwn) hasRaw = false;
    for (const tariff of TARIFFS) {
      units[tariff.id] += own[tariff.id];
      rawUnits[tariff.id] += rawOwn?.[tariff.id] ?? 0;
    }
    perThread.push({
      thread: simulation.thread,
      vsRaw: rawOwn ? own["anthropic-5m"] / Math.max(1e-9, rawOwn["anthropic-5m"]) : null,
    });
    for (const turn of run.turns) {
      const cost = turn.cost[scenario];
      sentChars += cost.sentChars;
      notCached += cost.notCachedChars;
      breaks += cost.cacheBreaks;
      strictEveryTurn += cost.retention.strict;
      probesEveryTurn += cost.retention.total;
      turns++;
    }
  }
  const vsRaw = hasRaw
    ? (Object.fromEntries(
        TARIFFS.map((tariff) => [tariff.id, units[tariff.id] / Math.max(1e-9, rawUnits[tariff.id])]),
      ) as Record<TariffId, number>)
    : null;
  return {
    units,
    vsRaw,
    perThread,
    sentChars,
    notCachedShare: notCached / Math.max(1, sentChars),
    cacheBreaksPerTurn: breaks / Math.max(1, turns),
    strictEveryTurn,
    probesEveryTurn,
  };
}

/** A contestant's cost figures under each timing scenario. */
export function costComparison(
  simulations: readonly ThreadSimulation[],
  id: string,
): Record<ScenarioId, ScenarioCost> {
  return Object.fromEntries(
    SCENARIOS.map((scenario) => [scenario.id, scenarioCost(simulations, id, scenario.id)]),
  ) as Record<ScenarioId, ScenarioCost>;
}

/** `0.53×`, or `–` without raw to compare with. */
export function formatCostRatio(cost: ScenarioCost, tariff: TariffId): string {
  return cost.vsRaw ? `${cost.vsRaw[tariff].toFixed(2)}×` : "–";
}
