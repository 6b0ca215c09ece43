import { contentText } from "../content";
import { canonicalArgs } from "../contract/hash";
import type { Message } from "../types";

// The referenced-by-window keep-rule (docs/architecture.md#keep-rules): the tokens of the
// recency window's messages, and the keys of older results looked up among them.

const SINGLE_TOKEN = /^[A-Za-z0-9_\-.:/#@]+$/;
/** Per ASCII code: 1 for a token char (`[A-Za-z0-9_\-.:/#@]`), 2 for one that is also trailing punctuation (`[.:/#@-]`). */
const TOKEN_CHARS = (() => {
  const table = new Uint8Array(128);
  for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
    table[char.charCodeAt(0)] = 1;
  for (const char of "-.:/#@") table[char.charCodeAt(0)] = 2;
  return table;
})();

/**
 * Visits the tokens of a text as the referenced-by-window keep-rule matches keys against
 * them, as spans `[start, end)` of `text`: each maximal run of `[A-Za-z0-9_\-.:/#@]`, then,
 * when it ends in punctuation (`[.:/#@-]`), the run without that trailing punctuation
 * (possibly empty).
 */
function forEachTextSpan(text: string, visit: (text: string, start: number, end: number) => void): void {
  const length = text.length;
  // Stryker disable next-line EqualityOperator: equivalent — at the end no char is a token char
  for (let start = 0; start < length; ) {
    if ((TOKEN_CHARS[text.charCodeAt(start)] ?? 0) === 0) {
      start++;
      continue;
    }
    let end = start + 1;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — none past the end
    while (end < length && (TOKEN_CHARS[text.charCodeAt(end)] ?? 0) !== 0) end++;
    visit(text, start, end);
    if (TOKEN_CHARS[text.charCodeAt(end - 1)] === 2) {
      let stem = end - 1;
      // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — the run is maximal
      while (stem > start && TOKEN_CHARS[text.charCodeAt(stem - 1)] === 2) stem--;
      visit(text, start, stem);
    }
    start = end;
  }
}

/** Whether a tool reads pages of a document (the policy's `document-read` kind). */
export type IsDocumentRead = (toolName: string) => boolean;

/**
 * Visits the token spans of what a message refers to, as the referenced-by-window keep-rule
 * reads it (see {@link forEachTextSpan}): the text of a user, system or assistant message
 * and the args of its tool calls, except calls of a document-read tool. A tool result
 * refers to nothing (a search hit list names documents without working on them), and
 * reading another page of a document does not refer to the pages read before (paginated
 * reading moves on; an exact re-read is a "duplicate").
 */
export function forEachReferenceSpan(
  message: Message,
  isDocumentRead: IsDocumentRead,
  visit: (text: string, start: number, end: number) => void,
): void {
  if (message.role === "tool") return;
  forEachTextSpan(contentText(message.content), visit);
  // Stryker disable next-line ConditionalExpression: equivalent — only assistant messages carry tool calls
  if (message.role === "assistant" && message.toolCalls) {
    for (const call of message.toolCalls) {
      if (!isDocumentRead(call.name)) forEachTextSpan(canonicalArgs(call), visit);
    }
  }
}

/** Whether a provenance key is one token, matched against token sets; any other key is looked for in the text. */
export function isSingleToken(key: string): boolean {
  return SINGLE_TOKEN.test(key);
}

/** What the window refers to as one text, for keys that are not one token (see {@link forEachReferenceSpan}). */
export function windowText(window: readonly Message[], isDocumentRead: IsDocumentRead): string {
  const parts: string[] = [];
  for (const message of window) {
    if (message.role === "tool") continue;
    parts.push(contentText(message.content));
    // Stryker disable next-line ConditionalExpression: equivalent — only assistant messages carry tool calls
    if (message.role === "assistant" && message.toolCalls) {
      for (const call of message.toolCalls) if (!isDocumentRead(call.name)) parts.push(canonicalArgs(call));
    }
  }
  return parts.join("\n");
}

/** The fewest chars a quoted span holds for the window to quote a page by it. */
export const MIN_QUOTE_CHARS = 16;

const QUOTED = /"([^"\n]+)"|“([^”\n]+)”|«([^»\n]+)»|^>[ \t]?(.+)$/gm;

/** Text with each run of whitespace made one space, trimmed: how quotes and pages are compared. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * The passages the window quotes: spans of its text within double quotes (`"…"`, `“…”`,
 * `«…»`) or on `>` lines, of at least {@link MIN_QUOTE_CHARS} chars, whitespace collapsed.
 */
export function windowQuotes(text: string): string[] {
  const quotes: string[] = [];
  for (const match of text.matchAll(QUOTED)) {
    const quoted = collapseWhitespace(match[1] ?? match[2] ?? match[3] ?? match[4] ?? "");
    if (quoted.length >= MIN_QUOTE_CHARS) quotes.push(quoted);
  }
  return quotes;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The offsets the window names with the offset arg's name: `offset 24000`, `offset: 24,000`,
 * `offset=24000`, `"offset":24000` (in the args of a call that is no document read).
 */
export function namedOffsets(text: string, offsetArg: string): Set<number> {
  const named = new Set<number>();
  const pattern = new RegExp(`\\b${escapeRegExp(offsetArg)}\\b["']?\\s*[:=]?\\s*(\\d[\\d,_]*)`, "gi");
  for (const match of text.matchAll(pattern)) {
    const value = Number((match[1] as string).replace(/[,_]/g, ""));
    if (Number.isFinite(value)) named.add(value);
  }
  return named;
}

/** The one-token spans of what the window refers to (see {@link forEachReferenceSpan}). */
export function windowTokens(window: readonly Message[], isDocumentRead: IsDocumentRead): Set<string> {
  const tokens = new Set<string>();
  for (const message of window) {
    forEachReferenceSpan(message, isDocumentRead, (text, start, end) => {
      tokens.add(text.slice(start, end));
    });
  }
  return tokens;
}
