/**
 * Page cursors of the keyset-paged listings (the sweep's left-behind threads here, the
 * checkpoint directory's active threads in the worker): the last row's key, a tuple of
 * strings, as base64url of its JSON array. Callers treat a cursor as opaque and hand it
 * back unchanged.
 */

/** The cursor of the page that follows the row with `key`. */
export function encodePageCursor(key: readonly string[]): string {
  return Buffer.from(JSON.stringify(key), "utf8").toString("base64url");
}

/**
 * The key a cursor of {@link encodePageCursor} holds, when it is a tuple of `length` strings.
 * @returns the key, or `undefined` for anything else (each caller refuses it with its own error).
 */
export function decodePageCursor(cursor: string, length: number): string[] | undefined {
  try {
    const key: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(key) && key.length === length && key.every((part) => typeof part === "string")) {
      return key;
    }
  } catch {
    // not JSON: no key
  }
  return undefined;
}
