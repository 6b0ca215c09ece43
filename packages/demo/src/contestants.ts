import {
  type AssembleOptions,
  assembleModelView,
  type CacheContext,
  type DigestMap,
  type Message,
} from "@context-cleaner/assembler";
import { COMPACTION_DEFAULTS, messageChars } from "@context-cleaner/assembler/internal";
import type { Accounting } from "./budget-track";
import type { WorkerTiming } from "./worker-between-turns";

/** A view strategy played through the same turns as every other. */
export interface Contestant {
  id: string;
  label: string;
  /** Which budget track the strategy's thread is recorded under. */
  accounting: Accounting;
  /** For `effective` accounting: when the worker reads the checkpoint. @default "next-user-message" */
  workerTiming?: WorkerTiming;
  /** Its view depends on the cache context: played once per timing scenario, each with its own context. */
  cacheAware?: boolean;
  /** Its requests set Anthropic's `drop_block` with the beta header (the provider drops invalid thinking instead of refusing). */
  sendsDropBlock?: boolean;
  /** This project's contestants: the assembly options its view passes (see {@link withAssembleOptions}). */
  assembleOptions?: AssembleOptions;
  /** The view of `prompt` sent to the model, in the neutral form (for measuring). */
  view(
    prompt: readonly Message[],
    digests: DigestMap,
    cache?: SimulatedCacheContext,
  ): ContestantView | Promise<ContestantView>;
}

/** What the runtime tells a cache-aware assembly about the provider's cache at one model call. */
export type SimulatedCacheContext = CacheContext;

export interface ContestantView {
  messages: readonly Message[];
  /** Milliseconds the strategy itself took (format conversions left out). */
  elapsedMs: number;
  /** Tool call ids the view shows condensed, from the assembly report's ledger when it has one. */
  condensedIds?: readonly string[];
  /** What the view sent, message by message (the report's `ledger.sent`), for the next call's `cache.sent`. */
  sent?: readonly string[];
  /** The status of the call's new batch of condensations (the report's `ledger.batch.status`), when it has one. */
  batch?: "applied" | "deferred" | "none";
}

/** Defaults every contestant shares: the same history budget and the same keep-3. */
export const CONTESTANT_DEFAULTS = {
  historyBudgetChars: COMPACTION_DEFAULTS.historyBudgetChars,
  /** Tool results (or exchanges) kept whole by the strategies that keep the last few. */
  keepLast: 3,
  /** What clear-old-tool-results leaves in place of a result (LangChain's ClearToolUsesEdit default). */
  clearedPlaceholder: "[cleared]",
} as const;

/** Times a synchronous strategy. */
export function timed(run: () => readonly Message[]): ContestantView {
  const started = performance.now();
  const messages = run();
  return { messages, elapsedMs: performance.now() - started };
}

function totalChars(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += messageChars(message);
  return total;
}

/** No caps, no cleaning: the whole thread in every prompt. */
export const RAW: Contestant = {
  id: "raw",
  label: "raw",
  accounting: "none",
  view: (prompt) => ({ messages: prompt, elapsedMs: 0 }),
};

/** The runtime's caps counting raw chars, and the history backstop alone (drop-oldest, the kill-switch view). */
export const BLIND_CAPS: Contestant = {
  id: "blind-caps",
  label: "blind caps + drop-oldest",
  accounting: "blind",
  view: (prompt) => timed(() => assembleModelView(prompt, null, { disabled: true }).messages),
};

const cleared = new WeakMap<Message, Message>();

/**
 * Clear old tool results, keep 3 (Anthropic's context editing, `clear_tool_uses`): once the
 * prompt passes the trigger (here the shared history budget), every tool result but the
 * last three is replaced by a placeholder; the tool calls stay.
 */
export const CLEAR_TOOL_RESULTS: Contestant = {
  id: "clear-tool-results",
  label: "clear old tool results (keep 3)",
  accounting: "blind",
  view: (prompt) =>
    timed(() => {
      if (totalChars(prompt) <= CONTESTANT_DEFAULTS.historyBudgetChars) return prompt;
      let kept = 0;
      const view = [...prompt];
      for (let index = view.length - 1; index >= 0; index--) {
        const message = view[index] as Message;
        if (message.role !== "tool") continue;
        if (kept++ < CONTESTANT_DEFAULTS.keepLast) continue;
        let placeholder = cleared.get(message);
        if (!placeholder) {
          placeholder = { ...message, content: CONTESTANT_DEFAULTS.clearedPlaceholder };
          cleared.set(message, placeholder);
        }
        view[index] = placeholder;
      }
      return view;
    }),
};

/** This project's assembly given the call's cache context, with the ledger's condensed ids when the report has them. */
function cacheAwareView(
  prompt: readonly Message[],
  digests: DigestMap,
  cache: SimulatedCacheContext | undefined,
  extra: AssembleOptions = {},
): ContestantView {
  const options: AssembleOptions = { ...extra, disabled: false, ...(cache ? { cache } : {}) };
  const started = performance.now();
  const { messages, report } = assembleModelView(prompt, digests, options);
  const elapsedMs = performance.now() - started;
  return {
    messages,
    elapsedMs,
    condensedIds: report.ledger.condensedIds,
    sent: report.ledger.sent,
    batch: report.ledger.batch.status,
  };
}

/** This project without the worker: keep-rules, inline stubs and the backstop; the budget counts raw. */
export const INLINE_ONLY: Contestant = {
  id: "inline-only",
  label: "context-cleaner, inline only",
  accounting: "blind",
  cacheAware: true,
  assembleOptions: {},
  view: (prompt, _digests, cache) => cacheAwareView(prompt, new Map(), cache),
};

/**
 * This project with the worker's digests, and the budget counting effective chars. The
 * worker reads the checkpoint once the user's next message is in it.
 */
export const WITH_DIGESTS: Contestant = {
  id: "with-digests",
  label: "context-cleaner, with digests",
  accounting: "effective",
  workerTiming: "next-user-message",
  cacheAware: true,
  assembleOptions: {},
  view: (prompt, digests, cache) => cacheAwareView(prompt, digests, cache),
};

/** The same, with the worker reading the checkpoint as the turn ends, before the user answers. */
export const WITH_DIGESTS_AT_TURN_END: Contestant = {
  ...WITH_DIGESTS,
  id: "with-digests-turn-end",
  label: "context-cleaner, with digests (worker at turn end)",
  workerTiming: "turn-end",
};

/**
 * With digests, its requests setting Anthropic's `drop_block` (with the beta header): a
 * watermark batch inside a long turn lands even while the latest assistant message carries
 * thinking, which the provider then drops (`watermark.dropLatestThinking`).
 */
export const WITH_DIGESTS_DROP_BLOCK: Contestant = {
  ...WITH_DIGESTS,
  id: "with-digests-drop-block",
  label: "context-cleaner, with digests (drop_block at a watermark)",
  sendsDropBlock: true,
  assembleOptions: { watermark: { dropLatestThinking: true } },
  view: (prompt, digests, cache) =>
    cacheAwareView(prompt, digests, cache, { watermark: { dropLatestThinking: true } }),
};

/**
 * This project's contestant with more assembly options (e.g. `readOriginal: true`, the
 * `read_original` tool on); any other contestant as it is.
 */
export function withAssembleOptions(contestant: Contestant, extra: AssembleOptions): Contestant {
  const base = contestant.assembleOptions;
  if (base === undefined) return contestant;
  const inline = contestant.id === INLINE_ONLY.id;
  const options = { ...base, ...extra };
  return {
    ...contestant,
    assembleOptions: options,
    view: (prompt, digests, cache) => cacheAwareView(prompt, inline ? new Map() : digests, cache, options),
  };
}
