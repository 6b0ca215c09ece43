import type { AssembledView, AssembleOptions } from "../../assemble";
import type { DigestsOrTurnState } from "../../org-policy";
import { THINKING_BLOCK_TYPES } from "../../thread/thinking";
import type { ContentBlock, Message, MessageContent, ToolCall } from "../../types";
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

/** A part of an AI SDK prompt message (text, file, reasoning, tool-call, tool-result, …). */
export interface AiSdkPartLike {
  type: string;
}

/** A message of the AI SDK's language-model prompt (`LanguageModelV4Prompt`, also V2/V3) or a `ModelMessage`. */
export interface AiSdkMessageLike {
  role: string;
  content: string | readonly AiSdkPartLike[];
}

interface ToolCallPart {
  type: "tool-call";
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerExecuted?: boolean;
}

interface ToolResultOutput {
  type: string;
  value?: unknown;
  reason?: string;
}

interface ToolResultPart {
  type: "tool-result";
  toolCallId: string;
  toolName: string;
  output: ToolResultOutput;
}

const ROLES = new Set(["system", "user", "assistant", "tool"]);

function checkPart(index: number, partIndex: number, part: unknown): void {
  const at = `content[${partIndex}]`;
  if (!isRecord(part) || typeof part.type !== "string") {
    failAt(index, at, `must be a part with a string type, got ${describeValue(part)}`);
  }
  if (part.type !== "tool-call" && part.type !== "tool-result") return;
  for (const field of ["toolCallId", "toolName"]) {
    if (typeof part[field] !== "string") {
      failAt(index, `${at}.${field}`, `must be a string, got ${describeValue(part[field])}`);
    }
  }
  if (part.type === "tool-result" && (!isRecord(part.output) || typeof part.output.type !== "string")) {
    failAt(
      index,
      `${at}.output`,
      `must be a tool result output with a string type, got ${describeValue(part.output)}`,
    );
  }
}

function checkMessage(index: number, message: Record<string, unknown>): void {
  if (typeof message.role !== "string" || !ROLES.has(message.role)) {
    failAt(index, "role", `must be one of system, user, assistant, tool; got ${describeValue(message.role)}`);
  }
  const content = message.content;
  if (typeof content === "string" && message.role !== "tool") return;
  if (!Array.isArray(content)) {
    failAt(
      index,
      "content",
      `must be ${message.role === "tool" ? "" : "a string or "}an array of parts, got ${describeValue(content)}`,
    );
  }
  content.forEach((part: unknown, partIndex) => {
    checkPart(index, partIndex, part);
  });
}

/**
 * A tool result's output as neutral content: text as is, JSON as its JSON text, content
 * parts as blocks; error outputs carry status "error".
 */
function resultContent(output: ToolResultOutput): { content: MessageContent; failed: boolean } {
  switch (output.type) {
    case "text":
      return { content: String(output.value), failed: false };
    case "error-text":
      return { content: String(output.value), failed: true };
    case "json":
      return { content: JSON.stringify(output.value) ?? "null", failed: false };
    case "error-json":
      return { content: JSON.stringify(output.value) ?? "null", failed: true };
    case "content":
      return { content: Array.isArray(output.value) ? (output.value as ContentBlock[]) : [], failed: false };
    default:
      // execution-denied and outputs of later spec versions: kept as one opaque block.
      return { content: [output as ContentBlock], failed: false };
  }
}

function isClientCall(part: AiSdkPartLike): boolean {
  return part.type === "tool-call" && (part as ToolCallPart).providerExecuted !== true;
}

function makePieces(message: AiSdkMessageLike): Piece[] {
  const content = message.content;
  if (typeof content === "string" || message.role === "system" || message.role === "user") {
    const role = message.role === "user" ? "user" : message.role === "assistant" ? "assistant" : "system";
    return [{ slot: REST_SLOT, message: { role, content: content as MessageContent } }];
  }
  if (message.role === "assistant") {
    const calls = content.filter(isClientCall) as ToolCallPart[];
    if (calls.length === 0)
      return [{ slot: REST_SLOT, message: { role: "assistant", content: content as ContentBlock[] } }];
    const toolCalls: ToolCall[] = calls.map((call) => ({
      id: call.toolCallId,
      name: call.toolName,
      args: argsObject(call.input),
    }));
    const rest = content.filter((part) => !isClientCall(part)) as ContentBlock[];
    return [{ slot: REST_SLOT, message: { role: "assistant", content: rest, toolCalls } }];
  }
  const pieces: Piece[] = [];
  const rest: ContentBlock[] = [];
  content.forEach((part, slot) => {
    if (part.type !== "tool-result") {
      rest.push(part as ContentBlock);
      return;
    }
    const result = part as ToolResultPart;
    const { content: resultText, failed } = resultContent(result.output);
    pieces.push({
      slot,
      message: {
        role: "tool",
        toolCallId: result.toolCallId,
        toolName: result.toolName,
        content: resultText,
        ...(failed ? { status: "error" as const } : {}),
      },
    });
  });
  // Approval responses and other non-result parts ride along, never cleaned or dropped.
  if (rest.length > 0 || pieces.length === 0)
    pieces.push({ slot: REST_SLOT, message: { role: "system", content: rest } });
  return pieces;
}

function cacheKey(message: AiSdkMessageLike): unknown[] {
  const key: unknown[] = [message.role, message.content];
  if (typeof message.content === "string") return key;
  for (const part of message.content) {
    key.push(part, part.type);
    if (part.type === "tool-result") {
      const result = part as ToolResultPart;
      key.push(result.toolCallId, result.toolName, result.output, result.output.type, result.output.value);
    } else if (part.type === "tool-call") {
      const call = part as ToolCallPart;
      key.push(call.toolCallId, call.toolName, call.input, call.providerExecuted);
    }
  }
  return key;
}

const pieceCache = new PieceCache();

function aiSdkFormat<M extends AiSdkMessageLike>(): SplitFormat<M> {
  return {
    split(message, index) {
      checkMessage(index, message as unknown as Record<string, unknown>);
      return pieceCache.get(message, cacheKey(message), () => makePieces(message));
    },
    rebuild(message, fateOf) {
      if (typeof message.content === "string") return message;
      const content: AiSdkPartLike[] = [];
      message.content.forEach((part, slot) => {
        const fate = fateOf(part.type === "tool-result" ? slot : REST_SLOT);
        if (fate === "dropped" || (fate === "stripped" && THINKING_BLOCK_TYPES.has(part.type))) return;
        if (fate === "kept" || fate === "stripped") {
          content.push(part);
          return;
        }
        const failed = (part as ToolResultPart).output.type.startsWith("error");
        content.push({
          ...part,
          output: { type: failed ? "error-text" : "text", value: fate.replacedBy },
        } as AiSdkPartLike);
      });
      return { ...message, content };
    },
    create(message) {
      return { role: "user", content: [{ type: "text", text: message.content as string }] } as unknown as M;
    },
  };
}

/**
 * An AI SDK prompt (the language-model prompt a middleware sees, or `ModelMessage[]`) in
 * the neutral model: tool-call parts become tool calls, each tool-result part a tool
 * message (text and JSON outputs as text, error outputs with status "error").
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 */
export function aiSdkToNeutral<M extends AiSdkMessageLike>(messages: readonly M[]): Message[] {
  checkMessageArray(messages);
  return splitThread(messages, aiSdkFormat<M>()).neutral;
}

/**
 * {@link assembleModelView} over an AI SDK prompt, answering in the same format:
 * untouched messages and parts are the very objects passed in; a condensed tool result
 * is a copy of its tool-result part (same toolCallId and toolName) whose output is the
 * new text (`error-text` where the original was an error); the backstop's note is a user
 * message.
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 */
export function assembleAiSdkPrompt<M extends AiSdkMessageLike>(
  messages: readonly M[],
  digests?: DigestsOrTurnState | null,
  options?: AssembleOptions,
): AssembledView<M> {
  checkMessageArray(messages);
  return assembleSplitView(messages, aiSdkFormat<M>(), digests, options);
}
