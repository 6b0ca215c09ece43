/**
 * What the digest storage can hold, shared by every side that checks it: the worker's
 * payload schema, the worker's candidate filter, the storage package's repository and the
 * in-memory store. One rule each, so a value one side accepts is never refused by another
 * (docs/architecture.md#storage-and-row-level-security).
 */

/** The character Postgres `text` and `jsonb` cannot hold. */
const NUL = "\u0000";

/** The problem of a value holding U+0000, for error messages. */
export const NUL_PROBLEM = "must not contain U+0000 (NUL): Postgres text and jsonb cannot store it";

/**
 * Whether a string, or any string or key inside an array or plain object, holds U+0000.
 * Follows each object once, so a cycle ends the walk instead of overflowing the stack.
 */
export function containsNul(value: unknown, seen: Set<object> = new Set()): boolean {
  if (typeof value === "string") return value.includes(NUL);
  if (value === null || typeof value !== "object" || seen.has(value)) return false;
  seen.add(value);
  if (Array.isArray(value)) return value.some((item) => containsNul(item, seen));
  return Object.entries(value).some(([key, item]) => key.includes(NUL) || containsNul(item, seen));
}

/**
 * Text made storable: each U+0000 becomes U+FFFD (the replacement character), one code
 * point for one, so lengths in code points stay the same. For derived text only (a
 * digest), never for ids or args, which must match the thread exactly.
 */
export function storableText(text: string): string {
  return text.includes(NUL) ? text.replaceAll(NUL, "\uFFFD") : text;
}
