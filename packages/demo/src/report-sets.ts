import { compareContestants } from "./comparison";
import { lossFindings, targetFindings } from "./findings";
import type { ReportSet } from "./report-html";
import type { ThreadSimulation } from "./simulate-turns";

/** A set of played threads with its comparison and findings. */
export function buildReportSet(
  id: string,
  title: string,
  description: string,
  simulations: ThreadSimulation[],
): ReportSet {
  const rows = compareContestants(simulations);
  return {
    id,
    title,
    description,
    simulations,
    rows,
    findings: [...targetFindings(rows), ...lossFindings(rows)],
  };
}

/** How to read the comparison, for the report and the printed tables. */
export const REPORT_DEFINITIONS = [
  "A turn opens with a user message and runs to the next; tool results arrive in order and each assistant message is one model call, whose prompt every contestant turns into its view.",
  "Caps (the runtime's, the same for all): 60,000 chars per result; once 600,000 tool chars are spent every new result over 2,000 chars is condensed at arrival to its headings and figures (at most 8,000 chars). Blind accounting counts raw chars; effective accounting (context-cleaner with digests) counts digest chars for digested results, and raw again past 2,000,000 raw chars.",
  "History budget 320,000 chars for every strategy that has one: drop-oldest, trimMessages (chars / 4 tokens), the trigger of clear-old-tool-results; pruneMessages keeps tool calls in the last 6 messages.",
  "The worker (extractive digester, embedded PGlite) runs between turns: once the user's next message is in the checkpoint, or, for the “worker at turn end” row, as the turn ends, before the user answers.",
  "View / raw: prompt chars of each thread's last view over its raw chars. Strict retention: the probe's answer verbatim (whitespace-normalised) in the last view. Recoverable: strict, or the view holds a call that re-reads the answer's page (a digest's re-read line, or the original tool call with its arguments). Strict, every turn: strict retention in each turn's last view (of the probes arrived by then), summed over the turns; mid-thread views carry the whole active turn.",
  "Turns before the first budget cut: turns played before a result was first cut by the conversation budget (+: never cut). Cache breaks per turn: model calls whose view changed an earlier message of the previous call's view (the provider's cached prefix is lost from there), averaged over every turn played.",
  "Cost with prompt caching, as a ratio to raw's over the same threads, in two timing scenarios: every call warm (turns a minute apart, within the cache lifetime) and each turn cold (the user came back after the lifetime: the turn's first call reads nothing). Anthropic (Claude Sonnet 4.5, 5-minute cache): cache reads 0.1×, writes 1.25×, uncached input 1× the base price; each request sets breakpoints at the end of its stable prefix (the longest prefix it shares with the previous call's view) and at its end, never on the latest assistant message (the breakpoint goes on the message before it), as the Anthropic adapter does, reads the longest cached prefix found at a breakpoint or up to 20 messages before one, and caches nothing under 1,024 tokens. OpenAI (GPT-4.1 class): the longest prefix shared with an earlier request, from 1,024 tokens, at 0.25×, no write premium. Tokens are chars / 4. Not cached, warm: the share of sent chars not read from Anthropic's cache. This project's assembly is told each call's cache context (turn start, idle time, the previous view's condensed results) and played once per scenario; the other contestants' views are the same in both.",
] as const;
