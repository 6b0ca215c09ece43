import { describe, expect, it } from "vitest";
import { containsNul, storableText } from "./stored-values";

describe("containsNul", () => {
  it.each([
    ["a string", "a\u0000b", true],
    ["a clean string", "a\\u0000b", false],
    ["a value in an object", { file_id: "cd\u00009f2" }, true],
    ["a key of an object", { "file\u0000id": "cd_9f2" }, true],
    ["an array item, deep", { pages: [1, ["x", "\u0000"]] }, true],
    ["numbers, booleans, null", { offset: 0, ok: true, none: null }, false],
  ])("%s", (_label, value, expected) => {
    expect(containsNul(value)).toBe(expected);
  });

  it("ends on a cycle", () => {
    const looped: Record<string, unknown> = { name: "x" };
    looped.self = looped;
    expect(containsNul(looped)).toBe(false);
    looped.late = "\u0000";
    expect(containsNul(looped)).toBe(true);
  });
});

describe("storableText", () => {
  it("replaces each NUL by U+FFFD, keeping the length in code points", () => {
    const text = "rent\u0000$5\u0000";
    expect(storableText(text)).toBe("rent\uFFFD$5\uFFFD");
    expect([...storableText(text)].length).toBe([...text].length);
    const clean = "no nul here";
    expect(storableText(clean)).toBe(clean);
  });
});
