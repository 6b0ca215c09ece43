import type { AssembledView, AssembleOptions } from "../../assemble";
import type { ContentBlock, DigestMap, Message, MessageContent, ToolCall } from "../../types";
import { argsObject, checkMessageArray, describeValue, failAt, isRecord } from "../shared/provider-checks";
import {
  assembleSplitView,
  type Piece,
  PieceCache,
  REST_SLOT,
  type SplitFormat,
  splitThread,
} from "../shared/split-view";

/** A content block of the Anthropic Messages API (the SDK's `ContentBlockParam`). */
export interface AnthropicBlockLike {
  type: string;
}

/** A message of the Anthropic Messages API (the SDK's `MessageParam`). */
export interface AnthropicMessageLike {
  role: string;
  content: string | readonly AnthropicBlockLike[];
}

const ROLES = new Set(["user", "assistant", "system"]);

interface ToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content?: string | ContentBlock[];
  is_error?: boolean;
}

function checkBlock(index: number, blockIndex: number, block: unknown): void {
  const at = `content[${blockIndex}]`;
  if (!isRecord(block)) failAt(index, at, `must be a content block object, got ${describeValue(block)}`);
  if (typeof block.type !== "string")
    failAt(index, `${at}.type`, `must be a string, got ${describeValue(block.type)}`);
  if (block.type === "tool_use") {
    if (typeof block.id !== "string")
      failAt(index, `${at}.id`, `must be a string, got ${describeValue(block.id)}`);
    if (typeof block.name !== "string") {
      failAt(index, `${at}.name`, `must be a string, got ${describeValue(block.name)}`);
    }
  } else if (block.type === "tool_result") {
    if (typeof block.tool_use_id !== "string") {
      failAt(index, `${at}.tool_use_id`, `must be a string, got ${describeValue(block.tool_use_id)}`);
    }
    const content = block.content;
    if (content !== undefined && typeof content !== "string" && !Array.isArray(content)) {
      failAt(index, `${at}.content`, `must be a string or an array of blocks, got ${describeValue(content)}`);
    }
    if (Array.isArray(content)) {
      content.forEach((inner: unknown, innerIndex) => {
        if (!isRecord(inner)) {
          failAt(
            index,
            `${at}.content[${innerIndex}]`,
            `must be a content block object, got ${describeValue(inner)}`,
          );
        }
      });
    }
    if (block.is_error !== undefined && typeof block.is_error !== "boolean") {
      failAt(index, `${at}.is_error`, `must be a boolean, got ${describeValue(block.is_error)}`);
    }
  }
}

function checkMessage(index: number, message: Record<string, unknown>): void {
  if (typeof message.role !== "string" || !ROLES.has(message.role)) {
    failAt(index, "role", `must be one of user, assistant, system; got ${describeValue(message.role)}`);
  }
  const content = message.content;
  if (typeof content === "string") return;
  if (!Array.isArray(content)) {
    failAt(index, "content", `must be a string or an array of content blocks, got ${describeValue(content)}`);
  }
  content.forEach((block: unknown, blockIndex) => {
    checkBlock(index, blockIndex, block);
  });
  for (const [blockIndex, block] of content.entries()) {
    const type = (block as AnthropicBlockLike).type;
    if (type === "tool_use" && message.role !== "assistant") {
      failAt(index, `content[${blockIndex}]`, `is a tool_use block in a ${message.role} message`);
    }
    if (type === "tool_result" && message.role !== "user") {
      failAt(index, `content[${blockIndex}]`, `is a tool_result block in a ${message.role} message`);
    }
  }
}

/** What a message's pieces depend on, compared by identity to reuse cached pieces. */
function cacheKey(message: AnthropicMessageLike, toolNames: ReadonlyMap<string, string>): unknown[] {
  const key: unknown[] = [message.role, message.content];
  if (typeof message.content === "string") return key;
  for (const block of message.content) {
    key.push(block, block.type);
    if (block.type === "tool_result") {
      const result = block as unknown as ToolResultBlock;
      key.push(result.tool_use_id, result.content, result.is_error, toolNames.get(result.tool_use_id));
    } else if (block.type === "tool_use") {
      const call = block as unknown as ToolUseBlock;
      key.push(call.id, call.name, call.input);
    }
  }
  return key;
}

function makePieces(message: AnthropicMessageLike, toolNames: ReadonlyMap<string, string>): Piece[] {
  const content = message.content as MessageContent;
  if (message.role === "system") return [{ slot: REST_SLOT, message: { role: "system", content } }];
  if (typeof content === "string") {
    const role = message.role === "assistant" ? "assistant" : "user";
    return [{ slot: REST_SLOT, message: { role, content } }];
  }
  if (message.role === "assistant") {
    const calls = content.filter((block) => block.type === "tool_use") as unknown as ToolUseBlock[];
    if (calls.length === 0) return [{ slot: REST_SLOT, message: { role: "assistant", content } }];
    const toolCalls: ToolCall[] = calls.map((call) => ({
      id: call.id,
      name: call.name,
      args: argsObject(call.input),
    }));
    const rest = content.filter((block) => block.type !== "tool_use");
    return [{ slot: REST_SLOT, message: { role: "assistant", content: rest, toolCalls } }];
  }
  const pieces: Piece[] = [];
  const rest: ContentBlock[] = [];
  content.forEach((block, slot) => {
    if (block.type !== "tool_result") {
      rest.push(block);
      return;
    }
    const result = block as unknown as ToolResultBlock;
    pieces.push({
      slot,
      message: {
        role: "tool",
        toolCallId: result.tool_use_id,
        toolName: toolNames.get(result.tool_use_id) ?? "",
        content: result.content ?? "",
        ...(result.is_error === true ? { status: "error" as const } : {}),
      },
    });
  });
  if (pieces.length === 0) return [{ slot: REST_SLOT, message: { role: "user", content } }];
  // Text beside tool results continues the turn (a reminder, a note): it must not move
  // the recency wall as a new user message would, and it is never cleaned or dropped.
  if (rest.length > 0) pieces.push({ slot: REST_SLOT, message: { role: "system", content: rest } });
  return pieces;
}

const pieceCache = new PieceCache();

/** The split format of one pass over an Anthropic thread (tool names resolve from earlier tool_use blocks). */
function anthropicFormat<M extends AnthropicMessageLike>(): SplitFormat<M> {
  const toolNames = new Map<string, string>();
  return {
    split(message, index) {
      checkMessage(index, message as unknown as Record<string, unknown>);
      const pieces = pieceCache.get(message, cacheKey(message, toolNames), () =>
        makePieces(message, toolNames),
      );
      if (message.role === "assistant" && typeof message.content !== "string") {
        for (const block of message.content) {
          if (block.type === "tool_use") {
            const call = block as unknown as ToolUseBlock;
            toolNames.set(call.id, call.name);
          }
        }
      }
      return pieces;
    },
    rebuild(message, fateOf) {
      if (typeof message.content === "string") return message;
      const content: AnthropicBlockLike[] = [];
      message.content.forEach((block, slot) => {
        const fate = fateOf(block.type === "tool_result" ? slot : REST_SLOT);
        if (fate === "dropped") return;
        content.push(
          fate === "kept" ? block : ({ ...block, content: fate.replacedBy } as AnthropicBlockLike),
        );
      });
      return { ...message, content };
    },
    create(message) {
      return { role: "user", content: message.content } as M;
    },
  };
}

/**
 * An Anthropic Messages API thread in the neutral model: each tool_result block becomes a
 * tool message (`is_error: true` → status "error", the tool name read from its tool_use);
 * tool_use blocks become the assistant's tool calls; text riding beside tool results
 * becomes a system message (it continues the turn and is never cleaned).
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 */
export function anthropicToNeutral<M extends AnthropicMessageLike>(messages: readonly M[]): Message[] {
  checkMessageArray(messages);
  return splitThread(messages, anthropicFormat<M>()).neutral;
}

/**
 * {@link assembleModelView} over Anthropic `MessageParam[]`, answering in the same format:
 * untouched messages are the very objects passed in; a user message with a condensed tool
 * result is a new message whose other blocks are the same objects and whose tool_result
 * block keeps `tool_use_id`, `is_error` and `cache_control`; the backstop's note is a user
 * message. Every tool_use keeps its one tool_result in the next user message.
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 * @example
 * const { messages } = assembleAnthropicView(thread, await loadDigests(threadId));
 * const reply = await client.messages.create({ model, max_tokens: 4096, system, messages });
 */
export function assembleAnthropicView<M extends AnthropicMessageLike>(
  messages: readonly M[],
  digests?: DigestMap | null,
  options?: AssembleOptions,
): AssembledView<M> {
  checkMessageArray(messages);
  return assembleSplitView(messages, anthropicFormat<M>(), digests, options);
}
