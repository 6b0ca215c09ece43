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
import { type OpenAIMessageLike, openAIToNeutral } from "./openai-adapter";

/**
 * The `read_original` tool in the Chat Completions `tools` format, under the name the
 * `readOriginal` option gives (@default "read_original").
 */
export function openAIReadOriginalTool(option: ReadOriginalOption = true): {
  type: "function";
  function: { name: string; description: string; parameters: ReturnType<typeof readOriginalJsonSchema> };
} {
  const name = resolveReadOriginal(option) ?? READ_ORIGINAL_DEFAULTS.toolName;
  return {
    type: "function",
    function: { name, description: READ_ORIGINAL_DESCRIPTION, parameters: readOriginalJsonSchema() },
  };
}

function parsedArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Answers an assistant `tool_calls` entry calling `read_original` from `messages`, the
 * thread as the runtime holds it (never the cleaned view sent to the model): the `tool`
 * message to append. The format has no error flag: an unknown, empty or shared id, a bad window
 * or arguments that are not JSON answer a text that opens with `[read_original error: `.
 * Never throws.
 */
export function answerOpenAIReadOriginal(
  toolCall: { id: string; function: { arguments: string } },
  messages: readonly OpenAIMessageLike[],
): { role: "tool"; tool_call_id: string; content: string } {
  let result: ReadOriginalResult;
  try {
    const args = parsedArguments(toolCall.function?.arguments);
    result =
      args === undefined
        ? { ok: false, error: "the arguments are not JSON" }
        : readOriginal(openAIToNeutral(messages), args);
  } catch {
    result = { ok: false, error: "the conversation could not be read" };
  }
  return { role: "tool", tool_call_id: String(toolCall.id), content: renderReadOriginalResult(result) };
}
