/** The shapes the backstop plan and its unit marks share: the view, the assembler's hints, the result. */
import type { IndexedThread } from "../../thread/indexed-thread";
import type { Message } from "../../types";

export interface BackstopSettings {
  budget: number;
  /** What a cut brings the view down to, so the turn's later calls append without cutting. */
  lowWater: number;
  /**
   * Cut on the turn's first call only: the later calls keep its cut and append (the view
   * may pass the budget by what they add). Without it, a later call that goes over the
   * budget cuts again.
   */
  appendWithinTurn: boolean;
  snippetChars: number;
  noteMaxChars: number;
}

/** The view the backstop works on: an indexed thread with some results replaced. */
export interface BackstopView {
  readonly thread: IndexedThread;
  /** The thread's messages, position for position, with the replaced ones in place. */
  readonly messages: readonly Message[];
  /** Positions whose message is not the thread's own. */
  readonly replaced: { has(index: number): boolean };
  /** Chars of `messages`. */
  readonly chars: number;
  readonly wallStart: number;
}

/** What the assembler knows of a view that the backstop must respect (see `CompactionHints`). */
export interface BackstopHints {
  /** Pinned messages before the wall, ascending. */
  readonly pinned: readonly number[];
  readonly stubTargets?: ReadonlyMap<number, number> | undefined;
  readonly condense?: ((index: number) => Message | undefined) | undefined;
  /**
   * A shorter form (its figures-only form) of the digest the view shows as `shown` at
   * `index`; undefined for other results.
   */
  readonly shrink?: ((index: number, shown: Message) => Message | undefined) | undefined;
  /**
   * Whether the first step may condense the raw result at `index` (before anything is cut
   * or dropped); the target of a stub still in the view never is. @default every result
   * that is not pinned
   */
  readonly condensesEarly?: ((index: number) => boolean) | undefined;
  /**
   * The note's line for the dropped message at `index`, which the view shows as `shown`
   * (a digested result's figures and re-read calls, or a snippet naming the `read_original`
   * call); undefined for the default snippet.
   */
  readonly noteLine?: ((index: number, shown: Message, maxChars: number) => string | undefined) | undefined;
  /**
   * The `read_original` call returning the dropped result at `index`, when the tool is
   * enabled: the note's closing line names those its lines leave out. Undefined: the tool is off.
   */
  readonly noteHandle?: ((index: number) => string | undefined) | undefined;
}

export interface BackstopResult {
  messages: readonly Message[];
  fired: boolean;
  droppedMessages: number;
  condensedResults: number;
  wallExceedsBudget: boolean;
  /** Over the budget with the wall alone within it: the kept latest exchange leaves no room. */
  latestExchangeExceedsBudget: boolean;
  /** Chars of `messages`. */
  chars: number;
  /** Whether the cut in place was made for this call's own prompt (the previous call of the turn had another, or none). */
  cutNow: boolean;
  /** Per position of the view, 1 when the backstop dropped it. */
  dropped?: Uint8Array;
  /** The stand-ins the backstop put in place, by position. */
  condensed?: ReadonlyMap<number, Message>;
}
