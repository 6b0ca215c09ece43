import { describe, expect, it } from "vitest";
import { decodePageCursor, encodePageCursor } from "./page-cursor";

describe("page cursors", () => {
  it("round-trip a key of strings, whatever its characters", () => {
    for (const key of [["acme", "thread-1"], ["thread-é 🧾"], ["", 'a"b\\c']]) {
      expect(decodePageCursor(encodePageCursor(key), key.length)).toEqual(key);
    }
  });

  it("keep the format cursors already handed out have: base64url of the key's JSON array", () => {
    expect(encodePageCursor(["acme", "thread-é"])).toBe("WyJhY21lIiwidGhyZWFkLcOpIl0");
    expect(encodePageCursor(["thread-1"])).toBe("WyJ0aHJlYWQtMSJd");
    expect(decodePageCursor("WyJ0aHJlYWQtMSJd", 1)).toEqual(["thread-1"]);
  });

  it("hold no key for another length, a non-string part, or text that is not one", () => {
    const pair = encodePageCursor(["acme", "thread-1"]);
    expect(decodePageCursor(pair, 1)).toBeUndefined();
    expect(decodePageCursor(pair, 3)).toBeUndefined();
    expect(decodePageCursor(Buffer.from('["acme", 7]').toString("base64url"), 2)).toBeUndefined();
    expect(decodePageCursor(Buffer.from('{"0":"a"}').toString("base64url"), 1)).toBeUndefined();
    expect(decodePageCursor("not-a-cursor", 1)).toBeUndefined();
    expect(decodePageCursor("", 0)).toBeUndefined();
  });
});
