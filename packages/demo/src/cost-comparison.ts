import { TARIFFS, type TariffId } from "./cache-prices";
import { SCENARIOS, type ScenarioId } from "./cache-scenarios";
import type { ContestantRun, ThreadSimulation } from "./simulate-turns";

/** One contestant's prompt-cache figures over a set of threads, under one timing scenario. */
export interface ScenarioCost {
  /** Cost per tariff, base-input-token units summed over every call of every thread. */
  units: Record<TariffId, number>;
  /** `units` over raw's (sum over threads over raw's sum); null without a raw contestant. */
  vsRaw: Record<TariffId, number> | null;
  /** The threads' floor per tariff (every message written once, nothing read), summed; the same in every scenario. */
  floorUnits: Record<TariffId, number>;
  /**
   * The share of the avoidable cost removed, (raw − units) / (raw − floor), per tariff:
   * 1 at the floor, 0 at raw's cost, negative above it; null without a raw contestant,
   * and null for a tariff where raw costs no more than the floor.
   */
  removed: Record<TariffId, number | null> | null;
  /** Per thread, under the Anthropic 5-minute tariff: the cost over raw's, and the share of the avoidable cost removed. */
  perThread: { thread: string; vsRaw: number | null; removed: number | null }[];
  sentChars: number;
  /** Share of sent chars not read from Anthropic's cache (written or uncached). */
  notCachedShare: number;
  /** Model calls that broke the cache, per turn on average. */
  cacheBreaksPerTurn: number;
  /** Strict retention summed over every turn's last view, and the probes it counts. */
  strictEveryTurn: number;
  probesEveryTurn: number;
}

function zeroUnits(): Record<TariffId, number> {
  return Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, 0])) as Record<TariffId, number>;
}

function unitsOf(run: ContestantRun, scenario: ScenarioId): Record<TariffId, number> {
  const units = zeroUnits();
  for (const turn of run.turns) {
    for (const tariff of TARIFFS) units[tariff.id] += turn.cost[scenario].units[tariff.id];
  }
  return units;
}

/** (raw − cost) / (raw − floor); null when raw costs no more than the floor (nothing avoidable). */
export function avoidableShare(raw: number, cost: number, floor: number): number | null {
  return raw - floor > 1e-9 ? (raw - cost) / (raw - floor) : null;
}

function runOf(simulation: ThreadSimulation, id: string): ContestantRun | undefined {
  return simulation.contestants.find((candidate) => candidate.id === id);
}

function scenarioCost(
  simulations: readonly ThreadSimulation[],
  id: string,
  scenario: ScenarioId,
): ScenarioCost {
  const units = zeroUnits();
  const rawUnits = zeroUnits();
  const floorUnits = zeroUnits();
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
      floorUnits[tariff.id] += simulation.floor[tariff.id];
    }
    perThread.push({
      thread: simulation.thread,
      vsRaw: rawOwn ? own["anthropic-5m"] / Math.max(1e-9, rawOwn["anthropic-5m"]) : null,
      removed: rawOwn
        ? avoidableShare(rawOwn["anthropic-5m"], own["anthropic-5m"], simulation.floor["anthropic-5m"])
        : null,
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
  const removed = hasRaw
    ? (Object.fromEntries(
        TARIFFS.map((tariff) => [
          tariff.id,
          avoidableShare(rawUnits[tariff.id], units[tariff.id], floorUnits[tariff.id]),
        ]),
      ) as Record<TariffId, number | null>)
    : null;
  return {
    units,
    vsRaw,
    floorUnits,
    removed,
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

/** A share of the avoidable cost removed: `62.5%`, `-12.0%` above raw's cost, `–` without one. */
export function formatShare(share: number | null | undefined): string {
  return share === null || share === undefined ? "–" : `${(100 * share).toFixed(1)}%`;
}

/** A cost cell: the share of the avoidable cost removed, then the cost over raw's: `62.5% (0.41×)`. */
export function formatCostCell(cost: ScenarioCost, tariff: TariffId): string {
  return `${formatShare(cost.removed?.[tariff])} (${formatCostRatio(cost, tariff)})`;
}

/** The floor's cost figures under one scenario: its units and their ratio to raw's. */
export interface FloorCost {
  units: Record<TariffId, number>;
  /** Null without a raw contestant in every thread. */
  vsRaw: Record<TariffId, number> | null;
}

/** The floor of the threads (every message written once, nothing read) against raw's cost, per scenario. */
export function floorComparison(simulations: readonly ThreadSimulation[]): Record<ScenarioId, FloorCost> {
  return Object.fromEntries(
    SCENARIOS.map((scenario) => {
      const units = zeroUnits();
      const rawUnits = zeroUnits();
      let hasRaw = simulations.length > 0;
      for (const simulation of simulations) {
        const raw = runOf(simulation, "raw");
        if (!raw) hasRaw = false;
        const rawOwn = raw ? unitsOf(raw, scenario.id) : zeroUnits();
        for (const tariff of TARIFFS) {
          units[tariff.id] += simulation.floor[tariff.id];
          rawUnits[tariff.id] += rawOwn[tariff.id];
        }
      }
      const vsRaw = hasRaw
        ? (Object.fromEntries(
            TARIFFS.map((tariff) => [tariff.id, units[tariff.id] / Math.max(1e-9, rawUnits[tariff.id])]),
          ) as Record<TariffId, number>)
        : null;
      return [scenario.id, { units, vsRaw }];
    }),
  ) as Record<ScenarioId, FloorCost>;
}

/** The floor's cost cell: all the avoidable cost removed, by definition, and its cost over raw's. */
export function formatFloorCell(floor: FloorCost, tariff: TariffId): string {
  return `100% (${floor.vsRaw ? `${floor.vsRaw[tariff].toFixed(2)}×` : "–"})`;
}
