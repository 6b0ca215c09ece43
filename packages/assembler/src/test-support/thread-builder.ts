/**
 * Hand-written neutral threads for the assembler's unit tests: small factories with
 * explicit ids, so every test reads like the thread it builds. (Generators for property
 * tests live elsewhere; these are example builders.)
 */

import { contentSha256 } from "../hash";
import type {
  AssistantMessage,
  DigestEntry,
  DigestMap,
  Message,
  MessageContent,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from "../types";

export function systemMessage(content: MessageContent = "You are a careful legal assistant."): SystemMessage {
  return { role: "system", content };
}

export function userMessage(content: MessageContent): UserMessage {
  return { role: "user", content };
}

export function assistantText(content: MessageContent): AssistantMessage {
  return { role: "assistant", content };
}

export function toolCall(id: string, name: string, args: Record<string, unknown> = {}): ToolCall {
  return { id, name, args };
}

export function assistantCalling(...calls: ToolCall[]): AssistantMessage {
  return { role: "assistant", content: "", toolCalls: calls };
}

export function toolResult(
  toolCallId: string,
  toolName: string,
  content: MessageContent,
  status?: "error" | "success",
): ToolMessage {
  return { role: "tool", toolCallId, toolName, content, ...(status ? { status } : {}) };
}

/** One assistant message calling one tool, followed by its result. */
export function toolExchange(
  id: string,
  name: string,
  args: Record<string, unknown>,
  content: MessageContent,
  status?: "error" | "success",
): [AssistantMessage, ToolMessage] {
  return [assistantCalling(toolCall(id, name, args)), toolResult(id, name, content, status)];
}

/** A document page of `chars` chars whose text names the page (deterministic filler). */
export function documentPage(documentId: string, page: number, chars = 5_000): string {
  const head = `Document ${documentId}, page ${page}. `;
  const filler = `Clause text of page ${page} continues. `;
  return (head + filler.repeat(Math.ceil(chars / filler.length))).slice(0, chars);
}

/** A digest row for `original` content, as the worker would store it. */
export function digestFor(original: MessageContent, digest: string): DigestEntry {
  return { digest, contentSha256: contentSha256(original), digestChars: digest.length };
}

export function digestMap(entries: Record<string, DigestEntry>): DigestMap {
  return new Map(Object.entries(entries));
}

/** Freezes a value and everything reachable from it (to prove the code never mutates input). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

/** Index of the first message matching `predicate` (throws when none: a broken fixture). */
export function indexWhere(messages: readonly Message[], predicate: (message: Message) => boolean): number {
  const index = messages.findIndex(predicate);
  if (index < 0) throw new Error("fixture: no message matches");
  return index;
}

/** Index of the tool result answering `toolCallId`. */
export function resultIndex(messages: readonly Message[], toolCallId: string): number {
  return indexWhere(messages, (message) => message.role === "tool" && message.toolCallId === toolCallId);
}
