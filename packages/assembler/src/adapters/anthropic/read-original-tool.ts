import {
  READ_ORIGINAL_DEFAULTS,
  READ_ORIGINAL_DESCRIPTION,
  type ReadOriginalOption,
  type ReadOriginalResult,
  readOriginal,
  readOriginalJsonSchema,
  renderReadOriginalResult,
  resolveReadOriginal,
} from "../../read-original/read-original";
import { type AnthropicMessageLike, anthropicToNeutral } from "./anthropic-adapter";

/**
 * The `read_original` tool in the Messages API's `tools` format, under the name the
 * `readOriginal` option gives (@default "read_original").
 */
export function anthropicReadOriginalTool(option: ReadOriginalOption = true): {
  name: string;
  description: string;
  input_schema: ReturnType<typeof readOriginalJsonSchema>;
} {
  const name = resolveReadOriginal(option) ?? READ_ORIGINAL_DEFAULTS.toolName;
  return { name, description: READ_ORIGINAL_DESCRIPTION, input_schema: readOriginalJsonSchema() };
}

/** The `tool_result` block answering one `read_original` call. */
export interface AnthropicReadOriginalResult {
  type: "tool_result";
  tool_use_id: string;
  content: string;
  is_error?: true;
}

/**
 * Answers a `tool_use` block calling `read_original` from `messages`, the thread as the
 * runtime holds it (never the cleaned view sent to the model): a `tool_result` block to
 * put in the next user message, `is_error: true` for an unknown, empty or shared id or a bad
 * window. Never throws.
 *
 * @example
 * for (const block of response.content) {
 *   if (block.type === "tool_use" && block.name === "read_original")
 *     results.push(answerAnthropicReadOriginal(block, messages));
 * }
 */
export function answerAnthropicReadOriginal(
  toolUse: { id: string; input: unknown },
  messages: readonly AnthropicMessageLike[],
): AnthropicReadOriginalResult {
  let result: ReadOriginalResult;
  try {
    result = readOriginal(anthropicToNeutral(messages), toolUse.input);
  } catch {
    result = { ok: false, error: "the conversation could not be read" };
  }
  return {
    type: "tool_result",
    tool_use_id: String(toolUse.id),
    content: renderReadOriginalResult(result),
    ...(result.ok ? {} : { is_error: true as const }),
  };
}
