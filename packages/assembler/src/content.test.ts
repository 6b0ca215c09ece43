import { describe, expect, it } from "vitest";
import { contentChars, contentText } from "./content";

describe("contentText", () => {
  it("returns a string as is and joins text blocks by newlines, skipping other blocks", () => {
    expect(contentText("plain")).toBe("plain");
    expect(
      contentText([
        { type: "text", text: "one" },
        { type: "image", source: { data: "AAAA" } },
        { type: "text", text: "two" },
      ]),
    ).toBe("one\ntwo");
    expect(contentText([])).toBe("");
  });
});

describe("contentChars", () => {
  it("counts a string's length, text blocks' text and other blocks' JSON size", () => {
    expect(contentChars("abcd")).toBe(4);
    const image = { type: "image", source: { data: "AAAA" } };
    expect(contentChars([{ type: "text", text: "abc" }, image])).toBe(3 + JSON.stringify(image).length);
    expect(contentChars([])).toBe(0);
  });
});
