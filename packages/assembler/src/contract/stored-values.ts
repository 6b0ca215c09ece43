/**
 * What the digest storage can hold, shared by every side that checks it: the worker's
 * payload schema, the worker's candidate filter, the storage package's repository and the
 * in-memory store. One rule each, so a value one side accepts is never refused by another,
 * and none of them trims or rewrites an id (docs/architecture.md#storage-and-row-level-security).
 */

/** Limits of stored values. */
export const STORED_VALUE_LIMITS = {
  /** Longest org id, in UTF-8 bytes. */
  orgIdBytes: 200,
  /** Longest thread id, in UTF-8 bytes. */
  threadIdBytes: 500,
  /** Longest tool call id, in UTF-8 bytes (with the org and thread ids, one primary-key entry stays far below Postgres' index row limit). */
  toolCallIdBytes: 500,
  /** The largest count a Postgres `integer` column holds: 2^31 − 1. */
  maxCount: 2_147_483_647,
} as const;

/** The ids a caller chooses: the runtime's org and thread ids. */
export type IdField = "orgId" | "threadId";

const ID_BYTES: Readonly<Record<IdField, number>> = {
  orgId: STORED_VALUE_LIMITS.orgIdBytes,
  threadId: STORED_VALUE_LIMITS.threadIdBytes,
};

/** The character Postgres `text` and `jsonb` cannot hold. */
const NUL = "\u0000";

/** The problem of a value holding U+0000, for error messages. */
export const NUL_PROBLEM = "must not contain U+0000 (NUL): Postgres text and jsonb cannot store it";

const SURROGATE_PROBLEM =
  "must be well-formed Unicode (a lone surrogate is stored altered in text and refused in jsonb)";

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, "g");
/** Whether `text` holds a C0 control character or DEL (U+0000 has a problem of its own). */
function hasControlCharacter(text: string): boolean {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function stringProblem(text: string): string | undefined {
  if (text.includes(NUL)) return NUL_PROBLEM;
  if (LONE_SURROGATE.test(text)) return SURROGATE_PROBLEM;
  return undefined;
}

/**
 * Why Postgres `text` or `jsonb` cannot store `value` exactly as given: U+0000, or a lone
 * surrogate, in a string or in any key or string inside an array or plain object.
 * Follows each object once, so a cycle ends the walk instead of overflowing the stack.
 *
 * @returns the problem, or `undefined` when the value can be stored.
 */
export function textProblem(value: unknown, seen: Set<object> = new Set()): string | undefined {
  if (typeof value === "string") return stringProblem(value);
  if (value === null || typeof value !== "object" || seen.has(value)) return undefined;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const item of value) {
      const problem = textProblem(item, seen);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, item] of Object.entries(value)) {
    const problem = stringProblem(key) ?? textProblem(item, seen);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * Text made storable: each U+0000 and each lone surrogate becomes U+FFFD (the replacement
 * character), one code point for one, so lengths in code points stay the same. For derived
 * text only (a digest), never for ids or args, which must match the thread exactly.
 */
export function storableText(text: string): string {
  if (stringProblem(text) === undefined) return text;
  return text.replaceAll(NUL, "\uFFFD").replace(LONE_SURROGATES, "\uFFFD");
}

/** Bytes of `text` in UTF-8 (a lone surrogate counts as the 3 bytes of U+FFFD). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) as number;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

function typeName(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * Why `value` cannot be an org or thread id, or `undefined` when it can. An id is taken
 * exactly as given, never trimmed: a non-empty string of at most 200 (org) or 500 (thread)
 * UTF-8 bytes, without surrounding whitespace, control characters (U+0000–U+001F, U+007F)
 * or lone surrogates.
 *
 * @example
 * idProblem("  acme  ", "orgId"); // "must not start or end with whitespace"
 */
export function idProblem(value: unknown, field: IdField): string | undefined {
  if (typeof value !== "string") return `must be a string, got ${typeName(value)}`;
  if (value.trim() === "") return "must not be empty or blank";
  if (value.trim() !== value) return "must not start or end with whitespace";
  const text = stringProblem(value);
  if (text) return text;
  if (hasControlCharacter(value)) return "must not contain control characters (U+0001–U+001F, U+007F)";
  const bytes = utf8Bytes(value);
  if (bytes > ID_BYTES[field]) return `must be at most ${ID_BYTES[field]} bytes in UTF-8, got ${bytes}`;
  return undefined;
}

/**
 * Why a tool call id cannot key a stored row as the thread has it, or `undefined` when it
 * can: a string of at most 500 UTF-8 bytes that Postgres stores unaltered. Tool call ids
 * come from the model provider and are stored exactly as given; an empty one is never
 * digested (a keep-rule) and refused by the table's CHECK.
 */
export function toolCallIdProblem(value: unknown): string | undefined {
  if (typeof value !== "string") return `must be a string, got ${typeName(value)}`;
  const text = stringProblem(value);
  if (text) return text;
  const bytes = utf8Bytes(value);
  const limit = STORED_VALUE_LIMITS.toolCallIdBytes;
  return bytes > limit ? `must be at most ${limit} bytes in UTF-8, got ${bytes}` : undefined;
}

/**
 * Why `value` cannot be a stored count (chars, digests written), or `undefined` when it
 * can: an integer from 0 to 2^31 − 1, what a Postgres `integer` column holds.
 */
export function countProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    return `must be an integer ≥ 0, got ${typeof value === "number" ? String(value) : typeName(value)}`;
  }
  const max = STORED_VALUE_LIMITS.maxCount;
  return value > max ? `must be at most ${max} (a Postgres integer), got ${value}` : undefined;
}

/** Micro-USD per USD: the ledger stores integer micro-USD, so sums never drift. */
const MICROS_PER_USD = 1_000_000;

/** Why `usd` is no amount the ledger stores, or `undefined` when it is a finite USD amount ≥ 0. */
export function usdProblem(usd: unknown): string | undefined {
  return typeof usd !== "number" || !Number.isFinite(usd) || usd < 0
    ? `expected a finite USD amount ≥ 0, got ${String(usd)}`
    : undefined;
}

/** USD → integer micro-USD, for an amount {@link usdProblem} accepts. */
export function usdToMicroUsd(usd: number): number {
  return Math.round(usd * MICROS_PER_USD);
}

/** Integer micro-USD → USD. */
export function microUsdToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}
