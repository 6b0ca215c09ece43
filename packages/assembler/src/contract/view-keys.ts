import type { Message } from "../types";
import { canonicalJson } from "./hash";
import { type MessagePrint, matchesPrint, printOf } from "./message-print";

/**
 * Keys of the messages a view sends: equal for two messages that put the same values in
 * the prompt (role, content, tool calls, the result's call id, tool name and status, the
 * reasoning item), different otherwise but for a 1-in-2^53 chance. A call compares its
 * view's keys with the previous call's to find the first message it changed
 * (docs/architecture.md#provider-true-views). Two 32-bit multiplicative lanes over the
 * UTF-16 code units (so lone surrogates count), linear in the message's size.
 */
class KeyHash {
  private h1 = 0x9e3779b9;
  private h2 = 0x85ebca6b;

  add(text: string): this {
    let { h1, h2 } = this;
    for (let index = 0; index < text.length; index++) {
      const unit = text.charCodeAt(index);
      h1 = Math.imul(h1 ^ unit, 2654435761);
      h2 = Math.imul(h2 ^ unit, 1597334677);
    }
    // A separator no field can forge: the length, then a unit outside the text.
    h1 = Math.imul(h1 ^ text.length, 2246822507) ^ Math.imul(h2 ^ 0xffff, 3266489909);
    h2 = Math.imul(h2 ^ text.length, 3266489909) ^ Math.imul(h1 ^ 0xfffe, 2246822507);
    this.h1 = h1;
    this.h2 = h2;
    return this;
  }

  digest(): string {
    const high = (this.h2 >>> 0) & 0x1fffff;
    return (high * 0x100000000 + (this.h1 >>> 0)).toString(36);
  }
}

function computeKey(message: Message): string {
  const hash = new KeyHash().add(message.role);
  if (typeof message.content === "string") hash.add("s").add(message.content);
  else {
    hash.add(`b${message.content.length}`);
    for (const block of message.content) {
      // A text block's text is hashed as is (it may be long); any other block as canonical JSON.
      if (block.type === "text" && typeof block.text === "string") {
        const { text, ...rest } = block;
        hash.add(canonicalJson(rest)).add(text);
      } else hash.add(canonicalJson(block));
    }
  }
  if (message.role === "assistant") {
    hash.add(canonicalJson(message.toolCalls ?? []));
    hash.add(message.reasoning === undefined ? "" : `r${canonicalJson(message.reasoning)}`);
  }
  if (message.role === "tool")
    hash
      .add(message.toolCallId)
      .add(message.toolName)
      .add(message.status ?? "");
  return hash.digest();
}

const keys = new WeakMap<Message, { print: MessagePrint; reasoning: unknown; key: string }>();

function reasoningOf(message: Message): unknown {
  return message.role === "assistant" ? message.reasoning : undefined;
}

/** The key of one message of a view, cached per object while its fields are the same values. */
export function viewKey(message: Message): string {
  const cached = keys.get(message);
  if (
    cached !== undefined &&
    cached.reasoning === reasoningOf(message) &&
    matchesPrint(message, cached.print)
  )
    return cached.key;
  const key = computeKey(message);
  keys.set(message, { print: printOf(message), reasoning: reasoningOf(message), key });
  return key;
}
