import { COMPACTION_DEFAULTS } from "@context-cleaner/assembler";
import type { ComparisonRow } from "./comparison";
import { formatShare } from "./cost-comparison";

/** What the comparison is measured against, for this project with digests. */
export const TARGETS = {
  strictRetention: 1,
  recoverableRetention: 1,
  /** Assembled chars over raw chars at the last model call. */
  maxViewShare: 0.06,
  /** Turns before the first budget cut, over blind caps' (per thread). */
  minTurnsRatio: 3,
} as const;

const THIS_PROJECT = "with-digests";
const NOT_PEERS = new Set(["raw", "inline-only", "with-digests", "with-digests-turn-end"]);
const share = (value: number) => `${(100 * value).toFixed(1)}%`;
const ratio = (part: number, whole: number) => part / Math.max(1, whole);

/** How this project did against each target, one line each. */
export function targetFindings(rows: readonly ComparisonRow[]): string[] {
  const project = rows.find((row) => row.id === THIS_PROJECT);
  const blind = rows.find((row) => row.id === "blind-caps");
  if (!project || !blind) return [];
  const ratios = project.turnsBeforeFirstCut.map((entry, index) => {
    const baseline = blind.turnsBeforeFirstCut[index]?.turns ?? 0;
    return { ...entry, ratio: entry.turns / Math.max(1, baseline), baseline };
  });
  const met = (ok: boolean) => (ok ? "met" : "missed");
  return [
    `strict retention ${project.strict}/${project.probes} (${share(ratio(project.strict, project.probes))}, target 100%): ${met(project.strict === project.probes)}`,
    `recoverable retention ${project.recoverable}/${project.probes} (${share(ratio(project.recoverable, project.probes))}, target 100%): ${met(project.recoverable === project.probes)}`,
    `view ${share(project.viewShare)} of raw chars (target ≤ ${share(TARGETS.maxViewShare)}): ${met(project.viewShare <= TARGETS.maxViewShare)}`,
    `turns before the first budget cut vs blind caps: ${ratios
      .map(
        (entry) =>
          `${entry.thread} ${entry.turns}${entry.cut ? "" : "+"} vs ${entry.baseline} (${entry.ratio.toFixed(1)}×)`,
      )
      .join(
        "; ",
      )} (target ≥ ${TARGETS.minTurnsRatio}×): ${met(ratios.every((entry) => entry.ratio >= TARGETS.minTurnsRatio))}`,
    ...(project.cost.warm.vsRaw && project.cost.cold.vsRaw
      ? [
          `cost with prompt caching (Anthropic, 5-minute cache): ${formatShare(project.cost.warm.removed?.["anthropic-5m"])} of the avoidable cost removed (${project.cost.warm.vsRaw["anthropic-5m"].toFixed(2)}× raw) with every call warm, ${formatShare(project.cost.cold.removed?.["anthropic-5m"])} (${project.cost.cold.vsRaw["anthropic-5m"].toFixed(2)}×) with each turn cold; ${project.cacheBreaksPerTurn.toFixed(2)} cache breaks per turn`,
        ]
      : []),
  ];
}

/**
 * What this project did inside one long turn (a single-turn set), one line each: its
 * largest prompt against the history budget and raw's, retention at every call, the cost
 * with every call warm, and how often the prompt's prefix changed.
 */
export function singleTurnFindings(rows: readonly ComparisonRow[]): string[] {
  const project = rows.find((row) => row.id === THIS_PROJECT);
  if (!project) return [];
  const raw = rows.find((row) => row.id === "raw");
  const budget = COMPACTION_DEFAULTS.historyBudgetChars;
  const chars = (value: number) => value.toLocaleString("en-US");
  const cost = project.cost.warm;
  return [
    `largest prompt ${chars(project.largestPromptChars)} chars${raw ? ` (raw ${chars(raw.largestPromptChars)})` : ""}: ${project.largestPromptChars <= budget ? "within" : "over"} the ${chars(budget)}-char history budget`,
    `retention at every call: ${share(ratio(project.everyCall.strict, project.everyCall.total))} strict, ${share(ratio(project.everyCall.recoverable, project.everyCall.total))} recoverable`,
    ...(cost.vsRaw
      ? [
          `cost with prompt caching, every call warm: ${formatShare(cost.removed?.["anthropic-5m"])} of the avoidable cost removed on Anthropic's 5-minute cache (${cost.vsRaw["anthropic-5m"].toFixed(2)}× raw), ${formatShare(cost.removed?.["openai-gpt-4.1"])} on OpenAI GPT-4.1 (${cost.vsRaw["openai-gpt-4.1"].toFixed(2)}× raw)`,
        ]
      : []),
    `${project.cacheBreaksPerTurn.toFixed(2)} cache breaks and ${project.batchesAppliedPerTurn === null ? "no ledger" : `${project.batchesAppliedPerTurn.toFixed(2)} batches applied`} per turn`,
  ];
}

/** Every column where a peer does better than this project, one line per peer that does. */
export function lossFindings(rows: readonly ComparisonRow[]): string[] {
  const project = rows.find((row) => row.id === THIS_PROJECT);
  if (!project) return [];
  const sumTurns = (row: ComparisonRow) =>
    row.turnsBeforeFirstCut.reduce((sum, entry) => sum + entry.turns, 0);
  const lines: string[] = [];
  for (const peer of rows) {
    if (NOT_PEERS.has(peer.id)) continue;
    const wins: string[] = [];
    if (peer.viewShare < project.viewShare) {
      wins.push(
        `a smaller view (${share(peer.viewShare)} vs ${share(project.viewShare)}, at ${share(ratio(peer.strict, peer.probes))} strict retention)`,
      );
    }
    if (peer.strict > project.strict)
      wins.push(`more strict retention (${peer.strict} vs ${project.strict})`);
    if (peer.recoverable > project.recoverable)
      wins.push(`more recoverable retention (${peer.recoverable} vs ${project.recoverable})`);
    if (
      ratio(peer.everyCall.strict, peer.everyCall.total) >
      ratio(project.everyCall.strict, project.everyCall.total)
    ) {
      wins.push(
        `more strict retention at every call (${share(ratio(peer.everyCall.strict, peer.everyCall.total))} vs ${share(ratio(project.everyCall.strict, project.everyCall.total))})`,
      );
    }
    if (sumTurns(peer) > sumTurns(project)) wins.push("more turns before the first budget cut");
    if (peer.budgetCuts < project.budgetCuts)
      wins.push(`fewer results cut (${peer.budgetCuts} vs ${project.budgetCuts})`);
    if (peer.cacheBreaksPerThread < project.cacheBreaksPerThread) {
      wins.push(
        `fewer cache breaks per thread (${peer.cacheBreaksPerThread.toFixed(1)} vs ${project.cacheBreaksPerThread.toFixed(1)})`,
      );
    }
    const peerCost = peer.cost.warm.vsRaw?.["anthropic-5m"];
    const projectCost = project.cost.warm.vsRaw?.["anthropic-5m"];
    if (peerCost !== undefined && projectCost !== undefined && peerCost < projectCost) {
      wins.push(
        `a lower cost with prompt caching, every call warm (${formatShare(peer.cost.warm.removed?.["anthropic-5m"])} vs ${formatShare(project.cost.warm.removed?.["anthropic-5m"])} of the avoidable cost removed; ${peerCost.toFixed(2)}× vs ${projectCost.toFixed(2)}× raw)`,
      );
    }
    // Sub-0.05 ms and sub-1.5× differences are noise on a shared machine.
    if (peer.medianViewMs * 1.5 < project.medianViewMs && project.medianViewMs - peer.medianViewMs > 0.05) {
      wins.push(
        `a faster view (median ${peer.medianViewMs.toFixed(2)} ms vs ${project.medianViewMs.toFixed(2)} ms)`,
      );
    }
    if (wins.length > 0) lines.push(`${peer.label} beats context-cleaner on ${wins.join("; ")}`);
  }
  return lines;
}
