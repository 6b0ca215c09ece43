import { contentChars } from "./content";
import { blockSnapshot, canonicalArgs, sameBlocks } from "./hash";
import type { Message } from "./types";

const charsByMessage = new WeakMap<
  object,
  { content: unknown; blocks: ReturnType<typeof blockSnapshot>; toolCalls: unknown; chars: number }
>();

/**
 * Chars a message puts in the prompt: its content plus its tool-call args. Cached per
 * message object (like the hash), so a turn's repeated assemblies don't re-serialize args;
 * content replaced on the object, or blocks edited in place, are counted again.
 */
export function messageChars(message: Message): number {
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  if (typeof message.content === "string" && !toolCalls) return message.content.length;
  const cached = charsByMessage.get(message);
  if (
    cached !== undefined &&
    cached.content === message.content &&
    cached.toolCalls === toolCalls &&
    sameBlocks(message.content, cached.blocks)
  ) {
    return cached.chars;
  }
  let chars = contentChars(message.content);
  if (toolCalls) {
    for (const call of toolCalls) chars += call.name.length + canonicalArgs(call).length;
  }
  charsByMessage.set(message, {
    content: message.content,
    blocks: blockSnapshot(message.content),
    toolCalls,
    chars,
  });
  return chars;
}
