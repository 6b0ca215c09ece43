import { contentText } from "./content";
import { canonicalArgs } from "./hash";
import type { Message } from "./types";

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
// Per message: the content and tool calls its tokens were read from (either may be replaced).
const tokensByMessage = new WeakMap<
  object,
  { content: unknown; toolCalls: unknown; tokens: ReadonlySet<string> }
>();

/**
 * Visits the tokens of a text as the referenced-by-window keep-rule matches keys against
 * them, as spans `[start, end)` of `text`: each maximal run of `[A-Za-z0-9_\-.:/#@]`, then,
 * when it ends in punctuation (`[.:/#@-]`), the run without that trailing punctuation
 * (possibly empty).
 */
function forEachTextSpan(text: string, visit: (text: string, start: number, end: number) => void): void {
  const length = text.length;
  for (let start = 0; start < length; ) {
    if ((TOKEN_CHARS[text.charCodeAt(start)] ?? 0) === 0) {
      start++;
      continue;
    }
    let end = start + 1;
    while (end < length && (TOKEN_CHARS[text.charCodeAt(end)] ?? 0) !== 0) end++;
    visit(text, start, end);
    if (TOKEN_CHARS[text.charCodeAt(end - 1)] === 2) {
      let stem = end - 1;
      while (stem > start && TOKEN_CHARS[text.charCodeAt(stem - 1)] === 2) stem--;
      visit(text, start, stem);
    }
    start = end;
  }
}

/** Visits the token spans of a message's text and tool-call args (see {@link forEachTextSpan}). */
export function forEachTokenSpan(
  message: Message,
  visit: (text: string, start: number, end: number) => void,
): void {
  forEachTextSpan(contentText(message.content), visit);
  if (message.role === "assistant" && message.toolCalls) {
    for (const call of message.toolCalls) forEachTextSpan(canonicalArgs(call), visit);
  }
}

/**
 * The tokens of a message's text and tool-call args, as the referenced-by-window keep-rule
 * matches keys against them: each token, and each without its trailing punctuation.
 */
export function readTokens(message: Message): ReadonlySet<string> {
  const set = new Set<string>();
  forEachTokenSpan(message, (text, start, end) => set.add(text.slice(start, end)));
  return set;
}

function messageTokens(message: Message): ReadonlySet<string> {
  // Stryker disable next-line ConditionalExpression: only assistant messages carry tool calls
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  const cached = tokensByMessage.get(message);
  if (cached && cached.content === message.content && cached.toolCalls === toolCalls) return cached.tokens;
  const tokens = readTokens(message);
  tokensByMessage.set(message, { content: message.content, toolCalls, tokens });
  return tokens;
}

/** Whether a provenance key is one token, matched against token sets; any other key is looked for in the text. */
export function isSingleToken(key: string): boolean {
  return SINGLE_TOKEN.test(key);
}

/** The text of the window a key that is not one token is looked for in. */
export function windowText(window: readonly Message[]): string {
  return window
    .map((message) =>
      // Stryker disable next-line ConditionalExpression: only assistant messages carry tool calls
      [contentText(message.content), ...(message.role === "assistant" ? (message.toolCalls ?? []) : [])]
        .map((part) => (typeof part === "string" ? part : canonicalArgs(part)))
        .join("\n"),
    )
    .join("\n");
}

/** What the recency window mentions: its text and its tool-call args, as a key lookup. */
export interface WindowReferences {
  mentions(key: string): boolean;
}

/**
 * The referenced-by-window keep-rule: collects the keys mentioned by the recency window
 * (messages from `wallStart`).
 */
export function windowReferences(messages: readonly Message[], wallStart: number): WindowReferences {
  const window = messages.slice(wallStart);
  const tokenSets = window.map(messageTokens);
  let fullText: string | undefined;
  return {
    mentions(key: string): boolean {
      if (isSingleToken(key)) return tokenSets.some((tokens) => tokens.has(key));
      fullText ??= windowText(window);
      return fullText.includes(key);
    },
  };
}

/**
 * The referenced-by-window keep-rule: whether any provenance key of a result is mentioned
 * by the recency window.
 */
export function isReferencedByWindow(keys: readonly string[], references: WindowReferences): boolean {
  return keys.some((key) => references.mentions(key));
}
