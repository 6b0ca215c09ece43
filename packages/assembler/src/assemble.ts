import { messageChars } from "./contract/message-chars";
import { InvalidOptionError } from "./errors";
import { killSwitchFromEnvironment } from "./kill-switch";
import { type DigestsOrTurnState, type OrgPolicy, type PolicyMode, turnInputOf } from "./org-policy";
import { resolveToolPolicy, type ToolPolicy, type ToolPolicyInput, withToolRules } from "./policy";
import { digestsWithHandles } from "./read-original/digest-handles";
import { type ReadOriginalOption, resolveReadOriginal } from "./read-original/read-original";
import { KEEP_RULE_DEFAULTS, recencyWallStart } from "./rules/keep-rules";
import { type KeptFigure, keptFiguresOf } from "./shadow-figures";
import { runBackstop } from "./steps/backstop/backstop-plan";
import {
  backstopSettings,
  COMPACTION_DEFAULTS,
  type CompactionOptions,
} from "./steps/backstop/compact-history";
import { type CacheContext, resolveCache, type TurnLedger } from "./steps/cache-policy";
import { type CleanedView, type CleaningCounts, type CleanOptions, cleanView } from "./steps/clean-view";
import { buildLedger } from "./steps/ledger";
import { continuesThinkingLoop, providerTrueView } from "./steps/provider-true";
import { resolveWatermark, type WatermarkOptions } from "./steps/watermark";
import type { IndexedThread } from "./thread/indexed-thread";
import { indexedThreadOf, threadFactsOf } from "./thread/thread-state";
import type { DigestMap, Message } from "./types";

export { type KeptFigure, SHADOW_FIGURE_SCAN_CHARS, SHADOW_KEPT_FIGURES_LIMIT } from "./shadow-figures";
export { originalOfReplacement } from "./steps/clean-view";
/** Defaults of {@link assembleModelView}. */
export const ASSEMBLE_DEFAULTS = {
  recencyKeepExchanges: KEEP_RULE_DEFAULTS.recencyKeepExchanges,
  ...COMPACTION_DEFAULTS,
  /** Deterministic inline cleaning (duplicates and error/retry pairs). */
  inline: true,
} as const;

export interface AssembleOptions extends CompactionOptions {
  /** Tool policy, built or as configuration. @default the default policy */
  policy?: ToolPolicy | ToolPolicyInput;
  /** Assistant/tool exchanges kept raw before the latest user message. @default 3 */
  recencyKeepExchanges?: number;
  /** Apply the duplicate and error-retry stubs. @default true */
  inline?: boolean;
  /** Kill switch: return exactly what the backstop alone returns. @default process.env.CONTEXT_CLEANER_DISABLED === "1" */
  disabled?: boolean;
  /**
   * The org's policy (docs/architecture.md#rollout-controls), e.g. from the storage
   * package's `loadTurnState`: its mode (`off` is the kill switch for the org; `shadow`
   * returns what `off` returns and reports the cleaned view in `report.shadow`), its
   * `recencyKeepExchanges` override (over this option's) and its tool rules (layered over
   * `policy`'s). Null or undefined: the deployment's defaults, mode `on`. Passing the turn
   * state (`{ digests, policy }`) as the digests argument gives its policy, unless this
   * option is set (null included).
   */
  orgPolicy?: OrgPolicy | null;
  /** Called with the report of every assembly (metrics, logs). Its errors are caught and ignored: they never change the view. */
  onReport?: (report: AssemblyReport) => void;
  /**
   * The thread's prompt-cache context (docs/architecture.md#prompt-cache): what the previous
   * view showed condensed stays condensed, and new condensations land as one batch on a
   * turn's first call when the cache is cold or the saving pays for the rewrite. `false`
   * or undefined: cache-unaware, every condensation lands at once. The integrations
   * always pass one.
   */
  cache?: CacheContext | false;
  /**
   * The `read_original` tool is offered to the model (docs/architecture.md#re-read-as-a-tool-read_original):
   * every stand-in (digest, stub, the backstop's note) names the call that returns the raw
   * result, `read_original(tool_call_id="…")`, beside the tool's own re-read call.
   * `{ toolName }` names the tool otherwise. @default false
   */
  readOriginal?: ReadOriginalOption;
  /**
   * Relief inside a long turn (docs/architecture.md#relief-inside-a-long-turn): when a
   * call's view passes `historyBudgetChars`, the results of the turn under way before its
   * latest exchange land condensed in one batch (a digest row, an extractive condensation,
   * or a masked output naming `read_original`), and stay condensed on the turn's later
   * calls. No batch lands while the latest assistant message carries thinking unless
   * `dropLatestThinking` says the provider may drop it. `false`: none. @default {}
   */
  watermark?: WatermarkOptions | false;
}

/** What one assembly did. */
export interface AssemblyReport {
  /**
   * Whether the view is what the backstop alone returns: the kill switch, or the org's mode
   * `off` or `shadow` (integrations then send it as they send an `off` view).
   */
  disabled: boolean;
  /** The org's mode this assembly ran under (`on` without an org policy; `off` under the kill switch). */
  mode: PolicyMode;
  messages: number;
  /** Chars of the input thread. */
  rawChars: number;
  /** Chars of the returned view. */
  assembledChars: number;
  /** Tool results replaced by a hash-matched digest. */
  substitutions: number;
  /** Digest rows whose hash did not match the live content (expect 0). */
  stale: number;
  /** Chars saved by digests, duplicate stubs and error stubs together. */
  charsSaved: number;
  stubs: { duplicate: number; errorRetry: number };
  /** Messages protected by the keep-rules. */
  protected: number;
  compaction: {
    fired: boolean;
    droppedMessages: number;
    /** Results before the wall condensed to fit the budget (digest, figures-only digest or re-read stub). */
    condensedResults: number;
    /** The view is over `historyBudgetChars` because what the backstop never removes (the recency wall, with system messages, notes and the latest assistant message's exchange) exceeds it. */
    wallExceedsBudget: boolean;
    /** The view is over `historyBudgetChars` though the recency wall alone fits it: the latest assistant message's exchange, which the backstop never drops, is too long even at its shortest. */
    latestExchangeExceedsBudget: boolean;
  };
  /** What this view shows condensed, by tool call id, and the new batch: what a UI shows as "condensed". */
  ledger: TurnLedger;
  /**
   * In mode `shadow` only: the cleaned view's figures, which was computed and not sent
   * (the view sent is what `off` sends). `wouldSaveChars` is how many chars fewer it has
   * than the view sent; its `ledger` says what it would have condensed and what the
   * rewrite would cost the prompt cache (`invalidatedChars`, the batch's `charsSaved`);
   * `keptFigures` / `keptFigureCount` what facts it would have kept that the view sent lost.
   */
  shadow?: ShadowReport;
}

/** What a shadow assembly would have sent: the cleaned view's report figures. */
export type ShadowReport = Omit<AssemblyReport, "disabled" | "mode" | "shadow"> & {
  wouldSaveChars: number;
  /**
   * The material figures (amounts, rates, dates, section references, …) the cleaned view's
   * tool results carry that occur nowhere in the view sent (the backstop alone cut them),
   * each with the tool call id of the result carrying it, in thread order: at most
   * {@link SHADOW_KEPT_FIGURES_LIMIT} (20).
   */
  keptFigures: KeptFigure[];
  /**
   * How many distinct such figures there are (the list stops at the limit), in the results
   * read: a lower bound when `keptFiguresComplete` is false.
   */
  keptFigureCount: number;
  /**
   * Whether every result the backstop cut was read. A call reads at most
   * {@link SHADOW_FIGURE_SCAN_CHARS} chars of them, in thread order, and counts the figures
   * of those alone.
   */
  keptFiguresComplete: boolean;
};

export interface AssembledView<M = Message> {
  messages: M[];
  report: AssemblyReport;
}

function checkOptions(recencyKeepExchanges: number, options: AssembleOptions): void {
  const checks: Array<[string, number | undefined, number]> = [
    ["recencyKeepExchanges", recencyKeepExchanges, 0],
    ["historyBudgetChars", options.historyBudgetChars, 1],
    ["snippetChars", options.snippetChars, 20],
    ["noteMaxChars", options.noteMaxChars, 200],
  ];
  const ratio = options.lowWaterRatio;
  if (ratio !== undefined && !(typeof ratio === "number" && ratio > 0 && ratio <= 1)) {
    throw new InvalidOptionError(
      `options.lowWaterRatio must be a number in (0, 1], got ${String(ratio)}`,
      "lowWaterRatio",
    );
  }
  for (const [field, value, minimum] of checks) {
    if (value !== undefined && (!Number.isInteger(value) || value < minimum)) {
      throw new InvalidOptionError(
        `options.${field} must be an integer ≥ ${minimum}, got ${String(value)}`,
        field,
      );
    }
  }
}

/** Index of the latest user message; the thread's length when it has none. */
function latestUserIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    if ((messages[index] as Message).role === "user") return index;
  }
  return messages.length;
}

function checkDigests(digests: DigestMap | null | undefined): void {
  if (digests !== undefined && digests !== null && !(digests instanceof Map)) {
    throw new InvalidOptionError(
      "digests must be a Map of tool call id → { digest, contentSha256, digestChars } (e.g. from loadThreadDigests), or the turn state { digests, policy } (from loadTurnState)",
      "digests",
    );
  }
}

function emptyReport(
  disabled: boolean,
  mode: PolicyMode,
  messages: readonly Message[],
  rawChars: number,
): AssemblyReport {
  return {
    disabled,
    mode,
    messages: messages.length,
    rawChars,
    assembledChars: rawChars,
    substitutions: 0,
    stale: 0,
    charsSaved: 0,
    stubs: { duplicate: 0, errorRetry: 0 },
    protected: 0,
    // Stryker disable next-line ObjectLiteral,BooleanLiteral: the backstop's figures replace these
    compaction: {
      fired: false,
      droppedMessages: 0,
      condensedResults: 0,
      wallExceedsBudget: false,
      latestExchangeExceedsBudget: false,
    },
    ledger: {
      entries: [],
      condensedIds: [],
      batch: { status: "none", reason: "cache-unaware", results: 0, charsSaved: 0, deferredResults: 0 },
      prefixKeptMessages: messages.length,
      invalidatedChars: 0,
      sent: [],
      thinking: { removedBlocks: 0, newlyRemovedBlocks: 0, changedAt: undefined, latestInvalidated: false },
    },
  };
}

/** The cleaning steps under the options' tool policy and `read_original` setting. */
// biome-ignore lint/complexity/useMaxParams: the assembly's own inputs passed on to one step, named as the caller holds them
function cleanWithOptions(
  messages: readonly Message[],
  thread: IndexedThread,
  digests: DigestMap | null | undefined,
  options: AssembleOptions,
  orgPolicy: OrgPolicy | undefined,
  clean: CleanOptions,
  counts: CleaningCounts,
): CleanedView {
  const readOriginal = resolveReadOriginal(options.readOriginal);
  const toolPolicy = withToolRules(resolveToolPolicy(options.policy), orgPolicy?.toolRules);
  const facts = threadFactsOf(thread, toolPolicy, readOriginal);
  const midTurnDigests = digestsWithHandles(clean.cache?.midTurnDigests, readOriginal) ?? undefined;
  return cleanView(
    messages,
    facts,
    digestsWithHandles(digests, readOriginal),
    { ...clean, midTurnDigests },
    counts,
  );
}

/**
 * Builds the model's view of a thread (docs/architecture.md#assembly): keep-rules, hash-gated digest
 * substitution, inline dedupe and error/retry stubs, then the history backstop.
 * Never mutates its input; untouched messages keep their object identity.
 *
 * What it learns of a thread is kept for the next call (docs/architecture.md#assembly):
 * called again with the same message objects, grown by new messages, it reads only the new
 * ones, and answers exactly as a first call would.
 *
 * `digests` may be the turn state (`{ digests, policy }`, the storage package's
 * `loadTurnState`): its policy then applies as `options.orgPolicy` does.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 * @example
 * const digests = await repository.loadThreadDigests(orgId, threadId);
 * const { messages: view, report } = assembleModelView(thread, digests);
 */
export function assembleModelView(
  messages: readonly Message[],
  digestsOrState?: DigestsOrTurnState | null,
  options: AssembleOptions = {},
): AssembledView {
  const turn = turnInputOf(digestsOrState);
  const digests = turn.digests;
  const orgPolicy = (options.orgPolicy === undefined ? turn.policy : options.orgPolicy) ?? undefined;
  const killed = options.disabled ?? killSwitchFromEnvironment();
  const mode: PolicyMode = killed ? "off" : (orgPolicy?.mode ?? "on");
  const recencyKeepExchanges =
    orgPolicy?.overrides.recencyKeepExchanges ??
    options.recencyKeepExchanges ??
    ASSEMBLE_DEFAULTS.recencyKeepExchanges;
  const thread = indexedThreadOf(messages);
  checkOptions(recencyKeepExchanges, options);
  checkDigests(digests);
  const resolved = resolveCache(options.cache);
  // A request continuing a tool loop whose latest assistant message carries thinking is
  // mid-turn whatever the runtime says (a resumed interrupt): a batch would change history
  // that thinking follows.
  const cache =
    resolved?.turnStart && continuesThinkingLoop(messages) ? { ...resolved, turnStart: false } : resolved;
  const watermark = resolveWatermark(options.watermark);
  const run = { messages, digests, options, thread, recencyKeepExchanges, cache, mode, watermark };
  const assembled = assembleOnce(run, mode === "on" ? orgPolicy : undefined, mode !== "on");
  if (mode === "shadow") {
    // The cleaned view is computed and reported, never sent: the view sent is what `off` sends.
    const cleanedView = assembleOnce(run, orgPolicy, false);
    const { disabled: _disabled, mode: _mode, ...cleaned } = cleanedView.report;
    assembled.report.shadow = {
      ...cleaned,
      wouldSaveChars: assembled.report.assembledChars - cleaned.assembledChars,
      ...keptFiguresOf(cleanedView.messages, assembled.messages, backstopCut(assembled.report)),
    };
  }
  try {
    options.onReport?.(assembled.report);
  } catch {
    // A failing report sink never changes what is sent.
  }
  return assembled;
}

/** Chars the thinking left out of `after` took in `before` (the same view, message for message). */
function strippedChars(before: readonly Message[], after: readonly Message[]): number {
  let chars = 0;
  for (let index = 0; index < before.length; index++) {
    const message = before[index] as Message;
    if (after[index] !== message) chars += messageChars(message) - messageChars(after[index] as Message);
  }
  return chars;
}

/** The tool call ids of the results the backstop condensed or dropped in a view. */
function backstopCut(report: AssemblyReport): Set<string> {
  return new Set(
    report.ledger.entries.filter((entry) => entry.kind === "backstop").map((entry) => entry.toolCallId),
  );
}

interface AssemblyRun {
  messages: readonly Message[];
  digests: DigestMap | null | undefined;
  options: AssembleOptions;
  thread: ReturnType<typeof indexedThreadOf>;
  recencyKeepExchanges: number;
  cache: ReturnType<typeof resolveCache>;
  mode: PolicyMode;
  watermark: ReturnType<typeof resolveWatermark>;
}

/** One view of the thread: cleaned, or (`disabled`) what the backstop alone returns. */
function assembleOnce(run: AssemblyRun, orgPolicy: OrgPolicy | undefined, disabled: boolean): AssembledView {
  const { messages, digests, options, thread, recencyKeepExchanges, cache } = run;
  const report = emptyReport(disabled, run.mode, messages, thread.totalChars);
  // Cache-aware, the backstop cuts on a turn's first call only: its later calls append.
  const settings = backstopSettings(options, cache !== undefined);
  const wallStart = recencyWallStart(messages, recencyKeepExchanges);
  // Stryker disable next-line BooleanLiteral,ArrowFunction: the index and the thread read alike
  const noReplacement = { has: () => false };
  const cleaned: CleanedView = disabled
    ? {
        view: { thread, messages, replaced: noReplacement, chars: thread.totalChars, wallStart },
        // Stryker disable next-line ArrayDeclaration: an entry that is no message index pins no unit
        hints: { pinned: [] },
        kinds: new Map(),
        batch: report.ledger.batch,
      }
    : // Resolved only here: the kill switch must work even with a broken policy.
      cleanWithOptions(
        messages,
        thread,
        digests,
        options,
        orgPolicy,
        {
          wallStart,
          inline: options.inline ?? ASSEMBLE_DEFAULTS.inline,
          // Cache-aware, stubs change at a turn's start only: a later copy or a retry the
          // turn itself brings counts from the next turn on.
          evidenceEnd: cache ? latestUserIndex(messages) : messages.length,
          cache,
          shown: cache?.shown,
          budget: settings.budget,
          watermark: run.watermark,
        },
        report as CleaningCounts,
      );
  const { view, hints } = cleaned;
  const compacted = runBackstop(view, settings, hints);
  report.compaction = {
    fired: compacted.fired,
    droppedMessages: compacted.droppedMessages,
    condensedResults: compacted.condensedResults,
    wallExceedsBudget: compacted.wallExceedsBudget,
    latestExchangeExceedsBudget: compacted.latestExchangeExceedsBudget,
  };
  const provider = providerTrueView(compacted.messages, messages, cache?.sent);
  report.ledger = {
    ...buildLedger(view, cleaned, compacted, cache?.shown),
    sent: provider.sent,
    thinking: provider.thinking,
  };
  report.assembledChars = compacted.chars - strippedChars(compacted.messages, provider.messages);
  // The caller's own array comes back only as a copy; the view's are new already.
  return { messages: provider.messages as Message[], report };
}
