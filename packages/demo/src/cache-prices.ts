/**
 * The price table of the cost measurement: what a provider charges for a prompt's input
 * tokens under prompt caching, as a multiple of the model's base input price. Prices
 * change; this module is the one place that holds them (input prices as the providers
 * publish them, in USD per million tokens; output tokens are the same for every
 * contestant and left out).
 *
 * - Anthropic: a cache read costs 0.1× the base input price, a cache write 1.25× on the
 *   5-minute cache and 2× on the 1-hour cache, input past the request's last breakpoint
 *   1×. A prefix shorter than the model's minimum is never cached.
 * - OpenAI: caching is automatic, writes cost nothing extra; cached input costs a
 *   model-dependent fraction (0.5× on the GPT-4o class, 0.25× on the GPT-4.1 class, 0.1×
 *   on the GPT-5 class); prompts under 1,024 tokens are never cached, and a cache hit is
 *   counted in 128-token steps past the first 1,024.
 *
 * Tokens are counted as chars / {@link CHARS_PER_TOKEN}. Costs compared as a ratio to
 * raw's do not depend on the ratio, only the minimum-length thresholds do.
 */

/** Chars per token, the same ratio the history budget of trimMessages uses. */
export const CHARS_PER_TOKEN = 4;

/** Anthropic's cache rules, shared by its models. */
export const ANTHROPIC_CACHE = {
  /** Read of a cached prefix, × base input price. */
  read: 0.1,
  /** Write of the 5-minute cache, × base input price. */
  write5m: 1.25,
  /** Write of the 1-hour cache, × base input price. */
  write1h: 2,
  /** The 5-minute cache's lifetime (refreshed by every read). */
  lifetime5mMs: 300_000,
  lifetime1hMs: 3_600_000,
  /** Breakpoints (`cache_control`) allowed per request. */
  maxBreakpoints: 4,
  /** A lookup checks each breakpoint and about this many blocks before it. */
  lookbackBlocks: 20,
  /** Shortest cacheable prefix, in tokens (Sonnet and Opus class; about 2,048 on Haiku class). */
  minCacheableTokens: 1_024,
  /** The model the dollar figures are priced at: Claude Sonnet 4.5, base input USD per million tokens. */
  model: "claude-sonnet-4-5",
  inputUsdPerMillionTokens: 3,
} as const;

/** OpenAI's automatic prefix cache. */
export const OPENAI_CACHE = {
  /** Prompts shorter than this (in tokens) are never cached. */
  minCachedTokens: 1_024,
  /** A hit counts whole steps of this many tokens past the first 1,024. */
  stepTokens: 128,
  /** Cache lifetime after the last use (5 to 10 minutes of inactivity; the shorter bound). */
  lifetimeMs: 300_000,
} as const;

/** How one tariff prices the chars of a call, each as a multiple of the base input price. */
export type Tariff =
  | {
      id: string;
      label: string;
      provider: "anthropic";
      read: number;
      write: number;
      inputUsdPerMillionTokens: number;
    }
  | { id: string; label: string; provider: "openai"; cached: number; inputUsdPerMillionTokens: number };

/** The tariffs every contestant's calls are priced under, in table order. */
export const TARIFFS = [
  {
    id: "anthropic-5m",
    label: "Anthropic, 5-minute cache (Claude Sonnet 4.5, $3 / MTok input)",
    provider: "anthropic",
    read: ANTHROPIC_CACHE.read,
    write: ANTHROPIC_CACHE.write5m,
    inputUsdPerMillionTokens: ANTHROPIC_CACHE.inputUsdPerMillionTokens,
  },
  {
    id: "anthropic-1h",
    label: "Anthropic, 1-hour cache (Claude Sonnet 4.5, $3 / MTok input)",
    provider: "anthropic",
    read: ANTHROPIC_CACHE.read,
    write: ANTHROPIC_CACHE.write1h,
    inputUsdPerMillionTokens: ANTHROPIC_CACHE.inputUsdPerMillionTokens,
  },
  {
    id: "openai-gpt-4o",
    label: "OpenAI, GPT-4o class (cached 0.5×, $2.50 / MTok input)",
    provider: "openai",
    cached: 0.5,
    inputUsdPerMillionTokens: 2.5,
  },
  {
    id: "openai-gpt-4.1",
    label: "OpenAI, GPT-4.1 class (cached 0.25×, $2.00 / MTok input)",
    provider: "openai",
    cached: 0.25,
    inputUsdPerMillionTokens: 2,
  },
  {
    id: "openai-gpt-5",
    label: "OpenAI, GPT-5 class (cached 0.1×, $1.25 / MTok input)",
    provider: "openai",
    cached: 0.1,
    inputUsdPerMillionTokens: 1.25,
  },
] as const satisfies readonly Tariff[];

export type TariffId = (typeof TARIFFS)[number]["id"];
