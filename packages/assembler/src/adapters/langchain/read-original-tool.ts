import { ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
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
import { fromLangChain, type LangChainMessageInput } from "./langchain-adapter";

/** The executor over LangChain messages (instances or stored forms); never throws. */
function readLangChainOriginal(messages: unknown, args: unknown): ReadOriginalResult {
  if (!Array.isArray(messages)) return { ok: false, error: "the conversation is not available to the tool" };
  try {
    return readOriginal(fromLangChain(messages as LangChainMessageInput[]), args);
  } catch {
    return { ok: false, error: "the conversation could not be read" };
  }
}

/**
 * The `ToolMessage` answering a `read_original` call (`toolCallId`, named `toolName`) over
 * `messages`, the agent state's raw messages: the result's window, or a tool error
 * (`status: "error"`) for an unknown, empty or shared id or a bad window. Never throws.
 */
export function answerLangChainReadOriginal(
  messages: unknown,
  args: unknown,
  toolCallId: string,
  toolName: string = READ_ORIGINAL_DEFAULTS.toolName,
): ToolMessage {
  const result = readLangChainOriginal(messages, args);
  return new ToolMessage({
    content: renderReadOriginalResult(result),
    tool_call_id: toolCallId,
    name: toolName,
    status: result.ok ? "success" : "error",
  });
}

/**
 * The `read_original` tool for a LangGraph or LangChain agent: it reads the raw result of
 * an earlier tool call from the agent state's `messages` (the checkpoint's record, never
 * the cleaned view). Add it to the agent's tools when the assembly's `readOriginal` option
 * is on, with the same option so the names agree. The `createAgent` middleware adds it
 * itself.
 *
 * @example
 * const agent = createReactAgent({
 *   llm, checkpointer,
 *   tools: [...tools, readOriginalLangChainTool()],
 *   preModelHook: contextCleanerPreModelHook({ loadDigests, options: { readOriginal: true } }),
 * });
 */
export function readOriginalLangChainTool(option: ReadOriginalOption = true) {
  const toolName = resolveReadOriginal(option) ?? READ_ORIGINAL_DEFAULTS.toolName;
  return tool(
    (input: unknown, runtime: { state?: unknown; toolCallId?: string }) =>
      answerLangChainReadOriginal(
        (runtime?.state as { messages?: unknown } | undefined)?.messages,
        input,
        runtime?.toolCallId ?? "",
        toolName,
      ),
    { name: toolName, description: READ_ORIGINAL_DESCRIPTION, schema: readOriginalJsonSchema() },
  );
}
