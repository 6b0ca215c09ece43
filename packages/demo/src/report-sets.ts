import { compareContestants } from "./comparison";
import { floorComparison } from "./cost-comparison";
import { lossFindings, singleTurnFindings, targetFindings } from "./findings";
import type { ReportSet } from "./report-html";
import type { ThreadSimulation } from "./simulate-turns";

/**
 * A set of played threads with its comparison and findings. `kind` `single-turn`: threads
 * of one user turn each, compared inside the turn (the single-turn tables, with each
 * thread's own rows, and the single-turn findings).
 */
export function buildReportSet(
  id: string,
  title: string,
  description: string,
  simulations: ThreadSimulation[],
  kind: "turns" | "single-turn" = "turns",
): ReportSet {
  const rows = compareContestants(simulations);
  const floor = floorComparison(simulations);
  if (kind === "single-turn") {
    return {
      id,
      title,
      description,
      kind,
      simulations,
      rows,
      floor,
      perThread: simulations.map((simulation) => ({
        thread: simulation.thread,
        rows: compareContestants([simulation]),
        floor: floorComparison([simulation]),
      })),
      findings: [...singleTurnFindings(rows), ...lossFindings(rows)],
    };
  }
  return {
    id,
    title,
    description,
    simulations,
    rows,
    floor,
    findings: [...targetFindings(rows), ...lossFindings(rows)],
  };
}

/** How to read the comparison, for the report and the printed tables. */
export const REPORT_DEFINITIONS = [
  "A turn opens with a user message and runs to the next; tool results arrive in order and each assistant message is one model call, whose prompt every contestant turns into its view.",
  "Caps (the runtime's, the same for all): 60,000 chars per result; once 600,000 tool chars are spent every new result over 2,000 chars is condensed at arrival to its headings and figures (at most 8,000 chars). Blind accounting counts raw chars; effective accounting (context-cleaner with digests) counts digest chars for digested results, and raw again past 2,000,000 raw chars.",
  "History budget 320,000 chars for every strategy that has one: drop-oldest, trimMessages (chars / 4 tokens), the trigger of clear-old-tool-results; pruneMessages keeps tool calls in the last 6 messages.",
  "The worker (extractive digester, embedded PGlite) runs between turns: once the user's next message is in the checkpoint, or, for the “worker at turn end” row, as the turn ends, before the user answers.",
  "The headline: the share of the avoidable cost removed, per tariff, with every call warm (turns a minute apart, within the cache lifetime) and with each turn cold (the user came back after the lifetime: the turn's first call reads nothing). The floor of a thread's bill writes every message the model must see to the cache once and reads nothing (each message of the raw thread once: Anthropic 1.25× the base input price on the 5-minute cache, 2× on the 1-hour cache; OpenAI 1×, no write premium); raw's cost above it is the avoidable cost, and a contestant removes (raw − cost) / (raw − floor) of it, summed over the threads: the floor 100%, raw 0%, a contestant costing more than raw a negative share, one costing less than the floor (possible only by leaving messages out of the model's views) more than 100%. Each cost cell shows the share, then the cost over raw's.",
  "Each model call is priced as the provider bills it. Anthropic (Claude Sonnet 4.5): cache reads 0.1×, writes 1.25× (5-minute cache) or 2× (1-hour cache), uncached input 1× the base price; each request sets breakpoints at the end of its stable prefix (the longest prefix it shares with the previous call's view) and at its end, never on the latest assistant message (the breakpoint goes on the message before it), as the Anthropic adapter does, reads the longest cached prefix found at a breakpoint or up to 20 messages before one, and caches nothing under 1,024 tokens. OpenAI (GPT-4o, GPT-4.1 and GPT-5 classes): the longest prefix shared with an earlier request, from 1,024 tokens, at 0.5×, 0.25× or 0.1×, no write premium. Tokens are chars / 4. This project's assembly is told each call's cache context (turn start, idle time, the previous view's condensed results) and played once per scenario; the other contestants' views are the same in both.",
  "Retention at every call: over every (model call, probe whose result arrived before the call) pair, the probe's answer verbatim (whitespace-normalised) in the call's view (strict), or, failing that, a re-read handle for its result in it (recoverable: a digest's re-read line, or the original tool call with its arguments). Measured on the views of the warm scenario.",
  "View / raw: prompt chars of each thread's last view over its raw chars. Strict and recoverable retention, last view: the same, in each thread's last view. Strict, every turn's last view: strict retention in each turn's last view (of the probes arrived by then), summed over the turns; mid-thread views carry the whole active turn.",
  "Turns before the first budget cut: turns played before a result was first cut by the conversation budget (+: never cut). Cache breaks per turn: model calls whose view changed an earlier message of the previous call's view (the provider's cached prefix is lost from there), averaged over every turn played. Not cached, warm: the share of sent chars not read from Anthropic's cache.",
  "Inside one long turn (the single-turn sets: one user turn each, the history budget passed long before it ends): the share of the avoidable cost removed with every call warm (a single turn has no cold start), the largest prompt any model call sent, retention at every call, results cut as they arrived, cache breaks, and the calls whose assembly report's ledger landed a batch of condensations (context-cleaner only: its ledger's batch status applied).",
  "What the model still has of the previous turn: at each turn's first model call, the probes whose results arrived in the previous turn; each counts in every form the view holds it in: the answer verbatim, the result as a digest or stand-in (not what the contestant was given: a digest, a stub, a placeholder), a re-read handle; none of these: nothing of it is left.",
] as const;
