import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import type { DigestRequest } from "../../ports";
import { digestInstructions, PAGE_FIELD_DESCRIPTIONS, renderDocument } from "../digest-prompt";

/** The name of the structured-output format that carries the digest. */
export const RESPONSE_FORMAT_NAME = "page_digests";

/** Which request field bounds the output: servers differ (see {@link OpenAiCompatibleDigesterOptions}). */
export type OutputLimitField = "max_tokens" | "max_completion_tokens";

const BULLET_FIELDS = [
  "points",
  "parties",
  "dates",
  "amounts",
  "obligations",
  "defined_terms",
  "cross_references",
] as const;

const bullets = (description: string) =>
  ({ type: "array", items: { type: "string" }, maxItems: 12, description }) as const;

/**
 * The JSON schema of the answer, within what strict structured outputs accept: every
 * object lists all its properties in `required` and sets `additionalProperties: false`;
 * an optional value is a union with `null` (the title); arrays are bounded with `maxItems`
 * (a supported keyword); no composition keywords.
 */
export const PAGE_DIGESTS_SCHEMA = {
  type: "object",
  properties: {
    pages: {
      type: "array",
      description: "One entry per page, keyed by its tool_call_id.",
      items: {
        type: "object",
        properties: {
          tool_call_id: { type: "string", description: PAGE_FIELD_DESCRIPTIONS.tool_call_id },
          title: { type: ["string", "null"], description: `${PAGE_FIELD_DESCRIPTIONS.title} Else null.` },
          ...Object.fromEntries(
            BULLET_FIELDS.map((field) => [field, bullets(PAGE_FIELD_DESCRIPTIONS[field])]),
          ),
        },
        required: ["tool_call_id", "title", ...BULLET_FIELDS],
        additionalProperties: false,
      },
    },
  },
  required: ["pages"],
  additionalProperties: false,
} as const;

/** Instructions; the pages follow in the user turn, delimited as data. */
export const CHAT_SYSTEM_PROMPT = digestInstructions(
  "Answer only with the JSON object of the response format, one entry per page, keyed by its tool_call_id.",
);

/** The user turn: one document, its pages delimited as data. */
export function renderChatDocument(request: DigestRequest): string {
  return renderDocument(request, "in the JSON response format");
}

/**
 * The Chat Completions request for one document: the instructions as the system message,
 * the document as the one user message, the answer constrained by a strict JSON schema,
 * the output bounded by `outputLimitField`. No sampling parameters (reasoning models refuse them).
 */
export function buildChatRequest(
  request: DigestRequest,
  model: string,
  maxOutputTokens: number,
  outputLimitField: OutputLimitField,
): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages: [
      { role: "system", content: CHAT_SYSTEM_PROMPT },
      { role: "user", content: renderChatDocument(request) },
    ],
    response_format: {
      type: "json_schema",
      json_schema: { name: RESPONSE_FORMAT_NAME, strict: true, schema: PAGE_DIGESTS_SCHEMA },
    },
    [outputLimitField]: maxOutputTokens,
  };
}
