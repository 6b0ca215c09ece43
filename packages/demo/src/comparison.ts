import type { ScenarioId } from "./cache-scenarios";
import { costComparison, type ScenarioCost } from "./cost-comparison";
import type { ContestantRun, ThreadSimulation } from "./simulate-turns";
import { largestPromptChars, turnsBeforeFirstCut } from "./simulate-turns";
import type { HeldCount, MissedProbe, RetentionCount, ViewParts } from "./view-measures";

/** One contestant's figures over a set of threads, at each thread's last model call. */
export interface ComparisonRow {
  id: string;
  label: string;
  /** Prompt chars of the last views over raw chars of the threads. */
  viewShare: number;
  promptChars: number;
  rawChars: number;
  /** What `promptChars` is made of, summed over the last views. */
  viewParts: ViewParts;
  strict: number;
  recoverable: number;
  probes: number;
  /** The probes the last views do not hold verbatim, with their thread (why strict or recoverable retention falls short). */
  missedProbes: (MissedProbe & { thread: string })[];
  /** Strict retention summed over every turn's last view (probes arrived by then), not only the thread's last. */
  strictEveryTurn: number;
  probesEveryTurn: number;
  /** Retention at every model call, over every (call, probe arrived before it) pair of every thread. */
  everyCall: RetentionCount;
  /** What each turn's first call holds of the previous turn's probes, summed over turns and threads. */
  previousTurn: HeldCount;
  /** Each counter's count over every call of every thread (the threads' `counters`, in order). */
  counts: { id: string; label: string; value: number }[];
  /** Per thread: turns played before the first budget cut, and whether a cut came at all. */
  turnsBeforeFirstCut: { thread: string; turns: number; cut: boolean; played: number }[];
  /** Results the conversation budget cut, over all threads. */
  budgetCuts: number;
  /** Model calls that broke the prompt cache, per thread on average. */
  cacheBreaksPerThread: number;
  /** The same, per turn on average. */
  cacheBreaksPerTurn: number;
  /** The largest prompt: the most chars one model call sent, over every call of every thread. */
  largestPromptChars: number;
  /**
   * Model calls whose assembly report landed a batch of condensations (ledger `batch.status`
   * `applied`), per turn on average; null for a contestant whose views carry no ledger.
   */
  batchesAppliedPerTurn: number | null;
  /** Prompt-cache cost under each timing scenario (./cost-comparison). */
  cost: Record<ScenarioId, ScenarioCost>;
  /** Median ms of one view computation over every model call. */
  medianViewMs: number;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((left, right) => left - right);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Aggregates each contestant over the simulations (contestants in the first one's order). */
export function compareContestants(simulations: readonly ThreadSimulation[]): ComparisonRow[] {
  const ids = simulations[0]?.contestants.map((run) => run.id) ?? [];
  return ids.map((id) => contestantRow(id, simulations));
}

/** One contestant's row over the simulations. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one pass over every run's turns that sums each column of the row
function contestantRow(id: string, simulations: readonly ThreadSimulation[]): ComparisonRow {
  const runs = simulations.map((simulation) => ({
    simulation,
    run: simulation.contestants.find((candidate) => candidate.id === id) as ContestantRun,
  }));
  let promptChars = 0;
  let rawChars = 0;
  const parts: ViewParts = { resultsAsGiven: 0, resultsCondensed: 0, conversation: 0 };
  const missedProbes: (MissedProbe & { thread: string })[] = [];
  let strict = 0;
  let recoverable = 0;
  let probes = 0;
  let strictEveryTurn = 0;
  let probesEveryTurn = 0;
  let budgetCuts = 0;
  const everyCall: RetentionCount = { total: 0, strict: 0, recoverable: 0 };
  const previousTurn: HeldCount = { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 };
  const counters = simulations[0]?.counters ?? [];
  const counts = counters.map((counter) => ({ id: counter.id, label: counter.label, value: 0 }));
  let breaks = 0;
  let turns = 0;
  let largest = 0;
  let batches: number | null = null;
  const viewMs: number[] = [];
  for (const { simulation, run } of runs) {
    const last = run.turns.at(-1);
    promptChars += last?.promptChars ?? 0;
    rawChars += simulation.rawChars;
    for (const key of ["resultsAsGiven", "resultsCondensed", "conversation"] as const)
      parts[key] += last?.viewParts[key] ?? 0;
    for (const probe of last?.missedProbes ?? []) missedProbes.push({ thread: simulation.thread, ...probe });
    strict += last?.retention.strict ?? 0;
    recoverable += last?.retention.recoverable ?? 0;
    probes += last?.retention.total ?? 0;
    largest = Math.max(largest, largestPromptChars(run));
    for (const turn of run.turns) {
      if (turn.batchesApplied !== null) batches = (batches ?? 0) + turn.batchesApplied;
      budgetCuts += turn.budgetCuts;
      breaks += turn.cacheBreaks;
      turns++;
      strictEveryTurn += turn.retention.strict;
      probesEveryTurn += turn.retention.total;
      for (const key of ["total", "strict", "recoverable"] as const) everyCall[key] += turn.everyCall[key];
      for (const key of ["total", "strict", "standIn", "handle", "lost"] as const)
        previousTurn[key] += turn.previousTurn[key];
      for (const count of counts) count.value += turn.counts?.[count.id] ?? 0;
    }
    viewMs.push(...run.viewMs);
  }
  const first = runs[0]?.run as ContestantRun;
  return {
    id,
    label: first.label,
    viewShare: promptChars / Math.max(1, rawChars),
    promptChars,
    rawChars,
    viewParts: parts,
    strict,
    recoverable,
    probes,
    missedProbes,
    strictEveryTurn,
    probesEveryTurn,
    everyCall,
    previousTurn,
    counts,
    turnsBeforeFirstCut: runs.map(({ simulation, run }) => ({
      thread: simulation.thread,
      turns: turnsBeforeFirstCut(run),
      cut: run.firstBudgetCutTurn !== null,
      played: run.turns.length,
    })),
    budgetCuts,
    cacheBreaksPerThread: breaks / Math.max(1, runs.length),
    cacheBreaksPerTurn: breaks / Math.max(1, turns),
    largestPromptChars: largest,
    batchesAppliedPerTurn: batches === null ? null : batches / Math.max(1, turns),
    cost: costComparison(simulations, id),
    medianViewMs: median(viewMs),
  };
}

/** `2, 4+`: turns before the first cut per thread; `+` marks a thread the budget never cut. */
export function formatTurnsBeforeCut(row: ComparisonRow): string {
  return row.turnsBeforeFirstCut.map((entry) => `${entry.turns}${entry.cut ? "" : "+"}`).join(", ");
}
