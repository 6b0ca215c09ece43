import { condenseAtArrival } from "./budget-condense";
import { contentChars } from "./content";
import { messageContentSha256 } from "./contract/hash";
import { killSwitchFromEnvironment } from "./kill-switch";
import { type DigestsOrTurnState, type OrgPolicy, turnInputOf } from "./org-policy";
import { resolveToolPolicy, type ToolPolicy, type ToolPolicyInput, withToolRules } from "./policy";
import { isErrorResult } from "./rules/error-retry";
import { KEEP_RULE_DEFAULTS } from "./rules/keep-rules";
import { protectMessages } from "./steps/protect";
import type { Message } from "./types";

/**
 * Defaults of the runtime's tool-output caps and of the budget refund
 * (docs/architecture.md#budget-refund).
 */
export const BUDGET_DEFAULTS = {
  /** No single tool result is longer than this. */
  perResultCapChars: 60_000,
  /** The conversation's tool budget; past it every new result is condensed or cut short. */
  conversationBudgetChars: 600_000,
  /** The longest result that arrives whole once the conversation budget is spent (a longer one is condensed or cut to it). */
  overBudgetResultChars: 2_000,
  /** Past this much raw tool output, raw accounting resumes (bounds checkpoint growth). */
  rawCeilingChars: 2_000_000,
  /**
   * What a result over the budget (or past the raw ceiling) becomes: `condense`d at arrival
   * to its headings and figures, or `cut` to its first `overBudgetResultChars`.
   */
  overBudget: "condense",
  /** The cap of a result condensed at arrival (the digest's cap). */
  condensedResultChars: 4_000,
  /** How far that cap stretches to fit the figures (the digest's). */
  condensedResultCharsMax: 8_000,
} as const;

/** What a result over the budget becomes (see {@link BUDGET_DEFAULTS}`.overBudget`). */
export type OverBudgetMode = "cut" | "condense";

export interface EffectiveToolChars {
  /** What the conversation budget should count. */
  effectiveChars: number;
  /** Raw chars of every tool result. */
  rawChars: number;
  /** Raw minus effective: what the digests gave back to the budget. */
  refundedChars: number;
  /** False when the raw ceiling was passed or the kill switch is on (raw accounting). */
  refundActive: boolean;
}

/**
 * Tool chars as the conversation budget should count them: digest chars for results with
 * a hash-matched digest that the view substitutes (the keep-rules do not protect it; with
 * `shown`, the view holds it condensed), raw chars otherwise. Above `rawCeilingChars` of raw tool output, or with the kill switch,
 * raw accounting resumes. `digestsOrState` may be the turn state (`loadTurnState`): its
 * policy then counts as `options.orgPolicy` does, unless that option is set.
 */
export function effectiveToolChars(
  messages: readonly Message[],
  digestsOrState: DigestsOrTurnState | null | undefined,
  options: {
    rawCeilingChars?: number;
    /** @default process.env.CONTEXT_CLEANER_DISABLED === "1" */
    disabled?: boolean;
    /** The same policy the assembly uses: protected results stay raw in the view, so count raw. */
    policy?: ToolPolicy | ToolPolicyInput;
    /** @default 3 */
    recencyKeepExchanges?: number;
    /**
     * The org's policy, as the assembly takes it: under `off` or `shadow` the view sent is
     * the raw one, so the refund is off; its recency override and tool rules count as the
     * view's do.
     */
    orgPolicy?: OrgPolicy | null;
    /**
     * Cache-aware views (docs/architecture.md#prompt-cache): the ids the view holds
     * condensed, the latest assembly's `report.ledger.condensedIds`. A result with a digest
     * row outside it (its batch deferred) counts raw until its batch lands. Undefined: every
     * hash-matched digest counts, as a cache-unaware view substitutes them all.
     */
    shown?: readonly string[];
  } = {},
): EffectiveToolChars {
  const ceiling = options.rawCeilingChars ?? BUDGET_DEFAULTS.rawCeilingChars;
  const turn = turnInputOf(digestsOrState);
  const digests = turn.digests;
  const orgPolicy = (options.orgPolicy === undefined ? turn.policy : options.orgPolicy) ?? undefined;
  const disabled =
    (options.disabled ?? killSwitchFromEnvironment()) || (orgPolicy !== undefined && orgPolicy.mode !== "on");
  let rawChars = 0;
  let effectiveChars = 0;
  const shown = options.shown === undefined ? undefined : new Set(options.shown);
  const protection =
    !disabled && digests && digests.size > 0
      ? protectMessages(
          messages,
          withToolRules(resolveToolPolicy(options.policy), orgPolicy?.toolRules),
          orgPolicy?.overrides.recencyKeepExchanges ??
            options.recencyKeepExchanges ??
            KEEP_RULE_DEFAULTS.recencyKeepExchanges,
        )
      : undefined;
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const chars = contentChars(message.content);
    rawChars += chars;
    // A failed result is never replaced by its digest in the view (the error/retry rule decides it).
    const entry =
      // Stryker disable next-line OptionalChaining: `protection` is only computed when `digests` is given
      protection &&
      (shown === undefined ? protection.reasons[index] === undefined : shown.has(message.toolCallId)) &&
      !isErrorResult(message)
        ? digests?.get(message.toolCallId)
        : undefined;
    effectiveChars +=
      entry && entry.digestChars < chars && messageContentSha256(message) === entry.contentSha256
        ? entry.digestChars
        : chars;
  });
  const refundActive = !disabled && rawChars <= ceiling;
  const counted = refundActive ? effectiveChars : rawChars;
  return { effectiveChars: counted, rawChars, refundedChars: rawChars - counted, refundActive };
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

export interface CapOptions {
  /** Tool chars already spent in the conversation (use {@link effectiveToolChars}). */
  usedChars: number;
  /**
   * Raw tool chars of the conversation so far ({@link effectiveToolChars}' `rawChars`):
   * past `rawCeilingChars`, where the refund stops, a new result is over budget whatever
   * `usedChars` says.
   */
  rawChars?: number;
  /** @default 2000000 */
  rawCeilingChars?: number;
  /** @default 60000 */
  perResultCapChars?: number;
  /** @default 600000 */
  conversationBudgetChars?: number;
  /** @default 2000 */
  overBudgetResultChars?: number;
  /**
   * What a result longer than `overBudgetResultChars` becomes once over budget:
   * `condense`d at arrival (its headings and every figure verbatim, bounded by
   * `condensedResultChars`), or `cut` to that many chars. @default "condense"
   */
  overBudget?: OverBudgetMode;
  /** @default 4000 */
  condensedResultChars?: number;
  /** @default 8000 */
  condensedResultCharsMax?: number;
  /**
   * The id of the call this result answers, so a condensation also names
   * `read_original(tool_call_id=…)`. Pass it only when the `read_original` tool is on and
   * the thread it reads keeps this result whole: it returns the result as the thread
   * recorded it, and a thread that records the condensation would return the condensation.
   */
  toolCallId?: string;
  /** The `read_original` tool's name. @default "read_original" */
  readOriginalToolName?: string;
}

export interface CappedResult {
  content: string;
  /** Cut or condensed. */
  capped: boolean;
  /** Condensed at arrival (`overBudget: "condense"`) rather than cut. */
  condensed: boolean;
  originalChars: number;
  /** Chars of the original kept verbatim at its start: the cut's length, 0 for a condensation. */
  keptChars: number;
}

/**
 * Caps one new tool result: at most `perResultCapChars`, or `overBudgetResultChars` once
 * the conversation budget is spent or the raw tool output is past `rawCeilingChars` (one
 * char less when the cut would split a surrogate pair). A cut result ends with a notice
 * saying where the rest is and how to re-read it. With `overBudget: "condense"` (the
 * default), a result over the budget is condensed at arrival instead: its headings and every figure verbatim
 * under a header saying it was condensed and the original is re-readable, at most
 * `condensedResultChars` (stretching to `condensedResultCharsMax` for the figures); it is
 * cut as before when the condensation holds no heading and no figure, is not shorter, or
 * does not fit its cap.
 * Pure and linear in the result's length.
 */
export function capToolResult(content: string, options: CapOptions): CappedResult {
  const perResult = options.perResultCapChars ?? BUDGET_DEFAULTS.perResultCapChars;
  const budget = options.conversationBudgetChars ?? BUDGET_DEFAULTS.conversationBudgetChars;
  const overBudget = options.overBudgetResultChars ?? BUDGET_DEFAULTS.overBudgetResultChars;
  const ceiling = options.rawCeilingChars ?? BUDGET_DEFAULTS.rawCeilingChars;
  const pastCeiling = options.rawChars !== undefined && options.rawChars > ceiling;
  const overSpent = options.usedChars >= budget || pastCeiling;
  const limit = overSpent ? overBudget : perResult;
  if (content.length <= limit) {
    return {
      content,
      capped: false,
      condensed: false,
      originalChars: content.length,
      keptChars: content.length,
    };
  }
  const reason = !overSpent
    ? "results are capped per call"
    : pastCeiling
      ? "the conversation's raw tool output is past its ceiling"
      : "the conversation's tool budget is spent";
  if (overSpent && (options.overBudget ?? BUDGET_DEFAULTS.overBudget) === "condense") {
    const capMax = options.condensedResultCharsMax ?? BUDGET_DEFAULTS.condensedResultCharsMax;
    const condensation = condenseAtArrival(content, {
      reason,
      wholeChars: overBudget,
      capChars: options.condensedResultChars ?? BUDGET_DEFAULTS.condensedResultChars,
      capMaxChars: capMax,
      ...(options.toolCallId === undefined ? {} : { toolCallId: options.toolCallId }),
      ...(options.readOriginalToolName === undefined
        ? {}
        : { readOriginalToolName: options.readOriginalToolName }),
    });
    const holds = condensation.figures.found + condensation.headings.found > 0;
    // A cap too small for the header and the re-read line leaves the cut to say it.
    if (holds && condensation.text.length < content.length && condensation.text.length <= capMax) {
      return {
        content: condensation.text,
        capped: true,
        condensed: true,
        originalChars: content.length,
        keptChars: 0,
      };
    }
  }
  // Never split a surrogate pair: a lone half would hash and render as different text.
  const splitsPair =
    limit > 0 && isHighSurrogate(content.charCodeAt(limit - 1)) && isLowSurrogate(content.charCodeAt(limit));
  const cut = splitsPair ? limit - 1 : limit;
  const notice =
    `\n\n[Result cut to ${cut.toLocaleString("en-US")} of ${content.length.toLocaleString("en-US")} chars because ${reason}. ` +
    `The rest (from character ${cut.toLocaleString("en-US")} of this result on) is unchanged at its source: re-read it with the same tool, moving its offset on by ${cut.toLocaleString("en-US")} chars.]`;
  return {
    content: content.slice(0, cut) + notice,
    capped: true,
    condensed: false,
    originalChars: content.length,
    keptChars: cut,
  };
}
