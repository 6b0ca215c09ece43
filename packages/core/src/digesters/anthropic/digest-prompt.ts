import type {
  MessageCreateParamsNonStreaming,
  ThinkingConfigDisabled,
  Tool,
} from "@anthropic-ai/sdk/resources/messages";
import type { DigestRequest } from "../../ports";
import { digestInstructions, PAGE_FIELD_DESCRIPTIONS, renderDocument } from "../digest-prompt";
import { ANTHROPIC_MODEL_TRAITS, type AnthropicModelId } from "./model-table";

/** The name of the forced tool that carries the structured digest. */
export const DIGEST_TOOL_NAME = "record_digest";

const BULLETS = { type: "array", items: { type: "string" }, maxItems: 12 } as const;

/** The digest tool: the model's only way to answer (forced with `tool_choice`). */
export const DIGEST_TOOL: Tool = {
  name: DIGEST_TOOL_NAME,
  description:
    "Record a structured digest of each document page. Copy every number, date, amount, percentage, " +
    "section reference, defined term and party name exactly as written in the page.",
  input_schema: {
    type: "object",
    properties: {
      pages: {
        type: "array",
        items: {
          type: "object",
          properties: {
            tool_call_id: { type: "string", description: PAGE_FIELD_DESCRIPTIONS.tool_call_id },
            title: { type: "string", description: PAGE_FIELD_DESCRIPTIONS.title },
            points: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.points },
            parties: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.parties },
            dates: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.dates },
            amounts: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.amounts },
            obligations: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.obligations },
            defined_terms: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.defined_terms },
            cross_references: { ...BULLETS, description: PAGE_FIELD_DESCRIPTIONS.cross_references },
          },
          required: ["tool_call_id"],
        },
      },
    },
    required: ["pages"],
  },
};

/** Instructions; the pages follow in the user turn, delimited as data. */
export const DIGEST_SYSTEM_PROMPT = digestInstructions(
  `Answer only by calling ${DIGEST_TOOL_NAME}, with one entry per page, keyed by its tool_call_id.`,
);

/** The user turn: one document, its pages delimited as data. */
export function renderAnthropicDocument(request: DigestRequest): string {
  return renderDocument(request, `with ${DIGEST_TOOL_NAME}`);
}

/**
 * The Messages API request for one document, valid for the model's traits: the digest tool
 * is forced, so a model that thinks by default gets its thinking disabled (the API refuses
 * thinking with a forced tool). No sampling parameters, no assistant prefill: the messages
 * end with the user turn.
 */
export function buildMessagesRequest(
  request: DigestRequest,
  model: AnthropicModelId,
  maxTokens: number,
): MessageCreateParamsNonStreaming {
  const thinking = ANTHROPIC_MODEL_TRAITS[model].defaultThinking === "off" ? {} : { thinking: DISABLED };
  return {
    model,
    max_tokens: maxTokens,
    system: DIGEST_SYSTEM_PROMPT,
    tools: [DIGEST_TOOL],
    tool_choice: { type: "tool", name: DIGEST_TOOL_NAME },
    ...thinking,
    messages: [{ role: "user", content: [{ type: "text", text: renderAnthropicDocument(request) }] }],
  };
}

const DISABLED: ThinkingConfigDisabled = { type: "disabled" };
