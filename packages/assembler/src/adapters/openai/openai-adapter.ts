import type { AssembledView, AssembleOptions } from "../../assemble";
import type { DigestsOrTurnState } from "../../org-policy";
import { REASONING_FIELDS, reasoningFieldsOf } from "../../thread/thinking";
import type { Message, MessageContent, ToolCall } from "../../types";
import { describeValue, failAt, isRecord } from "../../validate";
import { argsObject, checkMessageArray } from "../shared/provider-checks";
import {
  assembleSplitView,
  type Piece,
  PieceCache,
  REST_SLOT,
  type SplitFormat,
  splitThread,
} from "../shared/split-view";

/** A message of the OpenAI Chat Completions API (the SDK's `ChatCompletionMessageParam`). */
export interface OpenAIMessageLike {
  role: string;
  content?: string | readonly { type: string }[] | null;
}

const ROLES = new Set(["system", "developer", "user", "assistant", "tool", "function"]);

/** The fields an assistant message carries its reasoning item in. */
interface FunctionToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

interface CustomToolCall {
  id: string;
  type: "custom";
  custom: { name: string; input: string };
}

type ChatToolCall = FunctionToolCall | CustomToolCall;

function checkToolCalls(index: number, toolCalls: unknown): void {
  if (toolCalls === undefined || toolCalls === null) return;
  if (!Array.isArray(toolCalls))
    failAt(index, "tool_calls", `must be an array, got ${describeValue(toolCalls)}`);
  toolCalls.forEach((call: unknown, callIndex) => {
    const at = `tool_calls[${callIndex}]`;
    if (!isRecord(call)) failAt(index, at, `must be an object, got ${describeValue(call)}`);
    if (typeof call.id !== "string")
      failAt(index, `${at}.id`, `must be a string, got ${describeValue(call.id)}`);
    const kind = call.type ?? "function";
    const body = kind === "custom" ? call.custom : call.function;
    const bodyField = kind === "custom" ? "custom" : "function";
    if (kind !== "function" && kind !== "custom") {
      failAt(index, `${at}.type`, `must be "function" or "custom", got ${describeValue(call.type)}`);
    }
    if (!isRecord(body)) failAt(index, `${at}.${bodyField}`, `must be an object, got ${describeValue(body)}`);
    if (typeof body.name !== "string") {
      failAt(index, `${at}.${bodyField}.name`, `must be a string, got ${describeValue(body.name)}`);
    }
    const payload = kind === "custom" ? "input" : "arguments";
    if (typeof body[payload] !== "string") {
      failAt(index, `${at}.${bodyField}.${payload}`, `must be a string, got ${describeValue(body[payload])}`);
    }
  });
}

function checkMessage(index: number, message: Record<string, unknown>): void {
  if (typeof message.role !== "string" || !ROLES.has(message.role)) {
    failAt(
      index,
      "role",
      `must be one of system, developer, user, assistant, tool, function; got ${describeValue(message.role)}`,
    );
  }
  const content = message.content;
  const optional = message.role === "assistant" || message.role === "function";
  if (!(typeof content === "string" || Array.isArray(content) || (optional && content == null))) {
    failAt(index, "content", `must be a string or an array of content parts, got ${describeValue(content)}`);
  }
  if (Array.isArray(content)) {
    content.forEach((part: unknown, partIndex) => {
      if (!isRecord(part) || typeof part.type !== "string") {
        failAt(
          index,
          `content[${partIndex}]`,
          `must be a content part with a string type, got ${describeValue(part)}`,
        );
      }
    });
  }
  if (message.role === "assistant") checkToolCalls(index, message.tool_calls);
  if (message.role === "tool" && typeof message.tool_call_id !== "string") {
    failAt(index, "tool_call_id", `must be a string, got ${describeValue(message.tool_call_id)}`);
  }
}

/** A call's arguments as an object: parsed JSON, or the raw text under `arguments` when it is not an object. */
function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isRecord(parsed)) return parsed;
  } catch {
    // Models sometimes emit truncated JSON; the raw text still identifies the call.
  }
  return { arguments: text };
}

function neutralCall(call: ChatToolCall): ToolCall {
  if (call.type === "custom")
    return { id: call.id, name: call.custom.name, args: argsObject(call.custom.input) };
  return { id: call.id, name: call.function.name, args: parseArguments(call.function.arguments) };
}

function callName(call: ChatToolCall): string {
  return call.type === "custom" ? call.custom.name : call.function.name;
}

function makePiece(message: OpenAIMessageLike, toolNames: ReadonlyMap<string, string>): Message {
  const content = (message.content ?? "") as MessageContent;
  switch (message.role) {
    case "user":
      return { role: "user", content };
    case "assistant": {
      const calls = ((message as { tool_calls?: ChatToolCall[] | null }).tool_calls ?? []).map(neutralCall);
      const reasoning = reasoningOf(message);
      return {
        role: "assistant",
        content,
        ...(calls.length > 0 ? { toolCalls: calls } : {}),
        ...(reasoning === undefined ? {} : { reasoning }),
      };
    }
    case "tool": {
      const toolCallId = (message as unknown as { tool_call_id: string }).tool_call_id;
      return { role: "tool", toolCallId, toolName: toolNames.get(toolCallId) ?? "", content };
    }
    default:
      // system, developer, and legacy function results: never cleaned, never dropped.
      return { role: "system", content };
  }
}

/** The reasoning item an assistant message carries (`reasoning`, `reasoning_content`), or undefined. */
function reasoningOf(message: OpenAIMessageLike): Record<string, unknown> | undefined {
  return reasoningFieldsOf(message as unknown as Record<string, unknown>);
}

function cacheKey(message: OpenAIMessageLike, toolNames: ReadonlyMap<string, string>): unknown[] {
  const record = message as unknown as Record<string, unknown>;
  const key: unknown[] = [message.role, message.content];
  if (Array.isArray(message.content)) key.push(...message.content);
  if (message.role === "assistant" && Array.isArray(record.tool_calls)) {
    key.push(record.tool_calls);
    for (const call of record.tool_calls as ChatToolCall[]) {
      key.push(call, call.id, call.type === "custom" ? call.custom : call.function);
      if (call.type === "custom") key.push(call.custom.name, call.custom.input);
      else key.push(call.function.name, call.function.arguments);
    }
  }
  if (message.role === "tool") key.push(record.tool_call_id, toolNames.get(record.tool_call_id as string));
  if (message.role === "assistant") key.push(...REASONING_FIELDS.map((field) => record[field]));
  return key;
}

const pieceCache = new PieceCache();

function openAIFormat<M extends OpenAIMessageLike>(): SplitFormat<M> {
  const toolNames = new Map<string, string>();
  return {
    split(message, index) {
      checkMessage(index, message as unknown as Record<string, unknown>);
      const pieces: readonly Piece[] = pieceCache.get(message, cacheKey(message, toolNames), () => [
        { slot: REST_SLOT, message: makePiece(message, toolNames) },
      ]);
      if (message.role === "assistant") {
        for (const call of (message as { tool_calls?: ChatToolCall[] | null }).tool_calls ?? []) {
          toolNames.set(call.id, callName(call));
        }
      }
      return pieces;
    },
    rebuild(message, fateOf) {
      const fate = fateOf(REST_SLOT);
      if (fate === "stripped") {
        const copy = { ...message } as Record<string, unknown>;
        for (const field of REASONING_FIELDS) delete copy[field];
        return copy as unknown as M;
      }
      return typeof fate === "object" ? { ...message, content: fate.replacedBy } : message;
    },
    create(message) {
      return { role: "user", content: message.content } as M;
    },
  };
}

/**
 * An OpenAI Chat Completions thread in the neutral model: assistant `tool_calls` become
 * tool calls (JSON `arguments` parsed), `tool` messages become tool results (the tool name
 * read from the call), system, developer and legacy function messages become system
 * messages (never cleaned).
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 */
export function openAIToNeutral<M extends OpenAIMessageLike>(messages: readonly M[]): Message[] {
  checkMessageArray(messages);
  return splitThread(messages, openAIFormat<M>()).neutral;
}

/** Options of {@link assembleOpenAIView}. */
export type OpenAIAssembleOptions = AssembleOptions;

/**
 * {@link assembleModelView} over OpenAI `ChatCompletionMessageParam[]`, answering in the
 * same format: untouched messages are the very objects passed in; a condensed tool result
 * is a copy of its `tool` message (same `tool_call_id`) with the new text as content; the
 * backstop's note is a user message.
 *
 * OpenAI reasoning models drop the reasoning items that follow a change to earlier
 * history (docs/architecture.md#provider-true-views). An assistant message's `reasoning`
 * or `reasoning_content` is its reasoning item: when the view changes history before it
 * (a turn-start batch, the backstop), the view sends the message without it, and keeps
 * sending it so (pass the previous report's `ledger.sent` as `cache.sent`). The latest
 * assistant message of a tool loop under way is sent as it came. `report.ledger.thinking`
 * counts what was left out.
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 * @example
 * const { messages } = assembleOpenAIView(thread, await loadDigests(threadId));
 * const completion = await client.chat.completions.create({ model, messages, tools });
 */
export function assembleOpenAIView<M extends OpenAIMessageLike>(
  messages: readonly M[],
  digests?: DigestsOrTurnState | null,
  options?: OpenAIAssembleOptions,
): AssembledView<M> {
  checkMessageArray(messages);
  return assembleSplitView(messages, openAIFormat<M>(), digests, options);
}
