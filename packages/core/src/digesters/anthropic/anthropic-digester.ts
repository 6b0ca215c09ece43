import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "@anthropic-ai/sdk";
import type { Message } from "@anthropic-ai/sdk/resources/messages";
import { InvalidOptionError } from "@context-cleaner/assembler";
import { checkInteger } from "@context-cleaner/assembler/internal";
import { DigestModelError } from "../../errors";
import type { DigestModel, DigestRequest, DigestResult, DigestUsage } from "../../ports";
import { parsePageDigests } from "../digest-prompt";
import { digestModelErrorForStatus } from "../status-error";
import {
  buildMessagesRequest,
  DIGEST_SYSTEM_PROMPT,
  DIGEST_TOOL,
  DIGEST_TOOL_NAME,
  renderAnthropicDocument,
} from "./digest-prompt";
import { type AnthropicModelId, costUsd, DEFAULT_ANTHROPIC_MODEL, isKnownModel } from "./model-table";

/** Defaults of the Anthropic digester. */
export const ANTHROPIC_DIGESTER_DEFAULTS = {
  model: DEFAULT_ANTHROPIC_MODEL,
  /** SDK retries of 408/409/429/5xx and connection errors, with its backoff. */
  maxRetries: 2,
  /** Per-attempt timeout in ms. */
  timeoutMs: 60_000,
  /** Output budget of one call (all pages of one document). */
  maxOutputTokens: 8_192,
  /** Used when no baseURL is given, so the SDK never falls back to reading the environment. */
  baseURL: "https://api.anthropic.com",
} as const;

/**
 * Input tokens of each call besides the document, counted into each cost estimate: the
 * system prompt and tool schema at one token per UTF-8 byte at most, plus the provider's
 * tool-use preamble and message framing.
 */
const ESTIMATE_OVERHEAD_TOKENS =
  Buffer.byteLength(DIGEST_SYSTEM_PROMPT) + Buffer.byteLength(JSON.stringify(DIGEST_TOOL)) + 1_000;

/** The part of the SDK client the digester uses; a real `Anthropic` instance satisfies it. */

export type MessagesClient = Pick<Anthropic, "messages">;

/** Options of {@link createAnthropicDigester}: an injected client, or what to build one from. */
export type AnthropicDigesterOptions = (
  | { client: MessagesClient }
  | { apiKey: string; baseURL?: string; fetch?: typeof globalThis.fetch }
) & {
  /** @default "claude-haiku-5-5" — must be a key of ANTHROPIC_MODELS (its prices are needed). */
  model?: AnthropicModelId;
  /** @default 2 */
  maxRetries?: number;
  /** @default 60000 */
  timeoutMs?: number;
  /** @default 8192 */
  maxOutputTokens?: number;
};

/** Maps an SDK error to a DigestModelError by class and status, never by message text. */
export function toDigestModelError(error: unknown): DigestModelError {
  if (error instanceof DigestModelError) return error;
  if (error instanceof APIUserAbortError)
    return new DigestModelError("digest call aborted", { reason: "aborted", cause: error });
  if (error instanceof APIConnectionTimeoutError) {
    return new DigestModelError("digest call timed out", { reason: "timeout", cause: error });
  }
  if (error instanceof APIConnectionError) {
    return new DigestModelError("digest call could not connect", { reason: "connection", cause: error });
  }
  if (error instanceof APIError && typeof error.status === "number")
    return digestModelErrorForStatus(error.status, error);
  return new DigestModelError("digest call returned an unreadable response", {
    reason: "malformed",
    cause: error,
  });
}

function usageOf(message: Message): DigestUsage {
  const usage = message.usage;
  return {
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
  };
}

/** The injected client, or the SDK's client built from `apiKey` (never from the environment). */
function clientFor(
  options: AnthropicDigesterOptions,
  limits: { maxRetries: number; timeout: number },
): MessagesClient {
  if ("client" in options) return options.client;
  if (typeof options.apiKey !== "string" || options.apiKey === "") {
    throw new InvalidOptionError("apiKey must be a non-empty string (or inject a client)", "apiKey");
  }
  return new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL ?? ANTHROPIC_DIGESTER_DEFAULTS.baseURL,
    maxRetries: limits.maxRetries,
    timeout: limits.timeout,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * The page digests in a Messages response, or a {@link DigestModelError} saying why not.
 * Once a response arrived it was billed: every failure from here carries its cost.
 */
function readDigestResponse(message: Message, request: DigestRequest, model: AnthropicModelId): DigestResult {
  if (message === null || typeof message !== "object" || !Array.isArray(message.content)) {
    throw new DigestModelError("digest response is not a Messages API message", { reason: "malformed" });
  }
  const usage = usageOf(message);
  const billed = costUsd(model, usage);
  if (message.stop_reason === "refusal") {
    throw new DigestModelError("the model refused to digest the document", {
      reason: "refusal",
      costUsd: billed,
    });
  }
  const toolUse = message.content.find(
    (block) => block.type === "tool_use" && block.name === DIGEST_TOOL_NAME,
  );
  if (toolUse?.type !== "tool_use") {
    throw new DigestModelError(`digest response has no ${DIGEST_TOOL_NAME} tool call`, {
      reason: "malformed",
      costUsd: billed,
    });
  }
  const pages = parsePageDigests(toolUse.input, request);
  if (!pages) {
    throw new DigestModelError(`${DIGEST_TOOL_NAME} input does not match its schema`, {
      reason: "contract",
      costUsd: billed,
    });
  }
  return { pages, model, usage, costUsd: billed };
}

/**
 * The Anthropic digester: the pages of one document in one Messages call,
 * structured output by forced tool use, the document delimited as data. Never reads the
 * environment: pass a client, or an `apiKey` (and optionally `baseURL`, `fetch`).
 *
 * @throws {InvalidOptionError} at construction on an unknown model or a bad limit.
 * @throws {DigestModelError} from `digest` on HTTP failure, timeout, refusal, a malformed
 * response or tool input that breaks the schema (`reason` says which; `retryable` whether
 * a later pass can help).
 * @example
 * const digester = withFallback(createAnthropicDigester({ apiKey }), createExtractiveDigester());
 */
export function createAnthropicDigester(options: AnthropicDigesterOptions): DigestModel {
  const model = options.model ?? ANTHROPIC_DIGESTER_DEFAULTS.model;
  if (!isKnownModel(model)) {
    throw new InvalidOptionError(`model ${JSON.stringify(model)} has no prices in ANTHROPIC_MODELS`, "model");
  }
  const maxRetries = checkInteger(
    options.maxRetries ?? ANTHROPIC_DIGESTER_DEFAULTS.maxRetries,
    "maxRetries",
    0,
  );
  const timeout = checkInteger(options.timeoutMs ?? ANTHROPIC_DIGESTER_DEFAULTS.timeoutMs, "timeoutMs");
  const maxTokens = checkInteger(
    options.maxOutputTokens ?? ANTHROPIC_DIGESTER_DEFAULTS.maxOutputTokens,
    "maxOutputTokens",
  );
  const client = clientFor(options, { maxRetries, timeout });
  return {
    id: `anthropic:${model}`,
    estimateCostUsd(request: DigestRequest): number {
      // A true upper bound: a token is at least one UTF-8 byte (dense CJK or numeric text
      // can cost a token per char, more than chars / 3), plus the overhead and a full output budget.
      const inputTokens = Buffer.byteLength(renderAnthropicDocument(request)) + ESTIMATE_OVERHEAD_TOKENS;
      return costUsd(model, {
        inputTokens,
        outputTokens: maxTokens,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
      });
    },
    async digest(request: DigestRequest, callOptions: { signal?: AbortSignal } = {}): Promise<DigestResult> {
      let message: Message;
      try {
        message = await client.messages.create(buildMessagesRequest(request, model, maxTokens), {
          maxRetries,
          timeout,
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
      } catch (error) {
        throw toDigestModelError(error);
      }
      return readDigestResponse(message, request, model);
    },
  };
}
