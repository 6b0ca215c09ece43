import { createHash } from "node:crypto";
import type { Message, MessageContent, ToolCall } from "../types";

/**
 * Serializes a JSON-like value with object keys sorted, so that equal values give
 * equal strings whatever their key order.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") {
    return JSON.stringify(value) ?? "null";
  }
  if (Array.isArray(value)) {
    let json = "[";
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      // A hole stays empty, as `map` and `join` leave it.
      // Stryker disable next-line ConditionalExpression: canonicalJson(undefined) is "null" as well
      const part = index in value ? canonicalJson(item === undefined ? null : item) : "";
      json += `${index === 0 ? "" : ","}${part}`;
    }
    return `${json}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Tool args are mostly flat, with keys in order: then JSON.stringify gives the same text, natively.
  if (isFlatInOrder(record, keys)) return JSON.stringify(record);
  keys.sort();
  let json = "{";
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    json += `${json === "{" ? "" : ","}${JSON.stringify(key)}:${canonicalJson(item)}`;
  }
  return `${json}}`;
}

/**
 * Whether `JSON.stringify(record)` equals {@link canonicalJson} of it: a plain object (not a
 * boxed primitive, a date or anything else JSON.stringify renders its own way) with its
 * keys already sorted and every value a string, a finite number or a boolean.
 */
function isFlatInOrder(record: Record<string, unknown>, keys: readonly string[]): boolean {
  const prototype = Object.getPrototypeOf(record);
  if ((prototype !== Object.prototype && prototype !== null) || "toJSON" in record) return false;
  for (let index = 0; index < keys.length; index++) {
    if (index > 0 && (keys[index - 1] as string) >= (keys[index] as string)) return false;
    const item = record[keys[index] as string];
    const type = typeof item;
    if (type !== "string" && type !== "boolean" && !(type === "number" && Number.isFinite(item)))
      return false;
  }
  return true;
}

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Whether a string has no lone surrogate: `String.prototype.isWellFormed` (every Node this
 * package supports; not yet in the ES2023 lib types), a native scan several times faster than a regex.
 */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Feeds a string to the hash as its WTF-8 bytes: UTF-8 for well-formed text (the same
 * bytes as before), and each lone surrogate as its own three-byte sequence ED A0–BF xx.
 * UTF-8 encoding alone would turn every lone surrogate into U+FFFD, so "x\uD83D",
 * "x\uDE00" and "x\uFFFD" would share a hash; well-formed UTF-8 never contains ED A0–BF,
 * so these bytes cannot come from any other string.
 */
function updateWithString(hash: ReturnType<typeof createHash>, text: string): void {
  // Stryker disable next-line ConditionalExpression,BlockStatement: a shortcut: the loop hashes alike
  if (isWellFormed(text)) {
    // Stryker disable next-line StringLiteral: an empty encoding name means UTF-8 to Hash.update
    hash.update(text, "utf8");
    return;
  }
  let from = 0;
  for (const match of text.matchAll(LONE_SURROGATES)) {
    const at = match.index ?? 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: nothing to hash
    if (at > from) hash.update(text.slice(from, at), "utf8");
    const unit = text.charCodeAt(at);
    hash.update(Uint8Array.of(0xed, 0x80 | ((unit >> 6) & 0x3f), 0x80 | (unit & 0x3f)));
    from = at + 1;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: nothing to hash
  if (from < text.length) hash.update(text.slice(from), "utf8");
}

/**
 * The one canonical hash of tool-result content, shared by the worker (which records it
 * on each digest row) and the assembler (which substitutes only on a match). Injective
 * over JavaScript strings: a string hashes as its UTF-8 bytes, lone surrogates included
 * (see {@link updateWithString}); block content hashes as its canonical JSON (which
 * escapes lone surrogates as `\uXXXX`).
 */
export function contentSha256(content: MessageContent): string {
  const hash = createHash("sha256");
  updateWithString(hash, typeof content === "string" ? content : canonicalJson(content));
  return hash.digest("hex");
}

interface CachedHash {
  content: MessageContent;
  /** For block content: each block and its text when hashed, so an in-place edit is seen. */
  blocks: readonly (readonly [object, unknown])[] | undefined;
  sha256: string;
}

const hashByMessage = new WeakMap<object, CachedHash>();

/** Each block of block content and its text now, to see later in-place edits ({@link sameBlocks}). */
export function blockSnapshot(content: MessageContent): CachedHash["blocks"] {
  return typeof content === "string" ? undefined : content.map((block) => [block, block.text] as const);
}

/** Whether block content still holds the same block objects with the same text as its snapshot. */
export function sameBlocks(content: MessageContent, blocks: CachedHash["blocks"]): boolean {
  // Callers pass this content's snapshot: no `blocks` exactly for a string, which re-hashes alike.
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral,BooleanLiteral: see above
  if (typeof content === "string" || blocks === undefined) return true;
  if (content.length !== blocks.length) return false;
  // Stryker disable next-line OptionalChaining: equal lengths: `blocks[index]` is defined
  return content.every((block, index) => blocks[index]?.[0] === block && blocks[index]?.[1] === block.text);
}

/**
 * {@link contentSha256} of a message's content, cached per message object so that the
 * repeated model calls of one turn hash each message at most once per process. Content
 * replaced on the object, or blocks edited in place, are hashed again.
 */
export function messageContentSha256(message: Message): string {
  const cached = hashByMessage.get(message);
  if (
    cached !== undefined &&
    cached.content === message.content &&
    sameBlocks(message.content, cached.blocks)
  ) {
    return cached.sha256;
  }
  const sha256 = contentSha256(message.content);
  hashByMessage.set(message, { content: message.content, blocks: blockSnapshot(message.content), sha256 });
  return sha256;
}

const argsJsonByCall = new WeakMap<object, { args: unknown; json: string }>();

/**
 * {@link canonicalJson} of a tool call's args, cached per call object: the key of
 * "duplicate" detection and the size of the call in the prompt, computed once per process.
 */
export function canonicalArgs(call: ToolCall): string {
  const cached = argsJsonByCall.get(call);
  if (cached !== undefined && cached.args === call.args) return cached.json;
  const json = canonicalJson(call.args);
  argsJsonByCall.set(call, { args: call.args, json });
  return json;
}
