import { indexedThreadOf } from "../../thread/thread-state";
import type { Message } from "../../types";
import { runBackstop } from "./backstop-plan";
import type { BackstopSettings } from "./backstop-view";

/** Defaults of the history-compaction backstop (docs/architecture.md#assembly). */
export const COMPACTION_DEFAULTS = {
  /** Past this many chars, the oldest whole exchanges are dropped. */
  historyBudgetChars: 320_000,
  /** Each dropped message is remembered by a snippet of at most this many chars. */
  snippetChars: 300,
  /** The note standing for dropped history never exceeds this many chars. */
  noteMaxChars: 12_000,
  /**
   * A cache-aware cut brings the view down to this share of `historyBudgetChars` (the
   * low-water mark), so the turn's later calls append without cutting again. Without a
   * cache context (and in `compactHistory`) a cut brings the view down to the budget itself.
   */
  lowWaterRatio: 0.75,
} as const;

export interface CompactionOptions {
  /** @default 320000 */
  historyBudgetChars?: number;
  /** @default 300 */
  snippetChars?: number;
  /** @default 12000 */
  noteMaxChars?: number;
  /** Share of the budget a cut brings the view down to, in (0, 1]. @default 0.75 with a cache context, else 1 */
  lowWaterRatio?: number;
}

/** What the assembler knows of a view that the backstop must respect. */
export interface CompactionHints {
  /**
   * Messages that must not be dropped (the assembler pins results the recency window
   * references: the referenced-by-window keep-rule); an exchange holding one is kept whole.
   */
  pinned?: (index: number) => boolean;
  /**
   * Per stub index, the index of the later result it points to ("identical to … below",
   * "retried … below"), from the assembly's own stub decisions: a kept stub keeps its target.
   */
  stubTargets?: ReadonlyMap<number, number>;
  /**
   * A condensed stand-in for a result before the recency wall (its digest, or a stub naming
   * its re-read call): first for the results nothing pins, before any unit is dropped; for
   * pinned results only when dropping every unpinned unit does not fit the budget.
   * Undefined keeps the result as it is.
   */
  condense?: (index: number) => Message | undefined;
}

export interface CompactionResult {
  messages: readonly Message[];
  /** Whether anything was dropped or condensed. */
  fired: boolean;
  droppedMessages: number;
  /** Results replaced by their condensed stand-in. */
  condensedResults: number;
  /**
   * True when the view is still over the budget: what the backstop never removes (the
   * recency wall, system messages and notes, the latest assistant message's exchange, with
   * this pass's note header) exceeds it.
   */
  wallExceedsBudget: boolean;
  /**
   * True when the view is over the budget though the recency wall alone fits it: the
   * latest assistant message's exchange, which a wall starting at the latest user message
   * leaves out and the backstop never drops, is too long even at its shortest (a failed
   * result, or one kept as it is, is never condensed).
   */
  latestExchangeExceedsBudget: boolean;
}

/**
 * The settings of one backstop run, defaults filled in. `cacheAware`: cut to the low-water
 * mark on the turn's first call only, the turn's later calls appending.
 */
export function backstopSettings(options: CompactionOptions, cacheAware = false): BackstopSettings {
  const budget = options.historyBudgetChars ?? COMPACTION_DEFAULTS.historyBudgetChars;
  const ratio = options.lowWaterRatio ?? (cacheAware ? COMPACTION_DEFAULTS.lowWaterRatio : 1);
  return {
    budget,
    lowWater: Math.floor(budget * ratio),
    appendWithinTurn: cacheAware,
    snippetChars: options.snippetChars ?? COMPACTION_DEFAULTS.snippetChars,
    noteMaxChars: options.noteMaxChars ?? COMPACTION_DEFAULTS.noteMaxChars,
  };
}

// Stryker disable next-line BooleanLiteral,ArrowFunction: the index and the thread read alike
const NOTHING_REPLACED = { has: () => false };

/**
 * The history-compaction backstop: past `historyBudgetChars`, makes the view fit, in this
 * order, touching the recency wall never:
 * 1. condenses the results before the wall that no unit keeps (not pinned, no stub still in the
 *    view points to), latest first (the view's unchanged prefix stays as long as it can), to
 *    the stand-in `hints.condense` gives (their digest, or a stub naming their re-read call);
 * 2. (with the assembler's hints) cuts the digests before the wall down to their figures;
 * 3. drops the oldest whole units before the wall (see `UnitIndex`) that hold
 *    no pinned message, and puts one note of short snippets where the first one was;
 * 4. condenses pinned results before the wall, oldest first, the same way;
 * 5. drops the oldest units holding pinned results.
 * After each drop and after step 4, steps 1 and 2 run again, in that order (a stub that
 * went frees its target, whose digest is cut to its figures before step 4 touches a pinned
 * result; step 4's digests are cut too), so a view left over the budget holds nothing a
 * second run would change.
 * The note counts toward the budget. The view fits unless what is never removed (the wall,
 * system messages, earlier notes, the latest assistant message's exchange, which a wall
 * starting at the latest user message leaves out) leaves no room: then `wallExceedsBudget`
 * is true, nothing is dropped or condensed for what cannot help (the history besides the
 * wall and the latest exchange at its shortest stays within the budget), and
 * `latestExchangeExceedsBudget` says whether the latest exchange is the cause.
 *
 * @param hints What must stay: pinned messages and the targets of kept stubs (text that
 * merely looks like a stub pins nothing), and how to condense a pinned result.
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 */
export function compactHistory(
  messages: readonly Message[],
  wallStart: number,
  options: CompactionOptions = {},
  hints: CompactionHints = {},
): CompactionResult {
  const thread = indexedThreadOf(messages);
  const wall = Math.max(0, Math.min(wallStart, messages.length));
  const pinned: number[] = [];
  if (hints.pinned) {
    for (let index = 0; index < wall; index++) if (hints.pinned(index)) pinned.push(index);
  }
  const view = { thread, messages, replaced: NOTHING_REPLACED, chars: thread.totalChars, wallStart: wall };
  const {
    chars: _chars,
    cutNow: _cutNow,
    dropped: _dropped,
    condensed: _condensed,
    ...result
  } = runBackstop(view, backstopSettings(options), {
    pinned,
    stubTargets: hints.stubTargets,
    condense: hints.condense,
  });
  return result;
}
