import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ARG_PATTERN_LIMITS, type ArgPattern, compileArgPattern } from "./arg-pattern";

const NUM_RUNS = process.env.CI ? 3_000 : 500;

function compiled(source: string): ArgPattern {
  const pattern = compileArgPattern(source);
  if ("problem" in pattern) throw new Error(`${source} ${pattern.problem}`);
  return pattern;
}

function problemOf(source: string): string | undefined {
  const pattern = compileArgPattern(source);
  return "problem" in pattern ? pattern.problem : undefined;
}

function stepsFor(pattern: ArgPattern, value: string): number {
  const counter = { steps: 0 };
  pattern.test(value, counter);
  return counter.steps;
}

/** The argument that made a backtracking engine take seconds, `length` chars before its suffix. */
function adversarial(length: number): string {
  return `${"leaseagreementpurple2020xy".repeat(Math.ceil(length / 26)).slice(0, length)}-pinned.pdf`;
}

describe("a protected-argument pattern that backtracks catastrophically in RegExp", () => {
  const pattern = compiled("^([a-z0-9]+-?)+-pinned$");

  it("matches what RegExp matches", () => {
    for (const value of ["lease-2020-pinned", "a-pinned", "lease-2020-pinned.pdf", "-pinned", "LEASE-pinned"])
      expect(pattern.test(value), value).toBe(/^([a-z0-9]+-?)+-pinned$/.test(value));
  });

  it("runs in steps linear in the argument's length, within 2 × its size per char", () => {
    const lengths = [25, 50, 100, 200, 400, 800, 1_600, 3_200];
    const steps = lengths.map((length) => stepsFor(pattern, adversarial(length)));
    lengths.forEach((length, index) => {
      const chars = adversarial(length).length;
      expect(steps[index]).toBeLessThanOrEqual(2 * pattern.programSize * (chars + 1));
    });
    // Doubling the argument at most doubles the work (a backtracking engine's doubles per char).
    for (let index = 1; index < lengths.length; index++)
      expect((steps[index] as number) / (steps[index - 1] as number)).toBeLessThan(2.1);
    expect(pattern.test(adversarial(3_200))).toBe(false);
  });

  it("reads at most the first 4,096 chars of a value, whatever its length", () => {
    const long = stepsFor(pattern, adversarial(100_000));
    const atLimit = stepsFor(pattern, adversarial(ARG_PATTERN_LIMITS.valueChars));
    expect(long).toBeLessThanOrEqual(atLimit);
    expect(long).toBeLessThanOrEqual(2 * pattern.programSize * (ARG_PATTERN_LIMITS.valueChars + 1));
  });
});

describe("the value bound", () => {
  const limit = ARG_PATTERN_LIMITS.valueChars;

  it("finds a match within the first 4,096 chars and none past them", () => {
    const pinned = compiled("pinned");
    expect(pinned.test(`${"x".repeat(limit - 6)}pinned`)).toBe(true);
    expect(pinned.test(`${"x".repeat(limit - 5)}pinned`)).toBe(false);
  });

  it("`$` matches at the value's own end only, never where the reading stops", () => {
    const suffix = compiled("x$");
    expect(suffix.test("x".repeat(limit))).toBe(true);
    expect(suffix.test("x".repeat(limit + 1))).toBe(false);
    expect(compiled("x\\b").test(`${"x".repeat(limit)}y`)).toBe(false);
    expect(compiled("x\\b").test(`${"x".repeat(limit)}-`)).toBe(true);
  });
});

describe("compileArgPattern", () => {
  it("keeps the patterns stored before it, with their meaning", () => {
    expect(compiled("^/pinned/").test("/pinned/a.pdf")).toBe(true);
    expect(compiled("^/pinned/").test("/docs/pinned/a.pdf")).toBe(false);
    expect(compiled("^5000$").test("5000")).toBe(true);
    expect(compiled("^5000$").test("50000")).toBe(false);
    // A plain literal matches anywhere in the value.
    expect(compiled("pinned").test("lease-pinned.pdf")).toBe(true);
    expect(compiled("lease.pdf").test("lease-pdf")).toBe(true);
    expect(compiled("lease\\.pdf").test("lease-pdf")).toBe(false);
  });

  it.each([
    ["(a+)\\1", /backreference/],
    ["(?<id>a)\\k<id>", /backreference/],
    ["a(?=b)", /lookaround/],
    ["a(?!b)", /lookaround/],
    ["(?<=a)b", /lookaround/],
    ["(?<!a)b", /lookaround/],
    ["a{", /"\{" at 1 that is no \{n\}/],
    ["a{,2}", /"\{" at 1/],
    ["a]", /unescaped "\]"/],
    ["a}", /unescaped "\}"/],
    ["\\q", /unsupported escape "\\q"/],
    ["\\cJ", /unsupported escape "\\c"/],
    ["\\0", /octal escape/],
    ["\\u{41}", /without 4 hex digits/],
    ["[\\w-.]", /range at 3 between a class escape/],
    ["(", /is not a valid regular expression/],
    ["a**", /is not a valid regular expression/],
  ])("refuses %s, saying why", (source, problem) => {
    expect(problemOf(source)).toMatch(problem);
  });

  it("refuses a pattern over its size limits, counted repetitions counted whole", () => {
    expect(problemOf("a".repeat(ARG_PATTERN_LIMITS.sourceChars + 1))).toMatch(/longer than 1000 chars/);
    expect(problemOf("(?:ab){200}")).toMatch(/compiles to 401 instructions, over the 256/);
    expect(problemOf("a{99999999999}")).toMatch(/compiles to .* instructions, over the 256/);
    expect(problemOf("(?:ab){100}")).toBeUndefined();
  });

  it("reads JavaScript's escapes and classes as RegExp does, over every UTF-16 code unit", () => {
    for (const source of [
      "\\s",
      "\\S",
      "\\w",
      "\\W",
      "\\d",
      "\\D",
      ".",
      "[^\\s\\d]",
      "[\\b]",
      "\\x41",
      "\\u00e9",
    ]) {
      const pattern = compiled(source);
      const native = new RegExp(source);
      for (let code = 0; code <= 0xffff; code++) {
        const value = String.fromCharCode(code);
        if (pattern.test(value) !== native.test(value))
          throw new Error(`${source} on U+${code.toString(16)}: ${!native.test(value)}`);
      }
    }
  });
});

const CHARS = ["a", "b", "x", "-", "0", "7", " ", "_", "\n", ".", "é", "A"];

/** Sources of the subset, over a small alphabet so that values often match. */
const sourceArbitrary: fc.Arbitrary<string> = fc.letrec<{ choice: string; sequence: string; term: string }>(
  (tie) => ({
    choice: fc.array(tie("sequence"), { minLength: 1, maxLength: 3 }).map((items) => items.join("|")),
    sequence: fc.array(tie("term"), { minLength: 1, maxLength: 4 }).map((items) => items.join("")),
    term: fc.oneof(
      { depthSize: "small" },
      fc.constantFrom("^", "$", "\\b", "\\B"),
      fc
        .tuple(
          fc.oneof(
            { depthSize: "small" },
            fc.constantFrom("a", "b", "x", "-", "0", " ", "_", "é", "."),
            fc.constantFrom(
              "\\d",
              "\\D",
              "\\w",
              "\\W",
              "\\s",
              "\\S",
              "\\.",
              "\\-",
              "\\n",
              "\\x61",
              "\\u0062",
            ),
            fc
              .tuple(
                fc.boolean(),
                fc.boolean(),
                fc.array(fc.constantFrom("a", "b-x", "0-9", "\\d", "\\s", "\\b", "_", "\\]", "A-Z", "\\-"), {
                  maxLength: 3,
                }),
              )
              // A "-" first only: after a class escape it would make the range the subset refuses.
              .map(([negated, dash, items]) => `[${negated ? "^" : ""}${dash ? "-" : ""}${items.join("")}]`),
            fc
              .tuple(fc.constantFrom("(", "(?:", "(?<g>"), tie("choice"))
              .map(([open, inner]) => `${open}${inner})`),
          ),
          fc.constantFrom("", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}", "{1,3}?"),
        )
        .map(([atom, quantifier]) => atom + quantifier),
    ),
  }),
).choice;

const valueArbitrary = fc.array(fc.constantFrom(...CHARS), { maxLength: 10 }).map((chars) => chars.join(""));

describe("the matcher against RegExp", () => {
  it("accepts every source of the subset and matches exactly the values RegExp matches", () => {
    fc.assert(
      fc.property(
        sourceArbitrary,
        fc.array(valueArbitrary, { minLength: 1, maxLength: 8 }),
        (source, values) => {
          let native: RegExp;
          try {
            native = new RegExp(source);
          } catch {
            // A duplicate group name, which RegExp refuses: so does the compiler.
            expect(problemOf(source)).toMatch(/not a valid regular expression/);
            return;
          }
          const pattern = compileArgPattern(source);
          if ("problem" in pattern) {
            // Only the size limit refuses a valid source of the subset.
            expect(pattern.problem).toMatch(/instructions, over the 256/);
            return;
          }
          for (const value of values)
            expect(pattern.test(value), JSON.stringify(value)).toBe(native.test(value));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
