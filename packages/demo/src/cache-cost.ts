/**
 * The per-call cache model of the cost measurement: for each model call of one thread's
 * views, what the provider reads from its prompt cache, writes to it, and bills as
 * uncached input, counted the way each provider does where it matters (prices in
 * ./cache-prices).
 *
 * Anthropic. The request sets two `cache_control` breakpoints where the `./anthropic`
 * adapter does (by its own rule, `breakpointPlacements`): at the end of the request, and
 * at the end of the stable prefix (the longest prefix of messages the call shares with
 * the thread's previous call's view; none when that is empty or the whole view), never
 * on the latest assistant message (the prefix's goes on the message before it, and so
 * does the end's when the request ends on it). A breakpoint whose prefix is shorter than
 * the minimum cacheable length is neither read nor written. The call reads the longest
 * cached entry that is a prefix of it, looked up at each breakpoint and up to
 * `lookbackBlocks` messages before it; it writes an entry at each cacheable breakpoint
 * past the read and is billed the chars from the read to its last cacheable breakpoint
 * as a write; what follows that breakpoint (when the end is too short to cache, or is the
 * latest assistant message) is
 * uncached input. Simplifications: one message is one block (an Anthropic request may
 * hold several blocks per message, so the modelled lookback reaches at least as far back
 * as the provider's), the caller's own
 * breakpoints and tool definitions are left out, and entries do not expire within a
 * scenario's warm stretch ({@link PromptCacheModel.expire} empties the cache).
 *
 * OpenAI. Caching is automatic: a call reads the longest prefix of messages it shares
 * with any earlier request still cached, when that prefix holds at least 1,024 tokens,
 * counted in 128-token steps; the rest is uncached input, and nothing is billed as a
 * write. Simplification: the prefix is matched whole message by whole message (the
 * provider matches tokens, so a changed message's unchanged start would also be read).
 */
import { createHash } from "node:crypto";
import type { Message } from "@context-cleaner/assembler";
import { breakpointPlacements, canonicalJson, messageChars } from "@context-cleaner/assembler/internal";
import { ANTHROPIC_CACHE, CHARS_PER_TOKEN, OPENAI_CACHE, type Tariff } from "./cache-prices";

/** One model call's input, split as each provider bills it (chars). */
export interface CallCache {
  /** Chars the call sends. */
  chars: number;
  anthropic: {
    readChars: number;
    writeChars: number;
    uncachedChars: number;
    /** Message counts at which the request sets its breakpoints (prefix lengths), ascending. */
    breakpoints: number[];
  };
  openai: { cachedChars: number; uncachedChars: number };
}

/** Settings of the model; defaults from ./cache-prices. */
export interface PromptCacheSettings {
  /** @default ANTHROPIC_CACHE.minCacheableTokens */
  minCacheableTokens?: number;
  /** @default ANTHROPIC_CACHE.lookbackBlocks */
  lookbackBlocks?: number;
  /** @default OPENAI_CACHE.minCachedTokens */
  openaiMinTokens?: number;
  /** @default OPENAI_CACHE.stepTokens */
  openaiStepTokens?: number;
  /** @default CHARS_PER_TOKEN */
  charsPerToken?: number;
}

const messageKeys = new WeakMap<Message, string>();

/** What a message puts in the prompt, as a hash: equal for messages that send the same bytes. */
function messageKey(message: Message): string {
  let key = messageKeys.get(message);
  if (key === undefined) {
    const fields = [
      message.role,
      typeof message.content === "string" ? message.content : canonicalJson(message.content),
      message.role === "assistant" ? canonicalJson(message.toolCalls ?? []) : "",
      message.role === "tool"
        ? `${message.toolCallId}\u0000${message.toolName}\u0000${message.status ?? ""}`
        : "",
    ];
    key = createHash("sha1").update(fields.join("\u0001")).digest("base64");
    messageKeys.set(message, key);
  }
  return key;
}

const chained = new WeakMap<Message, Map<string, string>>();

/** The key of a prefix: the previous prefix's key followed by `message`. */
function chainKey(previous: string, message: Message): string {
  let byPrevious = chained.get(message);
  if (!byPrevious) {
    byPrevious = new Map();
    chained.set(message, byPrevious);
  }
  let key = byPrevious.get(previous);
  if (key === undefined) {
    key = createHash("sha1").update(previous).update(messageKey(message)).digest("base64");
    byPrevious.set(previous, key);
  }
  return key;
}

/** A view's prefixes: `keys[k]` and `chars[k]` describe its first `k` messages. */
interface Prefixes {
  keys: string[];
  chars: number[];
}

function prefixesOf(view: readonly Message[]): Prefixes {
  const keys = [""];
  const chars = [0];
  for (const [index, message] of view.entries()) {
    keys.push(chainKey(keys[index] as string, message));
    chars.push((chars[index] as number) + messageChars(message));
  }
  return { keys, chars };
}

/** The prompt cache of one thread's model calls at one provider (Anthropic and OpenAI side by side). */
export class PromptCacheModel {
  private readonly settings: Required<PromptCacheSettings>;
  private previous: Prefixes | undefined;
  /** Anthropic: prefix keys written at breakpoints. */
  private readonly entries = new Set<string>();
  /** OpenAI: every prefix of the requests cached so far. */
  private readonly seen = new Set<string>();

  constructor(settings: PromptCacheSettings = {}) {
    this.settings = {
      minCacheableTokens: settings.minCacheableTokens ?? ANTHROPIC_CACHE.minCacheableTokens,
      lookbackBlocks: settings.lookbackBlocks ?? ANTHROPIC_CACHE.lookbackBlocks,
      openaiMinTokens: settings.openaiMinTokens ?? OPENAI_CACHE.minCachedTokens,
      openaiStepTokens: settings.openaiStepTokens ?? OPENAI_CACHE.stepTokens,
      charsPerToken: settings.charsPerToken ?? CHARS_PER_TOKEN,
    };
  }

  /** The cache lifetime passed (the user came back later): every entry is gone. The previous view is still known. */
  expire(): void {
    this.entries.clear();
    this.seen.clear();
  }

  /** One model call sending `view`: what it reads, writes and sends uncached. */
  call(view: readonly Message[]): CallCache {
    const prefixes = prefixesOf(view);
    const total = prefixes.chars[view.length] as number;
    const anthropic = this.anthropicCall(
      prefixes,
      view.map((message) => message.role),
    );
    const openai = this.openaiCall(prefixes, view.length);
    this.previous = prefixes;
    return { chars: total, anthropic, openai };
  }

  private stablePrefix(prefixes: Prefixes, length: number): number {
    const previous = this.previous;
    if (!previous) return 0;
    let index = 0;
    const limit = Math.min(length, previous.keys.length - 1);
    while (index < limit && previous.keys[index + 1] === prefixes.keys[index + 1]) index++;
    return index;
  }

  /** Prefix lengths at which the adapter sets its breakpoints, ascending. */
  private breakpoints(roles: readonly string[], stable: number): number[] {
    const stableEnd = stable > 0 && stable < roles.length ? stable - 1 : -1;
    return breakpointPlacements(roles, stableEnd)
      .map((mark) => mark.message + 1)
      .sort((a, b) => a - b);
  }

  private anthropicCall(prefixes: Prefixes, roles: readonly string[]): CallCache["anthropic"] {
    const { chars, keys } = prefixes;
    const length = roles.length;
    const total = chars[length] as number;
    const stable = this.stablePrefix(prefixes, length);
    const breakpoints = this.breakpoints(roles, stable);
    const minChars = this.settings.minCacheableTokens * this.settings.charsPerToken;
    const cacheable = breakpoints.filter((point) => (chars[point] as number) >= minChars);
    let read = 0;
    for (const point of cacheable) {
      for (let index = point; index >= Math.max(1, point - this.settings.lookbackBlocks); index--) {
        if (this.entries.has(keys[index] as string)) {
          read = Math.max(read, index);
          break;
        }
      }
    }
    const last = cacheable.at(-1) ?? 0;
    for (const point of cacheable) if (point > read) this.entries.add(keys[point] as string);
    const readChars = chars[read] as number;
    const writeChars = last > read ? (chars[last] as number) - readChars : 0;
    return {
      readChars,
      writeChars,
      uncachedChars: total - readChars - writeChars,
      breakpoints,
    };
  }

  private openaiCall(prefixes: Prefixes, length: number): CallCache["openai"] {
    const { chars, keys } = prefixes;
    const total = chars[length] as number;
    let shared = length;
    while (shared > 0 && !this.seen.has(keys[shared] as string)) shared--;
    const { charsPerToken, openaiMinTokens, openaiStepTokens } = this.settings;
    const sharedTokens = Math.floor((chars[shared] as number) / charsPerToken);
    const cachedTokens =
      sharedTokens >= openaiMinTokens
        ? openaiMinTokens + Math.floor((sharedTokens - openaiMinTokens) / openaiStepTokens) * openaiStepTokens
        : 0;
    if (total >= openaiMinTokens * charsPerToken)
      for (let index = 1; index <= length; index++) this.seen.add(keys[index] as string);
    const cachedChars = cachedTokens * charsPerToken;
    return { cachedChars, uncachedChars: total - cachedChars };
  }
}

/**
 * What calls cost under a tariff, in base-input-token units (one unit: one token of
 * uncached input). Multiply by the tariff's USD per token for dollars.
 */
export function costUnits(
  calls: readonly CallCache[],
  tariff: Tariff,
  charsPerToken = CHARS_PER_TOKEN,
): number {
  let chars = 0;
  for (const call of calls) {
    if (tariff.provider === "anthropic") {
      const { readChars, writeChars, uncachedChars } = call.anthropic;
      chars += readChars * tariff.read + writeChars * tariff.write + uncachedChars;
    } else {
      chars += call.openai.cachedChars * tariff.cached + call.openai.uncachedChars;
    }
  }
  return chars / charsPerToken;
}

/** Chars of the calls that were not read from the cache (Anthropic: written or uncached). */
export function notCachedChars(calls: readonly CallCache[], provider: "anthropic" | "openai"): number {
  let chars = 0;
  for (const call of calls) {
    chars += provider === "anthropic" ? call.chars - call.anthropic.readChars : call.openai.uncachedChars;
  }
  return chars;
}

/** What a tariff charges to put a char in the cache, × base input price (OpenAI: no write premium, 1×). */
export function writePrice(tariff: Tariff): number {
  return tariff.provider === "anthropic" ? tariff.write : 1;
}

/**
 * The floor of a thread's bill under a tariff, in the units of {@link costUnits}: every
 * message the model must see written to the cache once and nothing read (Anthropic 1.25×
 * or 2× per char, OpenAI 1×). No contestant that shows the model every message can cost
 * less; what raw costs above it is the avoidable cost.
 */
export function costFloor(
  messages: readonly Message[],
  tariff: Tariff,
  charsPerToken = CHARS_PER_TOKEN,
): number {
  let chars = 0;
  for (const message of messages) chars += messageChars(message);
  return (chars * writePrice(tariff)) / charsPerToken;
}
