import { InvalidOptionError } from "@context-cleaner/assembler";
import { checkInteger } from "@context-cleaner/assembler/internal";
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";
import type { ChatCompletion } from "openai/resources/chat/completions";
import { DigestModelError } from "../../errors";
import type { DigestModel, DigestRequest, DigestResult, DigestUsage } from "../../ports";
import { parsePageDigests } from "../digest-prompt";
import { digestModelErrorForStatus } from "../status-error";
import {
  buildChatRequest,
  CHAT_SYSTEM_PROMPT,
  type OutputLimitField,
  PAGE_DIGESTS_SCHEMA,
  renderChatDocument,
} from "./chat-request";

/** Defaults of the OpenAI-compatible digester. */
export const OPENAI_COMPATIBLE_DIGESTER_DEFAULTS = {
  /** SDK retries of 408/409/429/5xx and connection errors, with its backoff (and `retry-after`). */
  maxRetries: 2,
  /** Per-attempt timeout in ms. */
  timeoutMs: 60_000,
  /** Output budget of one call (all pages of one document). */
  maxOutputTokens: 8_192,
  /** `max_tokens`: what Ollama, vLLM, OpenRouter and OpenAI's non-reasoning models read. */
  outputLimitField: "max_tokens",
} as const satisfies {
  maxRetries: number;
  timeoutMs: number;
  maxOutputTokens: number;
  outputLimitField: OutputLimitField;
};

/** Prices of the served model in USD per million tokens (cached input at `inputPerMillion` unless given). */
export interface OpenAiCompatiblePrices {
  readonly inputPerMillion: number;
  readonly outputPerMillion: number;
  readonly cachedInputPerMillion?: number;
}

/** The part of the SDK client the digester uses; a real `OpenAI` instance satisfies it. */
export type ChatCompletionsClient = Pick<OpenAI, "chat">;

/** Options of {@link createOpenAiCompatibleDigester}: an injected client, or what to build one from. */
export type OpenAiCompatibleDigesterOptions = (
  | { client: ChatCompletionsClient }
  | {
      /** The server's API root, e.g. `https://openrouter.ai/api/v1`, `http://localhost:11434/v1`. */
      baseURL: string;
      /** Sent as `Authorization: Bearer`; a server without keys (Ollama, vLLM) takes any non-empty string. */
      apiKey: string;
      fetch?: typeof globalThis.fetch;
    }
) & {
  /** The model id as the server names it (`openai/gpt-4.1-mini`, `qwen3:8b`, …). */
  model: string;
  /** Without prices, calls cost 0 and nothing is reserved against the daily budget (a self-hosted model). */
  prices?: OpenAiCompatiblePrices;
  /** @default 2 */
  maxRetries?: number;
  /** @default 60000 */
  timeoutMs?: number;
  /** @default 8192 */
  maxOutputTokens?: number;
  /**
   * The request field that bounds the output. OpenAI's reasoning models refuse `max_tokens`
   * and need `max_completion_tokens`; Ollama reads only `max_tokens`.
   * @default "max_tokens"
   */
  outputLimitField?: OutputLimitField;
};

/** Input tokens of each call besides the document: the instructions and schema, one token per byte at most, plus framing. */
const ESTIMATE_OVERHEAD_TOKENS =
  Buffer.byteLength(CHAT_SYSTEM_PROMPT) + Buffer.byteLength(JSON.stringify(PAGE_DIGESTS_SCHEMA)) + 1_000;

/** Maps an SDK error to a DigestModelError by class and status, never by message text. */
export function toDigestModelError(error: unknown): DigestModelError {
  if (error instanceof DigestModelError) return error;
  if (error instanceof APIUserAbortError)
    return new DigestModelError("digest call aborted", { reason: "aborted", cause: error });
  if (error instanceof APIConnectionTimeoutError)
    return new DigestModelError("digest call timed out", { reason: "timeout", cause: error });
  if (error instanceof APIConnectionError)
    return new DigestModelError("digest call could not connect", { reason: "connection", cause: error });
  if (error instanceof APIError && typeof error.status === "number")
    return digestModelErrorForStatus(error.status, error);
  return new DigestModelError("digest call returned an unreadable response", {
    reason: "malformed",
    cause: error,
  });
}

function usageOf(completion: ChatCompletion): DigestUsage {
  const usage = completion.usage;
  const prompt = usage?.prompt_tokens ?? 0;
  const cached = Math.min(usage?.prompt_tokens_details?.cached_tokens ?? 0, prompt);
  return {
    inputTokens: prompt - cached,
    outputTokens: usage?.completion_tokens ?? 0,
    cacheReadInputTokens: cached,
    cacheCreationInputTokens: 0,
  };
}

/** Cost of one call in USD, rounded to 1e-9 so sums are stable; 0 without prices. */
function costOf(prices: OpenAiCompatiblePrices | undefined, usage: DigestUsage): number {
  if (!prices) return 0;
  const total =
    (usage.inputTokens * prices.inputPerMillion +
      usage.cacheReadInputTokens * (prices.cachedInputPerMillion ?? prices.inputPerMillion) +
      usage.outputTokens * prices.outputPerMillion) /
    1_000_000;
  return Math.round(total * 1e9) / 1e9;
}

function checkPrices(prices: OpenAiCompatiblePrices | undefined): void {
  if (!prices) return;
  for (const key of ["inputPerMillion", "outputPerMillion", "cachedInputPerMillion"] as const) {
    const value = prices[key];
    if (value === undefined && key === "cachedInputPerMillion") continue;
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      throw new InvalidOptionError(`prices.${key} must be a finite number ≥ 0`, `prices.${key}`);
    }
  }
}

/** The injected client, or the SDK's client built from `baseURL` and `apiKey` (never from the environment). */
function clientFor(
  options: OpenAiCompatibleDigesterOptions,
  limits: { maxRetries: number; timeout: number },
): ChatCompletionsClient {
  if ("client" in options) return options.client;
  if (typeof options.baseURL !== "string" || !/^https?:\/\/./.test(options.baseURL)) {
    throw new InvalidOptionError("baseURL must be an http(s) URL (or inject a client)", "baseURL");
  }
  if (typeof options.apiKey !== "string" || options.apiKey === "") {
    throw new InvalidOptionError("apiKey must be a non-empty string (or inject a client)", "apiKey");
  }
  return new OpenAI({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    // Given explicitly, so the SDK reads none of them from the environment.
    organization: null,
    project: null,
    adminAPIKey: null,
    webhookSecret: null,
    logLevel: "warn",
    maxRetries: limits.maxRetries,
    timeout: limits.timeout,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * The page digests in a completion, or a {@link DigestModelError} saying why not. Once a
 * completion arrived it was billed: every failure from here carries its cost.
 */
function readCompletion(
  completion: ChatCompletion,
  request: DigestRequest,
  model: string,
  prices: OpenAiCompatiblePrices | undefined,
): DigestResult {
  const choice = completion !== null && typeof completion === "object" ? completion.choices?.[0] : undefined;
  if (!choice || typeof choice.message !== "object" || choice.message === null) {
    throw new DigestModelError("digest response is not a chat completion", { reason: "malformed" });
  }
  const usage = usageOf(completion);
  const billed = costOf(prices, usage);
  const { message } = choice;
  if (
    (typeof message.refusal === "string" && message.refusal !== "") ||
    choice.finish_reason === "content_filter"
  ) {
    throw new DigestModelError("the model refused to digest the document", {
      reason: "refusal",
      costUsd: billed,
    });
  }
  if (choice.finish_reason === "length") {
    throw new DigestModelError("digest response was cut off at the output budget (finish_reason length)", {
      reason: "truncated",
      costUsd: billed,
    });
  }
  let answer: unknown;
  try {
    answer = JSON.parse(message.content ?? "");
  } catch {
    throw new DigestModelError("digest response content is not JSON", {
      reason: "malformed",
      costUsd: billed,
    });
  }
  const pages = parsePageDigests(answer, request);
  if (!pages) {
    throw new DigestModelError("digest response does not match its JSON schema", {
      reason: "contract",
      costUsd: billed,
    });
  }
  return { pages, model, usage, costUsd: billed };
}

/**
 * The OpenAI-compatible digester: the pages of one document in one Chat Completions call
 * to any server of that API (OpenAI, OpenRouter, vLLM, Ollama, …), the answer constrained
 * by strict structured output (`response_format: json_schema`), the document delimited as
 * data. Never reads the environment: pass a client, or a `baseURL` and `apiKey`.
 *
 * @throws {InvalidOptionError} at construction on a missing model, URL or key, bad prices or a bad limit.
 * @throws {DigestModelError} from `digest` on HTTP failure, timeout, refusal, a cut-off
 * (`truncated`) or malformed response, or an answer that breaks the schema (`reason` says
 * which; `retryable` whether a later pass can help).
 * @example
 * const digester = withFallback(
 *   createOpenAiCompatibleDigester({ baseURL: "http://localhost:11434/v1", apiKey: "ollama", model: "qwen3:8b" }),
 *   createExtractiveDigester(),
 * );
 */
export function createOpenAiCompatibleDigester(options: OpenAiCompatibleDigesterOptions): DigestModel {
  const model = options.model;
  if (typeof model !== "string" || model.trim() === "") {
    throw new InvalidOptionError("model must be the server's model id", "model");
  }
  checkPrices(options.prices);
  const maxRetries = checkInteger(
    options.maxRetries ?? OPENAI_COMPATIBLE_DIGESTER_DEFAULTS.maxRetries,
    "maxRetries",
    0,
  );
  const timeout = checkInteger(
    options.timeoutMs ?? OPENAI_COMPATIBLE_DIGESTER_DEFAULTS.timeoutMs,
    "timeoutMs",
  );
  const maxTokens = checkInteger(
    options.maxOutputTokens ?? OPENAI_COMPATIBLE_DIGESTER_DEFAULTS.maxOutputTokens,
    "maxOutputTokens",
  );
  const outputLimitField = options.outputLimitField ?? OPENAI_COMPATIBLE_DIGESTER_DEFAULTS.outputLimitField;
  if (outputLimitField !== "max_tokens" && outputLimitField !== "max_completion_tokens") {
    throw new InvalidOptionError(
      "outputLimitField must be max_tokens or max_completion_tokens",
      "outputLimitField",
    );
  }
  const client = clientFor(options, { maxRetries, timeout });
  const prices = options.prices;
  return {
    id: `openai-compatible:${model}`,
    ...(prices
      ? {
          estimateCostUsd(request: DigestRequest): number {
            // An upper bound: a token is at least one UTF-8 byte, plus the overhead and a full output budget.
            const inputTokens = Buffer.byteLength(renderChatDocument(request)) + ESTIMATE_OVERHEAD_TOKENS;
            return costOf(
              { inputPerMillion: prices.inputPerMillion, outputPerMillion: prices.outputPerMillion },
              { inputTokens, outputTokens: maxTokens, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
            );
          },
        }
      : {}),
    async digest(request: DigestRequest, callOptions: { signal?: AbortSignal } = {}): Promise<DigestResult> {
      let completion: ChatCompletion;
      try {
        completion = await client.chat.completions.create(
          buildChatRequest(request, model, maxTokens, outputLimitField),
          { maxRetries, timeout, ...(callOptions.signal ? { signal: callOptions.signal } : {}) },
        );
      } catch (error) {
        throw toDigestModelError(error);
      }
      return readCompletion(completion, request, model, prices);
    },
  };
}
