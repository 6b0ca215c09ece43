import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { threadWithDigestsArbitrary } from "#test/assembler/fixtures/thread-arbitrary";
import { type AssembleOptions, assembleModelView } from "./assemble";
import { canonicalJson } from "./contract/hash";
import { createToolPolicy } from "./policy";
import type { CacheContext } from "./steps/cache-policy";
import { inlineStubs } from "./steps/inline-clean";
import type { DigestMap, Message } from "./types";

/** Runs per property: `PROPERTY_RUNS` when set; otherwise 200 locally and 1,000 in CI. */
const NUM_RUNS = (() => {
  const fromEnvironment = Number(process.env.PROPERTY_RUNS);
  const requested = Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : undefined;
  return process.env.CI ? Math.max(1_000, requested ?? 1_000) : (requested ?? 200);
})();

const policy = createToolPolicy();

const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc.record({
  recencyKeepExchanges: fc.nat({ max: 3 }),
  historyBudgetChars: fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 6_000 }) },
  ),
  inline: fc.boolean(),
});

const cacheArbitrary = fc.record({
  idleMs: fc.oneof(fc.constant(undefined), fc.constant(1_000), fc.constant(3_600_000)),
  expectedCalls: fc.oneof(fc.constant(undefined), fc.nat({ max: 40 })),
});

/** The byte-exact prompt a view sends (the neutral model's JSON, keys sorted). */
function bytes(messages: readonly Message[]): string[] {
  return messages.map((message) => canonicalJson(message));
}

/** The prompt lengths of the thread's last turn: up to its user message, then before each later assistant message, then all. */
function turnPrompts(messages: readonly Message[]): number[] {
  let user = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === "user") {
      user = index;
      break;
    }
  }
  const lengths = [user + 1];
  for (let index = user + 2; index < messages.length; index++) {
    if (messages[index]?.role === "assistant") lengths.push(index);
  }
  if (lengths.at(-1) !== messages.length) lengths.push(messages.length);
  return lengths.filter((length) => length > 0);
}

function assemble(messages: readonly Message[], digests: DigestMap, options: AssembleOptions) {
  return assembleModelView(messages, digests, { ...options, disabled: false, policy });
}

describe("cache-aware assembly properties", () => {
  it("identical inputs, cache context included, give byte-identical views and ledgers on fresh objects", () => {
    fc.assert(
      fc.property(
        threadWithDigestsArbitrary,
        optionsArbitrary,
        cacheArbitrary,
        fc.boolean(),
        ({ messages, digests }, options, cache, turnStart) => {
          const context: CacheContext = { turnStart, ...cache, shown: [] };
          const first = assemble(messages, digests, { ...options, cache: context });
          const shown = first.report.ledger.condensedIds;
          const again = assemble(structuredClone(messages), new Map(digests), {
            ...options,
            cache: { ...context, shown: [...first.report.ledger.condensedIds] },
          });
          const twice = assemble(messages, digests, { ...options, cache: { ...context, shown } });
          expect(bytes(again.messages)).toEqual(bytes(twice.messages));
          expect(again.report).toEqual(twice.report);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("mid-turn calls never change a message before the previous view's end but in a watermark batch (a turn opens with a user message)", () => {
    fc.assert(
      fc.property(
        threadWithDigestsArbitrary,
        optionsArbitrary,
        cacheArbitrary,
        ({ messages, digests }, options, cache) => {
          fc.pre(messages.some((message) => message.role === "user"));
          let previous: { view: readonly Message[]; shown: string[] } | undefined;
          for (const [call, length] of turnPrompts(messages).entries()) {
            const { messages: view, report } = assemble(messages.slice(0, length), digests, {
              ...options,
              cache: { turnStart: call === 0, ...cache, ...(previous ? { shown: previous.shown } : {}) },
            });
            if (previous && report.ledger.batch.reason === "watermark") {
              // A watermark batch lands only past the budget, on results of the turn before its latest exchange.
              expect(report.ledger.batch.status).toBe("applied");
              expect(report.rawChars - report.ledger.batch.charsSaved).toBeGreaterThan(0);
              const prompt = messages.slice(0, length);
              const latest = view.findLastIndex((message) => message.role === "assistant");
              const latestInPrompt = prompt.findLastIndex((message) => message.role === "assistant");
              expect(bytes(view.slice(latest))).toEqual(bytes(prompt.slice(latestInPrompt)));
            } else if (previous) {
              expect(bytes(view.slice(0, previous.view.length))).toEqual(bytes(previous.view));
              expect(report.ledger.batch.status).not.toBe("applied");
              expect(report.ledger.prefixKeptMessages).toBe(length);
            }
            previous = { view, shown: report.ledger.condensedIds };
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("a duplicate stub's text never changes as the thread grows", () => {
    fc.assert(
      fc.property(threadWithDigestsArbitrary, fc.nat(), ({ messages }, cut) => {
        const stubsOf = (thread: readonly Message[]) =>
          new Map(
            inlineStubs({ messages: thread, cleanable: () => true, policy })
              .filter((stub) => stub.category === "duplicate")
              .map((stub) => [stub.index, stub.text]),
          );
        const prefix = stubsOf(messages.slice(0, cut % (messages.length + 1)));
        const whole = stubsOf(messages);
        for (const [index, text] of prefix) expect(whole.get(index)).toBe(text);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
