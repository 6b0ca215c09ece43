import { InvalidOptionError } from "../errors";
import type { DigestMap } from "../types";
import type { ThinkingReport } from "./provider-true";

/**
 * Prompt-cache tariffs (docs/architecture.md#prompt-cache): per tariff, what reading the
 * cache and writing it cost as multiples of the model's base input price per token, and
 * how long an entry lives. The one place these numbers live: prices change, and the cost
 * gate reads them from here.
 */
export const CACHE_TARIFFS = {
  /** Anthropic, 5-minute cache: reads 0.1×, writes 1.25×. */
  "anthropic-5m": { provider: "anthropic", read: 0.1, write: 1.25, lifetimeMs: 300_000 },
  /** Anthropic, 1-hour cache: reads 0.1×, writes 2×. */
  "anthropic-1h": { provider: "anthropic", read: 0.1, write: 2, lifetimeMs: 3_600_000 },
  /** OpenAI, GPT-4o class: automatic caching, no write premium, cached input 0.5×. */
  "openai-gpt-4o": { provider: "openai", read: 0.5, write: 1, lifetimeMs: 300_000 },
  /** OpenAI, GPT-4.1 class: cached input 0.25×. */
  "openai-gpt-4.1": { provider: "openai", read: 0.25, write: 1, lifetimeMs: 300_000 },
  /** OpenAI, GPT-5 class: cached input 0.1×. */
  "openai-gpt-5": { provider: "openai", read: 0.1, write: 1, lifetimeMs: 300_000 },
} as const satisfies Record<
  string,
  { provider: "anthropic" | "openai"; read: number; write: number; lifetimeMs: number }
>;

export type CacheTariff = keyof typeof CACHE_TARIFFS;

export type CacheProvider = (typeof CACHE_TARIFFS)[CacheTariff]["provider"];

/** The tariff a context without one prices at: the provider's, the 1-hour cache for an Anthropic lifetime of an hour or more. */
function tariffOf(cache: CacheContext): CacheTariff {
  if (cache.tariff !== undefined) return cache.tariff;
  if ((cache.provider ?? "anthropic") === "openai") return "openai-gpt-4o";
  return (cache.lifetimeMs ?? 0) >= CACHE_TARIFFS["anthropic-1h"].lifetimeMs
    ? "anthropic-1h"
    : "anthropic-5m";
}

/** Defaults of {@link CacheContext}. */
export const CACHE_DEFAULTS = {
  /** Anthropic's default (5-minute) prompt cache lifetime. */
  lifetimeMs: 300_000,
  /**
   * Model calls a batch's savings are counted over at least (a thread whose turns run
   * longer counts its own calls per turn: see {@link expectedCallsOf}).
   */
  expectedCalls: 12,
  tariff: "anthropic-5m",
} as const satisfies { lifetimeMs: number; expectedCalls: number; tariff: CacheTariff };

/**
 * What the runtime knows of a thread's prompt cache at one model call. With it, the
 * assembly keeps the view's prefix stable: what the previous view showed condensed stays
 * condensed, and new substitutions land as one batch on a turn's first call, when the
 * cache is cold anyway or the saving pays for the rewrite (docs/architecture.md#prompt-cache).
 */
export interface CacheContext {
  /** First model call of a turn (a new user message). Only then may a new batch land. */
  turnStart: boolean;
  /**
   * Milliseconds since this thread's previous model call, measured at the turn's first
   * call; undefined = unknown (treated as cold). Constant for all calls of one turn.
   */
  idleMs?: number;
  /** Provider cache lifetime. @default the tariff's (300000 on Anthropic's 5-minute cache) */
  lifetimeMs?: number;
  /**
   * Tool call ids the previous view of this thread showed condensed: the previous call's
   * `report.ledger.condensedIds`. Undefined = no history (first call, or a new process):
   * nothing is sticky, and the batch lands as a whole.
   */
  shown?: readonly string[];
  /**
   * Model calls a batch's savings are counted over, for the cost gate. @default the
   * thread's own model calls per turn before its latest user message, at least 12
   */
  expectedCalls?: number;
  /**
   * The tariff the runtime pays (docs/architecture.md#prompt-cache): whose read and write
   * prices the cost gate weighs a batch with, and the cache lifetime. @default from
   * `provider` and `lifetimeMs`: `anthropic-5m`, `anthropic-1h` for a lifetime of an hour
   * or more, `openai-gpt-4o` for `provider: "openai"`
   */
  tariff?: CacheTariff;
  /** Whose prices the cost gate uses when no `tariff` is given. @default "anthropic" */
  provider?: CacheProvider;
  /**
   * What the previous call of this thread sent: its `report.ledger.sent` (docs/architecture.md#provider-true-views).
   * The view's first change against it decides which thinking blocks leave the view, and
   * the ones an earlier call left out stay out. Undefined: the view is compared with the
   * thread as it is (exact while the thread's earlier views differed from it only from that
   * change on; the integrations keep `sent` for every call of a process).
   */
  sent?: readonly string[];
  /**
   * Digest rows that arrived after the turn's first call (a reload after a mid-turn event,
   * docs/architecture.md#relief-inside-a-long-turn), keyed by tool call id. Only a watermark
   * batch reads them, for the results of the turn under way it condenses now (a row wins
   * over the condensation the assembly would make), and for those a batch condensed with
   * them before: a result the view already shows condensed keeps its text, and nothing
   * else of the view changes until the next turn starts with every row loaded. The rows
   * given at the turn's start win for a tool call id both hold. The integrations fill it
   * in; leave out the ids the previous view showed condensed before the rows arrived.
   */
  midTurnDigests?: DigestMap;
}

/** Why the call's new batch landed, waited or was empty. */
export type BatchReason =
  | "cold"
  | "pays"
  | "no-history"
  | "would-not-pay"
  | "mid-turn"
  | "cache-unaware"
  | "nothing-new"
  | "watermark"
  | "arrival"
  | "thinking";

/** One result the view shows condensed or stubbed. */
export interface LedgerEntry {
  toolCallId: string;
  kind: "digest" | "superseded-search" | "duplicate" | "error-retry" | "condensed" | "backstop";
  /** Chars of the result as the thread holds it. */
  charsBefore: number;
  /** Chars of what the view shows in its place. */
  charsAfter: number;
}

/**
 * What one assembly condensed, by tool call id: the shape an integration surfaces (a UI's
 * "condensed" marker) and passes back as the next call's `cache.shown`.
 */
export interface TurnLedger {
  /**
   * Every result condensed or stubbed in this view, in thread order; a result the backstop
   * dropped with its exchange counts as `backstop` with `charsAfter` 0 (the note holds its
   * snippet).
   */
  entries: LedgerEntry[];
  /**
   * The ids of the results cleaning condensed (the `entries` of every kind but `backstop`,
   * and those the backstop then cut further or dropped), in thread order: what the next
   * call passes as `cache.shown`. The backstop's own stand-ins are left out: it decides
   * them anew from the thread at every call, the same way for all calls of a turn.
   */
  condensedIds: string[];
  /**
   * The new batch of this call: the results with a digest row or an inline stub that the
   * previous view did not show condensed. `results` and `charsSaved` count what landed
   * (`applied`) or what waits (`deferred`); `deferredResults` what still waits when only
   * the batch's later part landed.
   */
  batch: {
    status: "applied" | "deferred" | "none";
    reason: BatchReason;
    results: number;
    charsSaved: number;
    deferredResults: number;
  };
  /**
   * Thread position of the first message this view shows differently from the view
   * `cache.shown` implies: the first result condensed now that `shown` did not list, or
   * the first message the backstop dropped or condensed in this call but not at the
   * turn's first call. Without `shown` (or without `cache`): the first message cleaning
   * changed at all. The thread's length when nothing changed.
   */
  prefixKeptMessages: number;
  /** Chars of the view from `prefixKeptMessages` on (what the provider writes again). */
  invalidatedChars: number;
  /** A key per message of the view, in order: what the next call passes as `cache.sent`. */
  sent: string[];
  /** The thinking the view left out: what the model no longer sees of its earlier reasoning. */
  thinking: ThinkingReport;
}

/** The cache context with its defaults filled in. */
export interface ResolvedCache {
  turnStart: boolean;
  cold: boolean;
  shown: ReadonlySet<string> | undefined;
  /** Undefined: counted from the thread ({@link expectedCallsOf}). */
  expectedCalls: number | undefined;
  sent: readonly string[] | undefined;
  prices: { read: number; write: number };
  /** Rows that arrived mid-turn, for watermark batches only; undefined: none. */
  midTurnDigests: DigestMap | undefined;
}

function checkNumber(field: string, value: unknown, minimum: number, integer: boolean): void {
  if (value === undefined) return;
  if (
    typeof value !== "number" ||
    !Number.isFinite(value) ||
    value < minimum ||
    (integer && !Number.isInteger(value))
  ) {
    throw new InvalidOptionError(
      `options.${field} must be ${integer ? "an integer" : "a number"} ≥ ${minimum}, got ${String(value)}`,
      field,
    );
  }
}

/**
 * Validates `options.cache` and fills in its defaults; undefined for `false` or undefined
 * (cache-unaware assembly).
 *
 * @throws {InvalidOptionError} naming the field (e.g. `cache.idleMs`).
 */
export function resolveCache(cache: CacheContext | false | undefined): ResolvedCache | undefined {
  if (cache === undefined || cache === false) return undefined;
  if (cache === null || typeof cache !== "object") {
    throw new InvalidOptionError("options.cache must be a cache context object or false", "cache");
  }
  if (typeof cache.turnStart !== "boolean") {
    throw new InvalidOptionError(
      `options.cache.turnStart must be a boolean, got ${String(cache.turnStart)}`,
      "cache.turnStart",
    );
  }
  checkNumber("cache.idleMs", cache.idleMs, 0, false);
  checkNumber("cache.lifetimeMs", cache.lifetimeMs, 1, false);
  checkNumber("cache.expectedCalls", cache.expectedCalls, 0, false);
  if (cache.provider !== undefined && cache.provider !== "anthropic" && cache.provider !== "openai") {
    throw new InvalidOptionError(
      `options.cache.provider must be one of anthropic, openai, got ${String(cache.provider)}`,
      "cache.provider",
    );
  }
  if (cache.tariff !== undefined && !Object.hasOwn(CACHE_TARIFFS, cache.tariff)) {
    throw new InvalidOptionError(
      `options.cache.tariff must be one of ${Object.keys(CACHE_TARIFFS).join(", ")}, got ${String(cache.tariff)}`,
      "cache.tariff",
    );
  }
  if (
    cache.shown !== undefined &&
    (!Array.isArray(cache.shown) || cache.shown.some((id) => typeof id !== "string"))
  ) {
    throw new InvalidOptionError(
      "options.cache.shown must be an array of tool call ids (the previous report's ledger.condensedIds)",
      "cache.shown",
    );
  }
  if (
    cache.sent !== undefined &&
    (!Array.isArray(cache.sent) || cache.sent.some((key) => typeof key !== "string"))
  ) {
    throw new InvalidOptionError(
      "options.cache.sent must be an array of message keys (the previous report's ledger.sent)",
      "cache.sent",
    );
  }
  if (cache.midTurnDigests !== undefined && !(cache.midTurnDigests instanceof Map)) {
    throw new InvalidOptionError(
      "options.cache.midTurnDigests must be a Map of tool call id → digest row (rows that arrived mid-turn)",
      "cache.midTurnDigests",
    );
  }
  const tariff = CACHE_TARIFFS[tariffOf(cache)];
  const lifetime = cache.lifetimeMs ?? tariff.lifetimeMs;
  const prices = { read: tariff.read, write: tariff.write };
  return {
    turnStart: cache.turnStart,
    cold: cache.idleMs === undefined || cache.idleMs >= lifetime,
    shown: cache.shown === undefined ? undefined : new Set(cache.shown),
    expectedCalls: cache.expectedCalls,
    prices,
    sent: cache.sent,
    midTurnDigests: cache.midTurnDigests,
  };
}

/**
 * The calls a batch's saving is counted over when the runtime does not say: the thread's
 * own model calls per turn so far (its assistant messages before `end`, its latest user
 * message, over the turns they fall in), and never fewer than
 * {@link CACHE_DEFAULTS}.expectedCalls. A landed condensation saves its chars on the rest
 * of this turn's calls and on the turns after it while the cache stays warm; the default
 * stands for that horizon on a thread of short turns, and a thread whose turns run longer
 * shows it by its own calls.
 */
export function expectedCallsOf(messages: readonly { role: string }[], end: number): number {
  let calls = 0;
  let turns = 0;
  for (let index = 0; index < end; index++) {
    const role = messages[index]?.role;
    if (role === "assistant") calls++;
    else if (role === "user") turns++;
  }
  return Math.max(CACHE_DEFAULTS.expectedCalls, calls / Math.max(1, turns));
}

/** A result of the batch: where it stands and the chars landing it saves. */
export interface BatchCandidate {
  index: number;
  saved: number;
}

/**
 * The cost gate (docs/architecture.md#prompt-cache): of a warm call's batch (candidates in
 * thread order), the index into `candidates` from which on landing pays, or
 * `candidates.length` when no part of it does. Landing the candidates from `k` on saves
 * their chars on every expected call, read from cache, and makes the provider write again
 * what follows the first of them instead of reading it:
 *
 *   saved(k) × expectedCalls × read  >  after(k) × (write − read)
 *
 * where `after(k)` is the view's chars from candidate `k` on once they land. The part
 * with the largest net gain lands (the latest part on ties).
 */
export function payingSuffix(
  candidates: readonly BatchCandidate[],
  charsFrom: (index: number) => number,
  cache: ResolvedCache,
  expectedCalls = cache.expectedCalls ?? CACHE_DEFAULTS.expectedCalls,
): number {
  const { read, write } = cache.prices;
  let best = candidates.length;
  let bestGain = 0;
  let saved = 0;
  for (let k = candidates.length - 1; k >= 0; k--) {
    const candidate = candidates[k] as BatchCandidate;
    saved += candidate.saved;
    const after = charsFrom(candidate.index) - saved;
    const gain = saved * expectedCalls * read - after * (write - read);
    if (gain > bestGain) {
      bestGain = gain;
      best = k;
    }
  }
  return best;
}
