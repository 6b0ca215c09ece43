import type { AssistantMessage, ContentBlock, Message } from "../types";

/**
 * Content blocks that carry a model's thinking: Anthropic `thinking` and
 * `redacted_thinking` blocks, and `reasoning` parts (the AI SDK's, LangChain's standard
 * blocks). A provider binds each to the prompt it was produced after
 * (docs/architecture.md#provider-true-views).
 */
export const THINKING_BLOCK_TYPES: ReadonlySet<string> = new Set([
  "thinking",
  "redacted_thinking",
  "reasoning",
  "redacted-reasoning",
]);

/**
 * The fields a provider message carries its reasoning item in beside the content (OpenAI's
 * `reasoning`, and `reasoning_content` of the compatible APIs), as a record, or undefined.
 */
export const REASONING_FIELDS = ["reasoning", "reasoning_content"] as const;

export function reasoningFieldsOf(
  record: Record<string, unknown> | null | undefined,
): Record<string, unknown> | undefined {
  if (record === undefined || record === null) return undefined;
  let found: Record<string, unknown> | undefined;
  for (const field of REASONING_FIELDS) {
    if (record[field] != null) {
      found ??= {};
      found[field] = record[field];
    }
  }
  return found;
}

/** Whether a content block carries thinking. */
export function isThinkingBlock(block: ContentBlock): boolean {
  return THINKING_BLOCK_TYPES.has(block.type);
}

/** How many thinking blocks (and reasoning items beside the content) an assistant message carries; 0 for any other message. */
export function thinkingBlockCount(message: Message): number {
  if (message.role !== "assistant") return 0;
  let count = message.reasoning === undefined ? 0 : 1;
  if (typeof message.content !== "string") {
    for (const block of message.content) if (isThinkingBlock(block)) count++;
  }
  return count;
}

const strippedFrom = new WeakMap<Message, Message>();

/**
 * A copy of an assistant message without its thinking blocks and reasoning item, remembered
 * as standing for the original (see {@link originalOfStripped}); the message itself when it
 * carries none.
 */
export function withoutThinking(message: AssistantMessage): AssistantMessage {
  if (thinkingBlockCount(message) === 0) return message;
  const { reasoning: _reasoning, ...rest } = message;
  const stripped: AssistantMessage =
    typeof message.content === "string"
      ? rest
      : { ...rest, content: message.content.filter((block) => !isThinkingBlock(block)) };
  strippedFrom.set(stripped, message);
  return stripped;
}

/** The assistant message a view's copy without thinking stands for, if it is one. */
export function originalOfStripped(message: Message): Message | undefined {
  return strippedFrom.get(message);
}
