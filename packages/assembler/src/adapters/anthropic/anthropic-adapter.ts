import type { AssembledView, AssembleOptions } from "../../assemble";
import { InvalidOptionError } from "../../errors";
import type { DigestsOrTurnState } from "../../org-policy";
import { THINKING_BLOCK_TYPES } from "../../thread/thinking";
import type { ContentBlock, Message, MessageContent, ToolCall } from "../../types";
import { describeValue, failAt, isRecord } from "../../validate";
import { argsObject, checkMessageArray } from "../shared/provider-checks";
import {
  assembleSplitMapped,
  type Piece,
  PieceCache,
  REST_SLOT,
  type SplitFormat,
  splitThread,
} from "../shared/split-view";
import { breakpointPlacements } from "./breakpoints";

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
  /** Who issued the call: `{ type: "direct" }`, or a code-execution server tool's `tool_id`. */
  caller?: { type?: unknown; tool_id?: unknown } | null;
}

/** The server tool call that issued `call` (programmatic tool calling), if one did. */
function issuerOf(call: ToolUseBlock): string | undefined {
  const toolId = isRecord(call.caller) ? call.caller.tool_id : undefined;
  return typeof toolId === "string" ? toolId : undefined;
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
      key.push(call.id, call.name, call.input, issuerOf(call));
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
    const toolCalls: ToolCall[] = calls.map((call) => {
      const issuedBy = issuerOf(call);
      return {
        id: call.id,
        name: call.name,
        args: argsObject(call.input),
        ...(issuedBy !== undefined ? { issuedBy } : {}),
      };
    });
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
        if (fate === "dropped" || (fate === "stripped" && THINKING_BLOCK_TYPES.has(block.type))) return;
        content.push(
          fate === "kept" || fate === "stripped"
            ? block
            : ({ ...block, content: fate.replacedBy } as AnthropicBlockLike),
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
 * tool_use blocks become the assistant's tool calls (a code-execution `caller.tool_id` as
 * the call's `issuedBy`); text riding beside tool results
 * becomes a system message (it continues the turn and is never cleaned).
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 */
export function anthropicToNeutral<M extends AnthropicMessageLike>(messages: readonly M[]): Message[] {
  checkMessageArray(messages);
  return splitThread(messages, anthropicFormat<M>()).neutral;
}

/** The provider's limit on `cache_control` breakpoints in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

/** Options of {@link assembleAnthropicView}. */
export interface AnthropicAssembleOptions extends AssembleOptions {
  /**
   * Prompt-cache breakpoints: `cache_control: { type: "ephemeral" }` at the end of the
   * stable prefix and at the end of the request. `false` sets none. `{ elsewhere }`
   * counts the breakpoints the request sets outside `messages` (system, tools) against
   * the limit of four. @default true
   */
  cacheBreakpoints?: boolean | { elsewhere?: number };
}

/** Where the view carries a `cache_control` breakpoint. */
export interface CacheBreakpoint {
  /** Index into the returned `messages`. */
  message: number;
  /** Index into that message's content blocks. */
  block: number;
  /** `prefix`: end of the stable prefix; `end`: end of the request; `caller`: set by the caller. */
  kind: "prefix" | "end" | "caller";
}

/** {@link AssembledView} of Anthropic messages, with the cache breakpoints it carries. */
export interface AnthropicAssembledView<M> extends AssembledView<M> {
  /** Every breakpoint in `messages`, the caller's and the ones set here, in message order. */
  cacheBreakpoints: CacheBreakpoint[];
}

function hasBreakpoint(block: unknown): boolean {
  return isRecord(block) && block.cache_control !== undefined && block.cache_control !== null;
}

/** The caller's breakpoints in `messages`: on blocks, and on blocks inside tool results. */
function callerBreakpoints(messages: readonly AnthropicMessageLike[]): CacheBreakpoint[] {
  const found: CacheBreakpoint[] = [];
  messages.forEach((message, index) => {
    if (typeof message.content === "string") return;
    message.content.forEach((block, blockIndex) => {
      const inner = (block as { content?: unknown }).content;
      const nested = block.type === "tool_result" && Array.isArray(inner) ? inner.filter(hasBreakpoint) : [];
      const count = (hasBreakpoint(block) ? 1 : 0) + nested.length;
      for (let n = 0; n < count; n++) found.push({ message: index, block: blockIndex, kind: "caller" });
    });
  });
  return found;
}

/** The block of `message` a breakpoint goes on: its last block that is not thinking; -1 when none. */
function breakpointBlock(message: AnthropicMessageLike): number {
  if (typeof message.content === "string") return message.content.length > 0 ? 0 : -1;
  for (let index = message.content.length - 1; index >= 0; index--) {
    if (!THINKING_BLOCK_TYPES.has((message.content[index] as AnthropicBlockLike).type)) return index;
  }
  return -1;
}

/** `message` with a breakpoint on block `at` (a copy: the input is never mutated). */
function withBreakpoint<M extends AnthropicMessageLike>(message: M, at: number): M {
  const blocks: readonly AnthropicBlockLike[] =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content } as AnthropicBlockLike]
      : message.content;
  const content = blocks.map((block, index) =>
    index === at ? ({ ...block, cache_control: { type: "ephemeral" } } as AnthropicBlockLike) : block,
  );
  return { ...message, content };
}

/**
 * The provider message that ends the stable prefix, as an index into the view: the last
 * message before the first one this view changed (the report's `prefixKeptMessages`),
 * or, when nothing changed, before the latest user message. -1 when there is none.
 */
function stablePrefixEnd(
  owners: readonly (number | undefined)[],
  neutralOwners: readonly number[],
  neutral: readonly Message[],
  prefixKept: number,
): number {
  let bound: number | undefined;
  if (prefixKept < neutralOwners.length) bound = neutralOwners[prefixKept];
  else {
    for (let index = neutral.length - 1; index >= 0; index--) {
      if ((neutral[index] as Message).role === "user") {
        bound = neutralOwners[index];
        break;
      }
    }
  }
  if (bound === undefined) return -1;
  let end = -1;
  for (const [index, owner] of owners.entries()) {
    if (owner === undefined) continue;
    if (owner >= bound) break;
    end = index;
  }
  return end;
}

/**
 * {@link assembleModelView} over Anthropic `MessageParam[]`, answering in the same format:
 * untouched messages are the very objects passed in; a user message with a condensed tool
 * result is a new message whose other blocks are the same objects and whose tool_result
 * block keeps `tool_use_id`, `is_error` and `cache_control`; the backstop's note is a user
 * message. Every tool_use keeps its one tool_result in the next user message.
 *
 * Unless `cacheBreakpoints` is false, it sets `cache_control` breakpoints at the end of
 * the stable prefix and at the end of the request, within the limit of four counting the
 * caller's own (kept, always; the prefix breakpoint goes first when over), never on a
 * thinking block nor on the latest assistant message (the prefix's goes on the message
 * before it, and so does the end's when the request ends on it: a prefill, a paused turn's
 * continuation); a message carrying one is a copy (string content becomes one text
 * block). `cacheBreakpoints` in the answer lists where they are. The kill switch sets none.
 *
 * @throws {InvalidThreadError} naming the message index and field at fault.
 * @example
 * const { messages } = assembleAnthropicView(thread, await loadDigests(threadId));
 * const reply = await client.messages.create({ model, max_tokens: 4096, system, messages });
 */
export function assembleAnthropicView<M extends AnthropicMessageLike>(
  messages: readonly M[],
  digests?: DigestsOrTurnState | null,
  options?: AnthropicAssembleOptions,
): AnthropicAssembledView<M> {
  checkMessageArray(messages);
  const format = anthropicFormat<M>();
  const setting = options?.cacheBreakpoints ?? true;
  const { cacheBreakpoints: _setting, ...assembleOptions } = options ?? {};
  const { view, owners, neutral, neutralOwners } = assembleSplitMapped(
    messages,
    format,
    digests,
    assembleOptions,
  );
  const caller = callerBreakpoints(view.messages);
  if (setting === false || view.report.disabled) return { ...view, cacheBreakpoints: caller };
  const elsewhere = typeof setting === "object" ? (setting.elsewhere ?? 0) : 0;
  if (!Number.isInteger(elsewhere) || elsewhere < 0) {
    throw new InvalidOptionError(
      `options.cacheBreakpoints.elsewhere must be an integer ≥ 0, got ${String(elsewhere)}`,
      "cacheBreakpoints.elsewhere",
    );
  }
  // The latest assistant message goes as it came (its thinking blocks are checked
  // unmodified): see breakpointPlacements.
  const stable = stablePrefixEnd(owners, neutralOwners, neutral, view.report.ledger.prefixKeptMessages);
  const wanted: CacheBreakpoint[] = [];
  for (const { message: index, kind } of breakpointPlacements(
    view.messages.map((message) => message.role),
    stable,
    (index) => breakpointBlock(view.messages[index] as M) >= 0,
  )) {
    const message = view.messages[index] as M;
    const block = breakpointBlock(message);
    if (typeof message.content !== "string" && hasBreakpoint(message.content[block])) continue;
    wanted.push({ message: index, block, kind });
  }
  const room = Math.max(0, MAX_CACHE_BREAKPOINTS - elsewhere - caller.length);
  const placed = wanted.slice(0, room);
  const result = [...view.messages];
  for (const mark of placed) result[mark.message] = withBreakpoint(result[mark.message] as M, mark.block);
  const all = [...caller, ...placed].sort((a, b) => a.message - b.message || a.block - b.block);
  return { messages: result, report: view.report, cacheBreakpoints: all };
}
