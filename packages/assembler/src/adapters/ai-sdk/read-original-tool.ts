import type { Tool } from "ai";
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
import { type AiSdkMessageLike, aiSdkToNeutral } from "./prompt-adapter";

/** The input of a `read_original` call. */
export interface ReadOriginalInput {
  tool_call_id: string;
  offset?: number;
  limit?: number;
}

/** What the tool's `execute` returns: the text of its answer, and whether it is a tool error. */
export interface ReadOriginalAnswer {
  ok: boolean;
  text: string;
}

/**
 * The input schema as a Standard Schema with its JSON Schema, so the AI SDK takes it with
 * no schema library: it sends the JSON Schema to the provider and lets every input through
 * to `execute`, which answers bad arguments with a tool error of its own.
 */
function inputSchema() {
  const schema = readOriginalJsonSchema();
  return {
    "~standard": {
      version: 1 as const,
      vendor: "context-cleaner",
      validate: (value: unknown) => ({ value: value as ReadOriginalInput }),
      jsonSchema: { input: () => schema, output: () => schema },
    },
  };
}

/** The executor over the messages the AI SDK gives a tool's `execute`; never throws. */
export function answerAiSdkReadOriginal(messages: unknown, input: unknown): ReadOriginalAnswer {
  let result: ReadOriginalResult;
  try {
    result = Array.isArray(messages)
      ? readOriginal(aiSdkToNeutral(messages as AiSdkMessageLike[]), input)
      : { ok: false, error: "the conversation is not available to the tool" };
  } catch {
    result = { ok: false, error: "the conversation could not be read" };
  }
  return { ok: result.ok, text: renderReadOriginalResult(result) };
}

/**
 * The `read_original` tool for `generateText` / `streamText`: its `execute` reads the raw
 * result of an earlier tool call from the step's `messages` (the caller's messages and the
 * call's own steps, before the middleware cleans the prompt), and a tool error goes to the
 * model as `error-text`. Spread it into `tools` when the middleware's `readOriginal`
 * option is on, with the same option so the names agree.
 *
 * @example
 * const { text } = await generateText({
 *   model: wrapLanguageModel({ model, middleware: contextCleanerMiddleware({ digests, options: { readOriginal: true } }) }),
 *   messages,
 *   tools: { ...tools, ...readOriginalToolSet() },
 *   stopWhen: stepCountIs(8),
 * });
 */
export function readOriginalToolSet(
  option: ReadOriginalOption = true,
): Record<string, Tool<ReadOriginalInput, ReadOriginalAnswer>> {
  const toolName = resolveReadOriginal(option) ?? READ_ORIGINAL_DEFAULTS.toolName;
  const tool: Tool<ReadOriginalInput, ReadOriginalAnswer> = {
    description: READ_ORIGINAL_DESCRIPTION,
    inputSchema: inputSchema(),
    execute: async (input, { messages }) => answerAiSdkReadOriginal(messages, input),
    toModelOutput: ({ output }) => ({ type: output.ok ? "text" : "error-text", value: output.text }),
  };
  return { [toolName]: tool };
}
