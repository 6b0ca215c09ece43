import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitThreadMessages } from "./message-splitter";

/** Runs per property: `PROPERTY_RUNS` when set; otherwise 200 locally and 1,000 in CI (`CI` set). */
const NUM_RUNS = (() => {
  const fromEnvironment = Number(process.env.PROPERTY_RUNS);
  const requested = Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : undefined;
  return process.env.CI ? Math.max(1_000, requested ?? 1_000) : (requested ?? 200);
})();

async function* chunked(text: string, cuts: readonly number[]): AsyncGenerator<string> {
  let start = 0;
  for (const cut of [...cuts].map((value) => value % (text.length + 1)).sort((a, b) => a - b)) {
    yield text.slice(start, cut);
    start = cut;
  }
  yield text.slice(start);
}

/** What JSON.parse makes of the text, in the splitter's terms. */
function expected(text: string) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(parsed)) return { wrapped: false, messages: parsed };
  if (
    parsed !== null &&
    typeof parsed === "object" &&
    Array.isArray((parsed as { messages?: unknown }).messages)
  )
    return { wrapped: true, messages: (parsed as { messages: unknown[] }).messages };
  return undefined;
}

const message = fc.record({
  role: fc.constantFrom("user", "assistant", "tool"),
  content: fc.oneof(
    fc.string({ unit: "binary" }),
    fc.array(fc.record({ type: fc.constant("text"), text: fc.string() })),
  ),
  toolCalls: fc.option(fc.array(fc.record({ id: fc.string(), name: fc.string(), args: fc.jsonValue() })), {
    nil: undefined,
  }),
});

const layout = fc.oneof(
  fc.array(message).map((messages) => messages as unknown),
  fc.record({ messages: fc.array(message) }),
  fc.record({ version: fc.jsonValue(), messages: fc.array(message), tail: fc.jsonValue() }),
  fc.jsonValue(),
);

const spacing = fc.constantFrom(undefined, 0, 2, "\t", " \r\n ");

describe("splitThreadMessages", () => {
  it("gives the messages JSON.parse gives, whatever the layout, spacing and chunking", async () => {
    await fc.assert(
      fc.asyncProperty(layout, spacing, fc.array(fc.nat()), async (value, space, cuts) => {
        const text = JSON.stringify(value, null, space as string | number | undefined);
        expect(await splitThreadMessages(chunked(text, cuts))).toEqual(expected(text));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("never accepts text JSON.parse refuses, and agrees on what it accepts", async () => {
    const mutated = fc
      .tuple(
        layout,
        fc.nat(),
        fc.constantFrom("", ",", "]", "}", '"', "\\", "x", "[", "{", ":", " "),
        fc.nat(),
        fc.array(fc.nat()),
      )
      .map(([value, at, insert, cut, cuts]) => {
        const text = JSON.stringify(value);
        const position = at % (text.length + 1);
        const deleted = cut % 3;
        return { text: text.slice(0, position) + insert + text.slice(position + deleted), cuts };
      });
    await fc.assert(
      fc.asyncProperty(mutated, async ({ text, cuts }) => {
        expect(await splitThreadMessages(chunked(text, cuts))).toEqual(expected(text));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each([
    ['{ "messages": [], "messages": [{ "role": "user" }] }', { wrapped: true, messages: [{ role: "user" }] }],
    ['{ "thread": [] }', undefined],
    ['{ "messages": null }', undefined],
    ["[1, 2] 3", undefined],
    ["[1, 2,]", undefined],
    ["", undefined],
  ])("%s", async (text, result) => {
    expect(await splitThreadMessages(chunked(text, []))).toEqual(result);
  });
});
