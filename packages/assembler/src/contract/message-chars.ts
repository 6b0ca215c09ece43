import { contentChars } from "../content";
import type { Message } from "../types";
import { canonicalArgs } from "./hash";
import { type MessagePrint, matchesPrint, printOf } from "./message-print";

/** Chars a message puts in the prompt: its content plus its tool-call names and args (canonical JSON). */
export function countChars(message: Message): number {
  let chars = contentChars(message.content);
  if (message.role === "assistant" && message.toolCalls) {
    for (const call of message.toolCalls) chars += call.name.length + canonicalArgs(call).length;
  }
  return chars;
}

const charsByMessage = new WeakMap<object, { print: MessagePrint; chars: number }>();

/**
 * {@link countChars}, cached per message object, so a turn's repeated calls don't
 * re-serialize args; content replaced on the object, blocks edited in place, or tool calls
 * changed in place are counted again.
 */
export function messageChars(message: Message): number {
  if (typeof message.content === "string" && !(message.role === "assistant" && message.toolCalls)) {
    return message.content.length;
  }
  const cached = charsByMessage.get(message);
  if (cached !== undefined && matchesPrint(message, cached.print)) return cached.chars;
  const chars = countChars(message);
  charsByMessage.set(message, { print: printOf(message), chars });
  return chars;
}
