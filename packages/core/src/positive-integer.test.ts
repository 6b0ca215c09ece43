import { describe, expect, it } from "vitest";
import { parsePositiveInteger } from "./positive-integer";

describe("parsePositiveInteger", () => {
  it("reads decimal digits, surrounding whitespace allowed", () => {
    expect(parsePositiveInteger("1")).toBe(1);
    expect(parsePositiveInteger(" 250\n")).toBe(250);
    expect(parsePositiveInteger(String(Number.MAX_SAFE_INTEGER))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each(["", " ", "0", "007", "-3", "+3", "2.5", "2.0", "1e3", "0x10", "0b11", "five", "9007199254740992"])(
    "refuses %j",
    (text) => {
      expect(parsePositiveInteger(text)).toBeUndefined();
    },
  );
});
