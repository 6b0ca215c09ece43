import { COMPACTION_DEFAULTS } from "@context-cleaner/assembler/internal";
import type { ComparisonRow } from "./comparison";
import { formatShare } from "./cost-comparison";
import type { MissedProbe } from "./view-measures";

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

const RESULT_WHERE: Record<MissedProbe["result"], string> = {
  cut: "its result cut by the caps before the view",
  condensed: "its result condensed without it",
  absent: "its result out of the view",
};

/** `one "$50,000" (call c7: its result condensed without it; a re-read handle in view)`, three at most. */
function listProbes(probes: ComparisonRow["missedProbes"]): string {
  const shown = probes
    .slice(0, 3)
    .map(
      (probe) =>
        `${probe.thread} "${probe.answer}" (call ${probe.toolCallId}: ${RESULT_WHERE[probe.result]}; ${probe.handle ? "a re-read handle in view" : "no re-read handle"})`,
    );
  return `${shown.join(", ")}${probes.length > 3 ? ` and ${probes.length - 3} more` : ""}`;
}

/** Why strict retention fell short: the answers the last views lack, and where their results are. */
function strictWhy(project: ComparisonRow): string {
  const count = project.probes - project.strict;
  return `${count} ${count === 1 ? "answer is" : "answers are"} not verbatim in the last views: ${listProbes(project.missedProbes)}`;
}

/** Why recoverable retention fell short: the answers with neither the text nor a re-read handle in view. */
function recoverableWhy(project: ComparisonRow): string {
  const lost = project.missedProbes.filter((probe) => !probe.handle);
  return `${lost.length} ${lost.length === 1 ? "answer has" : "answers have"} neither the text nor a re-read handle in the last views: ${listProbes(lost)}`;
}

/** Why the view is over its share: what the last views are made of, each part over raw chars. */
function viewWhy(project: ComparisonRow): string {
  const parts = [
    ["results kept raw", " (the recency window, the keep-rules)", "resultsAsGiven"],
    ["condensed results", "", "resultsCondensed"],
    ["the conversation", " (messages and tool calls)", "conversation"],
  ] as const;
  const shares = parts.map(([name, detail, key]) => ({
    name,
    detail,
    value: ratio(project.viewParts[key], project.rawChars),
  }));
  const over = shares.filter((part) => part.value > TARGETS.maxViewShare).map((part) => part.name);
  const held = shares.map((part) => `${part.name}${part.detail} at ${share(part.value)}`).join(", ");
  return `the last views hold ${held} of raw chars${over.length > 0 ? `; over the target on its own: ${listNames(over)}` : ""}`;
}

type TurnsEntry = ComparisonRow["turnsBeforeFirstCut"][number] & { baseline: number; ratio: number };

/** `a, b and c`. */
function listNames(names: readonly string[]): string {
  return names.length < 2 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * Why threads' turns before the first cut fall short of the target ratio: cut too early,
 * or the thread ends, never cut, before it could reach it. Threads with the same reason share a clause.
 */
function turnsWhy(entries: readonly TurnsEntry[]): string {
  const reasons = new Map<string, string[]>();
  for (const entry of entries) {
    if (entry.ratio >= TARGETS.minTurnsRatio) continue;
    const needed = Math.ceil(TARGETS.minTurnsRatio * Math.max(1, entry.baseline));
    const reason = entry.cut
      ? `cut in turn ${entry.turns + 1}, where ${TARGETS.minTurnsRatio}× blind caps' ${entry.baseline} needs ${needed} turns uncut`
      : `never cut, end after ${entry.played} turns: ${TARGETS.minTurnsRatio}× blind caps' ${entry.baseline} needs ${needed}`;
    reasons.set(reason, [...(reasons.get(reason) ?? []), entry.thread]);
  }
  return [...reasons].map(([reason, threads]) => `${listNames(threads)}: ${reason}`).join("; ");
}

/**
 * How this project did against each target, one line each; a missed target says why, from
 * the figures behind it.
 */
export function targetFindings(rows: readonly ComparisonRow[]): string[] {
  const project = rows.find((row) => row.id === THIS_PROJECT);
  const blind = rows.find((row) => row.id === "blind-caps");
  if (!project || !blind) return [];
  const ratios: TurnsEntry[] = project.turnsBeforeFirstCut.map((entry, index) => {
    const baseline = blind.turnsBeforeFirstCut[index]?.turns ?? 0;
    return { ...entry, ratio: entry.turns / Math.max(1, baseline), baseline };
  });
  const verdict = (ok: boolean, why: () => string) => (ok ? "met" : `missed: ${why()}`);
  return [
    `strict retention ${project.strict}/${project.probes} (${share(ratio(project.strict, project.probes))}, target 100%): ${verdict(project.strict === project.probes, () => strictWhy(project))}`,
    `recoverable retention ${project.recoverable}/${project.probes} (${share(ratio(project.recoverable, project.probes))}, target 100%): ${verdict(project.recoverable === project.probes, () => recoverableWhy(project))}`,
    `view ${share(project.viewShare)} of raw chars (target ≤ ${share(TARGETS.maxViewShare)}): ${verdict(project.viewShare <= TARGETS.maxViewShare, () => viewWhy(project))}`,
    `turns before the first budget cut vs blind caps: ${ratios
      .map(
        (entry) =>
          `${entry.thread} ${entry.turns}${entry.cut ? "" : "+"} vs ${entry.baseline} (${entry.ratio.toFixed(1)}×)`,
      )
      .join("; ")} (target ≥ ${TARGETS.minTurnsRatio}×): ${verdict(
      ratios.every((entry) => entry.ratio >= TARGETS.minTurnsRatio),
      () => turnsWhy(ratios),
    )}`,
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
