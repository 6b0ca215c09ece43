import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { anthropicPairingProblems } from "#test/assembler/fixtures/anthropic-pairing";
import {
  digestPickArbitrary,
  digestsFor,
  renderAnthropic,
  threadSpecArbitrary,
} from "#test/assembler/fixtures/provider-thread";
import type { AssembleOptions } from "../../assemble";
import { type AnthropicMessageLike, anthropicToNeutral, assembleAnthropicView } from "./anthropic-adapter";

const NUM_RUNS = process.env.CI ? 500 : 150;

const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc.record({
  recencyKeepExchanges: fc.nat({ max: 3 }),
  historyBudgetChars: fc.oneof(fc.constant(undefined), fc.integer({ min: 200, max: 8_000 })),
  inline: fc.boolean(),
  disabled: fc.constant(false),
});

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

type Block = Record<string, unknown> & { type: string };

function blocks(message: AnthropicMessageLike): Block[] {
  return Array.isArray(message.content) ? (message.content as Block[]) : [];
}

describe("Anthropic adapter properties", () => {
  it("without cleaning, answers with the very same message objects (deep-equal too)", () => {
    fc.assert(
      fc.property(threadSpecArbitrary, (spec) => {
        const thread = deepFreeze(renderAnthropic(spec)) as unknown as AnthropicMessageLike[];
        const { messages } = assembleAnthropicView(thread, null, {
          inline: false,
          disabled: false,
          cacheBreakpoints: false,
        });
        expect(messages).toHaveLength(thread.length);
        messages.forEach((message, index) => {
          expect(message).toBe(thread[index]);
        });
        expect(messages).toEqual(renderAnthropic(spec));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("keeps tool-call pairing, ids and untouched blocks whatever it condenses or drops", () => {
    const seen = { substitutions: 0, stubs: 0, compactions: 0, rebuiltMixed: 0 };
    fc.assert(
      fc.property(threadSpecArbitrary, digestPickArbitrary, optionsArbitrary, (spec, pick, options) => {
        const thread = deepFreeze(renderAnthropic(spec)) as unknown as AnthropicMessageLike[];
        const digests = digestsFor(anthropicToNeutral(thread), pick);
        const { messages, report } = assembleAnthropicView(thread, digests, {
          ...options,
          cacheBreakpoints: false,
        });
        seen.substitutions += report.substitutions;
        seen.stubs += report.stubs.duplicate + report.stubs.errorRetry;
        seen.compactions += report.compaction.fired ? 1 : 0;

        expect(anthropicPairingProblems(messages)).toEqual([]);
        const inputs = new Set(thread);
        const allInputBlocks = new Set(thread.flatMap(blocks));
        const resultIds = (list: readonly AnthropicMessageLike[]) =>
          list
            .flatMap(blocks)
            .filter((block) => block.type === "tool_result")
            .map((block) => block.tool_use_id);
        // Results are only replaced or dropped with their whole exchange, never reordered.
        const kept = resultIds(messages);
        const all = resultIds(thread);
        expect(kept).toEqual(all.filter((id) => kept.includes(id)));
        if (!report.compaction.fired) expect(kept).toEqual(all);

        for (const message of messages) {
          if (inputs.has(message)) continue;
          if (typeof message.content === "string") {
            expect(message.role).toBe("user");
            continue;
          }
          for (const block of blocks(message)) {
            if (allInputBlocks.has(block)) continue;
            // A replaced tool_result: a copy of an input block with new text, same id and flags.
            expect(block.type).toBe("tool_result");
            const source = [...allInputBlocks].find(
              (candidate) => candidate.type === "tool_result" && candidate.tool_use_id === block.tool_use_id,
            );
            expect(source).toBeDefined();
            expect({ ...block, content: undefined }).toEqual({ ...source, content: undefined });
            expect(typeof block.content).toBe("string");
          }
          if (blocks(message).some((block) => block.type === "text")) seen.rebuiltMixed++;
        }
      }),
      { numRuns: NUM_RUNS },
    );
    // The generator must reach every path it claims to check.
    expect(seen.substitutions).toBeGreaterThan(0);
    expect(seen.stubs).toBeGreaterThan(0);
    expect(seen.compactions).toBeGreaterThan(0);
    expect(seen.rebuiltMixed).toBeGreaterThan(0);
  });
  it("adds at most two breakpoints, within four in all, and changes nothing else", () => {
    fc.assert(
      fc.property(threadSpecArbitrary, digestPickArbitrary, optionsArbitrary, (spec, pick, options) => {
        const thread = deepFreeze(renderAnthropic(spec)) as unknown as AnthropicMessageLike[];
        const digests = digestsFor(anthropicToNeutral(thread), pick);
        const off = assembleAnthropicView(thread, digests, { ...options, cacheBreakpoints: false });
        const on = assembleAnthropicView(thread, digests, options);
        const ours = on.cacheBreakpoints.filter((mark) => mark.kind !== "caller");
        expect(ours.length).toBeLessThanOrEqual(2);
        expect(on.cacheBreakpoints.length).toBeLessThanOrEqual(Math.max(4, off.cacheBreakpoints.length));
        expect(on.messages).toHaveLength(off.messages.length);
        on.messages.forEach((message, index) => {
          const marks = ours.filter((mark) => mark.message === index);
          const before = off.messages[index] as AnthropicMessageLike;
          if (marks.length === 0) {
            // An input message stays the same object; a rebuilt one is rebuilt alike.
            if (thread.includes(before)) expect(message).toBe(before);
            else expect(message).toEqual(before);
            return;
          }
          const mark = marks[0] as { block: number };
          const block = blocks(message)[mark.block] as Block;
          expect(block.type).not.toMatch(/thinking/);
          expect(block.cache_control).toEqual({ type: "ephemeral" });
          // Without the breakpoint, the message is the one the view would send.
          const stripped = blocks(message).map((other, at) => {
            if (at !== mark.block) return other;
            const { cache_control: _mark, ...rest } = other;
            return rest;
          });
          const expected =
            typeof before.content === "string" ? [{ type: "text", text: before.content }] : before.content;
          expect(stripped).toEqual(expected);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
