import { BUDGET_DEFAULTS } from "../budget";
import { contentText } from "../content";
import { renderOriginalHandle } from "../contract/stubs";
import { InvalidOptionError } from "../errors";
import type { Message, ToolMessage } from "../types";

/**
 * The `read_original` option of the assembler and every integration: `true` (the tool is
 * named `read_original`) or `{ toolName }`; off by default. On, every stand-in names the
 * call that returns the raw result it stands for (docs/architecture.md#re-read-as-a-tool-read_original).
 */
export type ReadOriginalOption = boolean | { toolName?: string };

/** Defaults of the `read_original` tool. */
export const READ_ORIGINAL_DEFAULTS = {
  toolName: "read_original",
  /**
   * Chars one call returns at most, and when it gives no `limit`: the runtime's per-result
   * cap, so a re-read is never longer than a result the runtime would take in.
   */
  limit: BUDGET_DEFAULTS.perResultCapChars,
} as const;

/** Tool names every provider accepts (Anthropic and OpenAI: letters, digits, `_`, `-`, at most 64). */
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tool name of a `readOriginal` option, or undefined when the tool is off.
 * @throws {InvalidOptionError} for an option that is neither a boolean nor `{ toolName }` with a valid name.
 */
export function resolveReadOriginal(option: ReadOriginalOption | undefined): string | undefined {
  if (option === undefined || option === false) return undefined;
  if (option === true) return READ_ORIGINAL_DEFAULTS.toolName;
  if (option === null || typeof option !== "object") {
    throw new InvalidOptionError(
      `options.readOriginal must be a boolean or { toolName }, got ${String(option)}`,
      "readOriginal",
    );
  }
  const toolName = option.toolName ?? READ_ORIGINAL_DEFAULTS.toolName;
  if (typeof toolName !== "string" || !TOOL_NAME.test(toolName)) {
    throw new InvalidOptionError(
      `options.readOriginal.toolName must be 1–64 letters, digits, "_" or "-", got ${JSON.stringify(toolName)}`,
      "readOriginal",
    );
  }
  return toolName;
}

/** The call a stand-in names to re-read the raw result of `toolCallId`: `read_original(tool_call_id="call_7")`. */
export function readOriginalHandle(
  toolCallId: string,
  toolName: string = READ_ORIGINAL_DEFAULTS.toolName,
): string {
  return renderOriginalHandle(toolCallId, toolName);
}

/** The JSON schema of the tool's input (every provider's tool format takes it as is). */
export const READ_ORIGINAL_INPUT_SCHEMA = {
  type: "object",
  properties: {
    tool_call_id: {
      type: "string",
      minLength: 1,
      description: "The id of the tool call whose result to read, as the condensed text names it.",
    },
    offset: {
      type: "integer",
      minimum: 0,
      description: "First character to return. @default 0",
    },
    limit: {
      type: "integer",
      minimum: 0,
      maximum: READ_ORIGINAL_DEFAULTS.limit,
      description: `Characters to return at most (a larger limit returns ${READ_ORIGINAL_DEFAULTS.limit}). @default ${READ_ORIGINAL_DEFAULTS.limit}`,
    },
  },
  required: ["tool_call_id"],
  additionalProperties: false,
} as const;

/**
 * A fresh, mutable copy of {@link READ_ORIGINAL_INPUT_SCHEMA}, for tool APIs that type
 * their JSON schema as mutable objects (or may change what they are given).
 */
export function readOriginalJsonSchema(): {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
} {
  return structuredClone(READ_ORIGINAL_INPUT_SCHEMA) as never;
}

/** The tool's description, for the model. */
export const READ_ORIGINAL_DESCRIPTION =
  "Returns the original, full result of an earlier tool call of this conversation, exactly as it was " +
  'recorded at the time of the call (a condensed result names the call: read_original(tool_call_id="…")). ' +
  "Use it instead of guessing what a condensed result left out. Long results come in windows: pass " +
  "offset (and limit) to read on; the answer says the total length and the next offset.";

/** The tool in a provider-neutral form: its name, description and JSON input schema. */
export interface ReadOriginalToolDefinition {
  name: string;
  description: string;
  inputSchema: typeof READ_ORIGINAL_INPUT_SCHEMA;
}

/** The tool's definition, under `toolName` (the option's name; @default "read_original"). */
export function readOriginalTool(
  toolName: string = READ_ORIGINAL_DEFAULTS.toolName,
): ReadOriginalToolDefinition {
  return { name: toolName, description: READ_ORIGINAL_DESCRIPTION, inputSchema: READ_ORIGINAL_INPUT_SCHEMA };
}

/** What one call returns: a window of the raw result, or the reason there is none. */
export type ReadOriginalResult =
  | {
      ok: true;
      tool_call_id: string;
      /** The tool that produced the result. */
      tool_name: string;
      /** Whether the recorded result is the tool's error. */
      error_result: boolean;
      offset: number;
      /** Chars of `content`. */
      returned_chars: number;
      /** Chars of the whole result. */
      total_chars: number;
      /** Where the next window starts; absent when this one reaches the end. */
      next_offset?: number;
      content: string;
    }
  | { ok: false; error: string };

function failure(error: string): ReadOriginalResult {
  return { ok: false, error };
}

function windowArg(value: unknown, name: string): number | string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    return `${name} must be a non-negative integer, got ${JSON.stringify(value) ?? String(value)}`;
  }
  return value;
}

/** The results in `messages` answering `toolCallId`. */
function resultsOf(messages: readonly Message[], toolCallId: string): ToolMessage[] {
  const results: ToolMessage[] = [];
  for (const message of messages) {
    if (message?.role === "tool" && message.toolCallId === toolCallId) results.push(message);
  }
  return results;
}

/** A window end that does not split a surrogate pair (one character stays whole). */
function windowEnd(text: string, end: number): number {
  if (end <= 0 || end >= text.length) return end;
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

/**
 * The `read_original` executor: the raw result of tool call `args.tool_call_id` in
 * `messages`, the thread the runtime holds (its own record: no other thread can be named),
 * from `args.offset` for at most `args.limit` chars (@default, and at most,
 * {@link READ_ORIGINAL_DEFAULTS}.limit, the per-result cap). Never throws: bad arguments,
 * an empty id, an id the thread does not hold, or an id two or more results carry (which
 * of them is meant cannot be known: the view condenses none of them, so none needs a
 * re-read) answer `{ ok: false, error }`. Text blocks of a result are joined by newlines;
 * other blocks (images) are not returned.
 */
export function readOriginal(messages: readonly Message[], args: unknown): ReadOriginalResult {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return failure('arguments must be an object like {"tool_call_id": "…"}');
  }
  const input = args as Record<string, unknown>;
  const toolCallId = input.tool_call_id;
  if (typeof toolCallId !== "string" || toolCallId.length === 0) {
    return failure("tool_call_id must be the non-empty id of an earlier tool call of this conversation");
  }
  const offset = windowArg(input.offset, "offset");
  const limit = windowArg(input.limit, "limit");
  if (typeof offset === "string") return failure(offset);
  if (typeof limit === "string") return failure(limit);
  if (!Array.isArray(messages)) return failure("the conversation is not available");
  const results = resultsOf(messages, toolCallId);
  const message = results[0];
  if (message === undefined) {
    return failure(`no result of tool call ${JSON.stringify(toolCallId)} in this conversation`);
  }
  if (results.length > 1) {
    return failure(
      `${results.length} results of this conversation carry tool call id ${JSON.stringify(toolCallId)}, so which one is meant cannot be told (results that share an id are never condensed, so none of them stands condensed in the conversation)`,
    );
  }
  const text = contentText(message.content);
  const start = offset ?? 0;
  if (start > text.length) {
    return failure(`offset ${start} is past the end of the result (${text.length} characters)`);
  }
  const window = Math.min(limit ?? READ_ORIGINAL_DEFAULTS.limit, READ_ORIGINAL_DEFAULTS.limit);
  const end = windowEnd(text, Math.min(text.length, start + window));
  const content = text.slice(start, end);
  return {
    ok: true,
    tool_call_id: toolCallId,
    tool_name: message.toolName,
    error_result: message.status === "error",
    offset: start,
    returned_chars: content.length,
    total_chars: text.length,
    ...(end < text.length ? { next_offset: end } : {}),
    content,
  };
}

/**
 * The text of the tool result a `read_original` call answers with: one header line (the
 * call, the window, the total, the next offset), then the raw window exactly; or the error.
 */
export function renderReadOriginalResult(result: ReadOriginalResult): string {
  if (!result.ok) return `[read_original error: ${result.error}]`;
  const end = result.offset + result.returned_chars;
  const next = result.next_offset === undefined ? "" : `; more from offset=${result.next_offset}`;
  const failed = result.error_result ? " (the tool's error)" : "";
  return (
    `[Original result of tool call ${result.tool_call_id} (${result.tool_name})${failed}, as recorded at the time ` +
    `of the call: characters ${result.offset}–${end} of ${result.total_chars}${next}]\n${result.content}`
  );
}
