import type { DigestUsage } from "../../ports";

/** Prices of one model in USD per million tokens; `longContext` applies above its threshold. */
export interface ModelPrice {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  readonly cacheReadPerMillion: number;
  readonly cacheWritePerMillion: number;
  readonly longContext?: {
    /** Prompt size in tokens (input + cache read + cache write) above which these prices apply. */
    readonly aboveInputTokens: number;
    readonly inputPerMillion: number;
    readonly outputPerMillion: number;
    readonly cacheReadPerMillion: number;
    readonly cacheWritePerMillion: number;
  };
}

/**
 * The one place model ids and prices live (they change; keep them out of code
 * paths). Prices from platform.claude.com model pages as of 2026-11; cache-read prices
 * are 10% of input, cache writes the 5-minute TTL price. Update this table, nothing else.
 */
export const ANTHROPIC_MODELS = {
  "claude-haiku-5-5": {
    inputPerMillion: 0.1,
    outputPerMillion: 0.5,
    cacheReadPerMillion: 0.01,
    cacheWritePerMillion: 0.125,
    longContext: {
      aboveInputTokens: 100_000,
      inputPerMillion: 0.5,
      outputPerMillion: 2.5,
      cacheReadPerMillion: 0.05,
      cacheWritePerMillion: 0.625,
    },
  },
  "claude-haiku-4-5": {
    inputPerMillion: 1,
    outputPerMillion: 5,
    cacheReadPerMillion: 0.1,
    cacheWritePerMillion: 1.25,
  },
} as const satisfies Record<string, ModelPrice>;

export type AnthropicModelId = keyof typeof ANTHROPIC_MODELS;

/** The Haiku-class default digest model. */
export const DEFAULT_ANTHROPIC_MODEL: AnthropicModelId = "claude-haiku-5-5";

/**
 * What a model's Messages API accepts, beyond its prices. The request the digester sends
 * is built from these traits, so each model in {@link ANTHROPIC_MODELS} gets a request it
 * accepts.
 */
export interface ModelRequestTraits {
  /**
   * The thinking the model runs when a request sets none. The API refuses thinking
   * together with a forced `tool_choice`, so a model that thinks by default is sent
   * `thinking: { type: "disabled" }` with the forced digest tool.
   */
  readonly defaultThinking: "off" | "adaptive";
  /** Whether `temperature`, `top_p` and `top_k` are accepted (5.x models refuse them). */
  readonly acceptsSamplingParameters: boolean;
  /** Whether `thinking: { type: "enabled", budget_tokens }` is accepted (5.x models refuse it). */
  readonly acceptsManualThinking: boolean;
  /** Whether the messages may end with an assistant turn to prefill (5.x models refuse it). */
  readonly acceptsPrefill: boolean;
}

/**
 * Request traits of each model, from the models' migration guides as of 2026-11. Responses
 * of a thinking model put thinking blocks before the answer, so answers are read by block
 * type, never by position.
 */
export const ANTHROPIC_MODEL_TRAITS = {
  "claude-haiku-5-5": {
    defaultThinking: "adaptive",
    acceptsSamplingParameters: false,
    acceptsManualThinking: false,
    acceptsPrefill: false,
  },
  "claude-haiku-4-5": {
    defaultThinking: "off",
    acceptsSamplingParameters: true,
    acceptsManualThinking: true,
    acceptsPrefill: true,
  },
} as const satisfies Record<AnthropicModelId, ModelRequestTraits>;

/** Whether a model id has prices in {@link ANTHROPIC_MODELS}. */
export function isKnownModel(model: string): model is AnthropicModelId {
  return Object.hasOwn(ANTHROPIC_MODELS, model);
}

/**
 * Cost of one call in USD: usage × the model's prices (long-context prices when the
 * prompt exceeds the model's threshold). Rounded to 1e-9 so sums are stable.
 *
 * @example
 * costUsd("claude-haiku-5-5", { inputTokens: 20_000, outputTokens: 1_000, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
 * // → 0.0025
 */
export function costUsd(model: AnthropicModelId, usage: DigestUsage): number {
  const base: ModelPrice = ANTHROPIC_MODELS[model];
  const promptTokens = usage.inputTokens + usage.cacheReadInputTokens + usage.cacheCreationInputTokens;
  const price =
    base.longContext && promptTokens > base.longContext.aboveInputTokens ? base.longContext : base;
  const total =
    (usage.inputTokens * price.inputPerMillion +
      usage.outputTokens * price.outputPerMillion +
      usage.cacheReadInputTokens * price.cacheReadPerMillion +
      usage.cacheCreationInputTokens * price.cacheWritePerMillion) /
    1_000_000;
  return Math.round(total * 1e9) / 1e9;
}
