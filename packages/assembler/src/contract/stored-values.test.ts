import { describe, expect, it } from "vitest";
import {
  countProblem,
  idProblem,
  microUsdToUsd,
  STORED_VALUE_LIMITS,
  storableText,
  textProblem,
  toolCallIdProblem,
  usdProblem,
  usdToMicroUsd,
  utf8Bytes,
} from "./stored-values";

describe("textProblem", () => {
  it.each([
    ["a NUL in a string", "a\u0000b", /U\+0000/],
    ["an escaped NUL (plain text)", "a\\u0000b", undefined],
    ["a NUL in an object's value", { file_id: "cd\u00009f2" }, /U\+0000/],
    ["a NUL in a key", { "file\u0000id": "cd_9f2" }, /U\+0000/],
    ["a NUL deep in arrays", { pages: [1, ["x", "\u0000"]] }, /U\+0000/],
    ["a lone high surrogate", "x\ud800", /lone surrogate/],
    ["a lone low surrogate in a key", { "\udc00": 1 }, /lone surrogate/],
    ["a surrogate pair", "figures: 📄", undefined],
    ["numbers, booleans, null", { offset: 0, ok: true, none: null }, undefined],
  ])("%s", (_label, value, expected) => {
    if (expected === undefined) expect(textProblem(value)).toBeUndefined();
    else expect(textProblem(value)).toMatch(expected);
  });

  it("ends on a cycle", () => {
    const looped: Record<string, unknown> = { name: "x" };
    looped.self = looped;
    expect(textProblem(looped)).toBeUndefined();
    looped.late = "\u0000";
    expect(textProblem(looped)).toMatch(/U\+0000/);
  });
});

describe("storableText", () => {
  it("replaces each NUL and lone surrogate by U+FFFD, keeping the length in code points", () => {
    const text = "rent\u0000$5\ud800 📄";
    expect(storableText(text)).toBe("rent\uFFFD$5\uFFFD 📄");
    expect([...storableText(text)].length).toBe([...text].length);
    const clean = "no nul here";
    expect(storableText(clean)).toBe(clean);
  });
});

describe("idProblem: ids are taken as given, never trimmed", () => {
  it.each([
    ["acme", "orgId", undefined],
    ["  acme  ", "orgId", /whitespace/],
    ["", "orgId", /empty/],
    [" ", "threadId", /empty or blank/],
    ["ac\tme", "orgId", /control/],
    ["ac\u007fme", "orgId", /control/],
    ["ac\u0000me", "orgId", /U\+0000/],
    ["ac\udfffme", "threadId", /lone surrogate/],
    ["a".repeat(200), "orgId", undefined],
    ["a".repeat(201), "orgId", /at most 200 bytes/],
    ["€".repeat(67), "orgId", /got 201/],
    ["t".repeat(500), "threadId", undefined],
    [42, "orgId", /a number/],
    [undefined, "threadId", /got undefined$/],
    [{}, "orgId", /got an object$/],
  ] as const)("%j as %s", (value, field, expected) => {
    if (expected === undefined) expect(idProblem(value, field)).toBeUndefined();
    else expect(idProblem(value, field)).toMatch(expected);
  });
});

describe("toolCallIdProblem: opaque, stored exactly", () => {
  it("accepts what a provider sends, spaces included; refuses what storage alters", () => {
    expect(toolCallIdProblem("toolu_01A09q90qw90lq917835lq9")).toBeUndefined();
    expect(toolCallIdProblem(" call 1 ")).toBeUndefined();
    expect(toolCallIdProblem("c".repeat(STORED_VALUE_LIMITS.toolCallIdBytes))).toBeUndefined();
    expect(toolCallIdProblem("c".repeat(STORED_VALUE_LIMITS.toolCallIdBytes + 1))).toMatch(/500 bytes/);
    expect(toolCallIdProblem("c\u0000")).toMatch(/U\+0000/);
    expect(toolCallIdProblem("c\ud800")).toMatch(/lone surrogate/);
  });
});

describe("countProblem", () => {
  it.each([
    [0, undefined],
    [2 ** 31 - 1, undefined],
    [2 ** 31, /at most 2147483647/],
    [-1, /≥ 0/],
    [1.5, /integer/],
    [Number.NaN, /integer/],
    ["5", /a string/],
  ])("%s", (value, expected) => {
    if (expected === undefined) expect(countProblem(value)).toBeUndefined();
    else expect(countProblem(value)).toMatch(expected);
  });
});

describe("utf8Bytes", () => {
  it("counts UTF-8 bytes", () => {
    expect(utf8Bytes("aé€📄")).toBe(1 + 2 + 3 + 4);
    expect(utf8Bytes("\ud800")).toBe(3);
  });
});

describe("usdProblem, usdToMicroUsd, microUsdToUsd", () => {
  it.each([
    [0, undefined],
    [0.0125, undefined],
    [-0.01, /finite USD amount ≥ 0, got -0.01/],
    [Number.POSITIVE_INFINITY, /got Infinity/],
    [Number.NaN, /got NaN/],
    ["1", /got 1/],
  ])("%s", (value, expected) => {
    if (expected === undefined) expect(usdProblem(value)).toBeUndefined();
    else expect(usdProblem(value)).toMatch(expected);
  });

  it("stores integer micro-USD, rounded, and reads them back", () => {
    expect(usdToMicroUsd(0.0125)).toBe(12_500);
    expect(usdToMicroUsd(1.0000004)).toBe(1_000_000);
    expect(usdToMicroUsd(1.0000006)).toBe(1_000_001);
    expect(microUsdToUsd(12_500)).toBe(0.0125);
  });
});
