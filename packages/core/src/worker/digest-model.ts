import { createAnthropicDigester, createExtractiveDigester, type DigestModel, withFallback } from "../index";
import type { FunctionMetrics } from "./observability";

/**
 * The model digester the digest function runs, set per deployment (`DIGEST_MODEL`):
 * `anthropic` (the default) or `openai-compatible` (any Chat Completions server, configured
 * by the `OPENAI_COMPATIBLE_*` settings). Either runs with the extractive digester as its
 * fallback; without its key or settings, digests are extractive only.
 */
export const DIGEST_MODELS = ["anthropic", "openai-compatible"] as const;
export type DigestModelChoice = (typeof DIGEST_MODELS)[number];

/** What {@link digesterFor} builds the digester from. */
export interface DigesterConfig {
  /** @default "anthropic" */
  digestModel?: DigestModelChoice;
  /** Without a key, the `anthropic` choice digests extractively only. */
  anthropicApiKey?: string;
  anthropicBaseUrl?: string;
  /**
   * The `OPENAI_COMPATIBLE_*` settings by name (base URL, API key, model; optional output
   * limit field and prices), read when `digestModel` is `openai-compatible`.
   */
  openAiCompatible?: Readonly<Record<string, string | undefined>>;
  metrics: FunctionMetrics;
}

/**
 * The chosen model digester with the extractive one as its fallback (fallbacks counted on
 * `metrics`), or the extractive one alone when the Anthropic choice has no key. The
 * OpenAI-compatible digester and its SDK load only when chosen.
 *
 * @throws {InvalidOptionError} when `openai-compatible` is chosen and a setting is missing
 *   or malformed (the message names it).
 */
export async function digesterFor(config: DigesterConfig): Promise<DigestModel> {
  const extractive = createExtractiveDigester();
  if (config.digestModel === "openai-compatible") {
    const { createOpenAiCompatibleDigester, openAiCompatibleSettings } = await import(
      "../digesters/openai-compatible/index"
    );
    const primary = createOpenAiCompatibleDigester(openAiCompatibleSettings(config.openAiCompatible ?? {}));
    return withFallback(primary, extractive, { metrics: config.metrics });
  }
  if (!config.anthropicApiKey) return extractive;
  const anthropic = createAnthropicDigester({
    apiKey: config.anthropicApiKey,
    ...(config.anthropicBaseUrl ? { baseURL: config.anthropicBaseUrl } : {}),
  });
  return withFallback(anthropic, extractive, { metrics: config.metrics });
}
