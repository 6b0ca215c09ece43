import type { Message } from "../types";

/**
 * What the cleaning rules read of a message, as it was when a per-thread index took it in:
 * its fields, and for block content or tool calls the objects and values inside them. A
 * message is the same for a later assembly only while these still hold, so content
 * replaced on the object, a block edited in place or a call's args swapped are all seen.
 */
export interface MessagePrint {
  readonly role: string;
  readonly content: unknown;
  readonly toolCalls: unknown;
  readonly toolCallId: unknown;
  readonly toolName: unknown;
  readonly status: unknown;
  /** Each block and its text, then each tool call with its id, name, args and issuer; undefined when there are none. */
  readonly parts: readonly unknown[] | undefined;
}

function partsOf(message: Message): unknown[] | undefined {
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  if (typeof message.content === "string" && toolCalls === undefined) return undefined;
  const parts: unknown[] = [];
  if (typeof message.content !== "string") {
    for (const block of message.content) parts.push(block, block.text);
  }
  for (const call of toolCalls ?? []) parts.push(call, call.id, call.name, call.args, call.issuedBy);
  return parts;
}

export function printOf(message: Message): MessagePrint {
  return {
    role: message.role,
    content: message.content,
    toolCalls: message.role === "assistant" ? message.toolCalls : undefined,
    toolCallId: message.role === "tool" ? message.toolCallId : undefined,
    toolName: message.role === "tool" ? message.toolName : undefined,
    status: message.role === "tool" ? message.status : undefined,
    parts: partsOf(message),
  };
}

/** Whether `message` still reads as it did when `print` was taken. */
export function matchesPrint(message: Message, print: MessagePrint): boolean {
  if (message.role !== print.role || message.content !== print.content) return false;
  if (message.role === "assistant") {
    if (message.toolCalls !== print.toolCalls) return false;
  } else if (message.role === "tool") {
    if (
      message.toolCallId !== print.toolCallId ||
      message.toolName !== print.toolName ||
      message.status !== print.status
    )
      return false;
  }
  return print.parts === undefined || sameParts(message, print.parts);
}

/** {@link partsOf} compared in place, without building the array again. */
function sameParts(message: Message, parts: readonly unknown[]): boolean {
  let at = 0;
  if (typeof message.content !== "string") {
    for (const block of message.content) {
      if (parts[at] !== block || parts[at + 1] !== block.text) return false;
      at += 2;
    }
  }
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  for (const call of toolCalls ?? []) {
    if (parts[at] !== call || parts[at + 1] !== call.id || parts[at + 2] !== call.name) return false;
    if (parts[at + 3] !== call.args || parts[at + 4] !== call.issuedBy) return false;
    at += 5;
  }
  return at === parts.length;
}
