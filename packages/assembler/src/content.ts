import type { MessageContent } from "./types";

/** The text of message content: a string as is, blocks' `text` fields joined by newlines. */
export function contentText(content: MessageContent): string {
  if (typeof content === "string") return content;
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block.text === "string") parts.push(block.text);
  }
  return parts.join("\n");
}

/**
 * Size of message content in chars, the unit of every budget: a string's length; for
 * blocks, the text of text blocks plus the JSON size of any other block (images, etc.).
 */
export function contentChars(content: MessageContent): number {
  if (typeof content === "string") return content.length;
  let total = 0;
  for (const block of content) {
    total += typeof block.text === "string" ? block.text.length : JSON.stringify(block).length;
  }
  return total;
}
