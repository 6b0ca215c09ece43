import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  digestMapArbitrary,
  threadArbitrary,
  threadWithDigestsArbitrary,
} from "#test/assembler/fixtures/thread-arbitrary";
import { type AssembledView, type AssembleOptions, type AssemblyReport, assembleModelView } from "./assemble";
import { canonicalJson, contentSha256 } from "./contract/hash";
import { messageChars } from "./contract/message-chars";
import { BUDGET_STUB_PREFIX, COMPACTION_NOTE_PREFIX, figuresOnlyDigest } from "./contract/stubs";
import { createToolPolicy } from "./policy";
import { isErrorResult } from "./rules/error-retry";
import { recencyWallStart } from "./rules/keep-rules";
import { compactHistory } from "./steps/backstop/compact-history";
import { protectMessages } from "./steps/protect";
import { indexUnits } from "./thread/exchange-units";
import type { DigestMap, Message, ToolCall, ToolMessage } from "./types";

/**
 * Runs per property: `PROPERTY_RUNS` when set; otherwise 200 locally and 1,000 in CI
 * (`CI` set). CI never runs fewer than 1,000.
 */
const NUM_RUNS = (() => {
  const fromEnvironment = Number(process.env.PROPERTY_RUNS);
  const requested = Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : undefined;
  return process.env.CI ? Math.max(1_000, requested ?? 1_000) : (requested ?? 200);
})();

const policy = createToolPolicy();

/** Options that sometimes squeeze the history budget so the backstop fires. */
const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc.record({
  recencyKeepExchanges: fc.oneof(fc.constant(3), fc.nat({ max: 4 })),
  historyBudgetChars: fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: fc.integer({ min: 1, max: 6_000 }) },
  ),
  snippetChars: fc.oneof(fc.constant(undefined), fc.integer({ min: 20, max: 300 })),
  noteMaxChars: fc.oneof(fc.constant(undefined), fc.integer({ min: 200, max: 2_000 })),
  inline: fc.integer({ min: 0, max: 5 }).map((n) => n !== 0),
});

const caseArbitrary = fc.record({ thread: threadWithDigestsArbitrary, options: optionsArbitrary });

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}

function freezeCase(messages: Message[], digests: DigestMap): void {
  deepFreeze(messages);
  for (const entry of digests.values()) deepFreeze(entry);
}

function assemble(messages: readonly Message[], digests: DigestMap | null, options: AssembleOptions) {
  return assembleModelView(messages, digests, { ...options, disabled: false, policy });
}

function isNote(message: Message): boolean {
  return (
    message.role === "user" &&
    typeof message.content === "string" &&
    message.content.startsWith(COMPACTION_NOTE_PREFIX)
  );
}

/**
 * Aligns the view with its input: for each view message, the input index it stands for,
 * or -1 for the backstop's note. Untouched messages match by identity, replaced tool
 * results by their tool call id.
 */
/**
 * The latest assistant message before the thread's latest user message (the latest one when
 * there is no user message); -1 when there is none: what the backstop keeps beside the wall.
 */
function latestAssistantBeforeLatestUser(messages: readonly Message[]): number {
  let end = messages.length;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]?.role === "user") {
      end = index;
      break;
    }
  }
  for (let index = end - 1; index >= 0; index--) if (messages[index]?.role === "assistant") return index;
  return -1;
}

function align(input: readonly Message[], view: readonly Message[]): number[] {
  const inputSet = new Set(input);
  const aligned: number[] = [];
  let cursor = 0;
  for (const message of view) {
    if (!inputSet.has(message) && isNote(message)) {
      aligned.push(-1);
      continue;
    }
    const matches = (candidate: Message | undefined) =>
      candidate === message ||
      (candidate?.role === "tool" &&
        message.role === "tool" &&
        !inputSet.has(message) &&
        candidate.toolCallId === message.toolCallId &&
        candidate.toolName === message.toolName);
    while (cursor < input.length && !matches(input[cursor])) cursor++;
    if (cursor === input.length)
      throw new Error(`view message has no input counterpart: ${JSON.stringify(message)}`);
    aligned.push(cursor++);
  }
  return aligned;
}

/** Every assistant tool call is followed by exactly one result per call, in order; no stray results. */
function expectPairing(view: readonly Message[]): void {
  let index = 0;
  while (index < view.length) {
    const message = view[index] as Message;
    expect(message.role, `stray tool result at ${index}`).not.toBe("tool");
    index++;
    if (message.role !== "assistant" || !message.toolCalls) continue;
    for (const call of message.toolCalls) {
      const result = view[index];
      expect(result?.role, `result of ${call.id} at ${index}`).toBe("tool");
      expect((result as ToolMessage).toolCallId).toBe(call.id);
      expect((result as ToolMessage).toolName).toBe(call.name);
      index++;
    }
  }
}

/** Input index ranges of whole exchanges: an assistant message and its results. */
function exchanges(messages: readonly Message[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") ranges.push([index, index + 1 + (message.toolCalls?.length ?? 0)]);
  });
  return ranges;
}

function withoutContent(message: Message): Record<string, unknown> {
  const { content: _content, ...rest } = message;
  return rest;
}

function expectSameView(first: readonly Message[], second: readonly Message[]): void {
  expect(second.length).toBe(first.length);
  second.forEach((message, index) => {
    expect(message).toBe(first[index]);
  });
}

/**
 * Odd but valid threads: a few messages moved elsewhere (results before their calls, calls
 * without results) and call ids reused across exchanges.
 */
const scrambleArbitrary = fc.record({
  moves: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 2 }),
  sharedIds: fc.array(fc.tuple(fc.nat({ max: 30 }), fc.nat({ max: 30 })), { maxLength: 2 }),
});

function scrambled(
  thread: readonly Message[],
  scramble: typeof scrambleArbitrary extends fc.Arbitrary<infer S> ? S : never,
): Message[] {
  const rename = new Map(scramble.sharedIds.map(([from, to]) => [`call_${from}`, `call_${to}`]));
  const messages = structuredClone(thread as Message[]).map((message): Message => {
    if (message.role === "tool")
      return { ...message, toolCallId: rename.get(message.toolCallId) ?? message.toolCallId };
    if (message.role !== "assistant" || !message.toolCalls) return message;
    return {
      ...message,
      toolCalls: message.toolCalls.map((call) => ({ ...call, id: rename.get(call.id) ?? call.id })),
    };
  });
  for (const [from, to] of scramble.moves) {
    if (messages.length === 0) break;
    const [moved] = messages.splice(from % messages.length, 1);
    messages.splice(to % (messages.length + 1), 0, moved as Message);
  }
  return messages;
}

describe(`assembleModelView properties (${NUM_RUNS} runs each)`, () => {
  it("1. never throws on well-formed input", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        assemble(thread.messages, thread.digests, options);
        assemble(thread.messages, null, options);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("2. never mutates its input (deep-frozen, compared with a clone taken before)", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const before = structuredClone({ messages: thread.messages, digests: thread.digests });
        freezeCase(thread.messages, thread.digests);
        assemble(thread.messages, thread.digests, options);
        assembleModelView(thread.messages, thread.digests, { ...options, disabled: true });
        expect({ messages: thread.messages, digests: thread.digests }).toEqual(before);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("3. pairing: every kept tool call keeps exactly one result, in order; compaction drops whole exchanges", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages } = thread;
        const { messages: view, report } = assemble(messages, thread.digests, options);
        expectPairing(view);

        const aligned = align(messages, view);
        const kept = new Set(aligned.filter((index) => index >= 0));
        const dropped = messages.map((_, index) => index).filter((index) => !kept.has(index));
        for (const [start, end] of exchanges(messages)) {
          const droppedHere = dropped.filter((index) => index >= start && index < end).length;
          expect([0, end - start], `exchange ${start}..${end} split`).toContain(droppedHere);
        }
        const wallStart = recencyWallStart(messages, options.recencyKeepExchanges);
        for (const index of dropped) {
          expect(messages[index]?.role).not.toBe("system");
          expect(index).toBeLessThan(wallStart);
        }
        const notes = aligned.filter((index) => index === -1).length;
        expect(notes).toBe(dropped.length > 0 ? 1 : 0);
        expect(report.compaction).toMatchObject({
          fired: dropped.length > 0 || report.compaction.condensedResults > 0,
          droppedMessages: dropped.length,
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("4. kill switch ≡ the history backstop alone (deep equal, same JSON bytes)", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages } = thread;
        const disabled = assembleModelView(messages, thread.digests, { ...options, disabled: true, policy });
        const backstop = compactHistory(
          messages,
          recencyWallStart(messages, options.recencyKeepExchanges),
          options,
        ).messages;
        expect(disabled.messages).toEqual(backstop);
        expect(JSON.stringify(disabled.messages)).toBe(JSON.stringify(backstop));
        disabled.messages.forEach((message, index) => {
          if (!isNote(message)) expect(message).toBe(backstop[index]);
        });
        expect(disabled.report.substitutions + disabled.report.stubs.duplicate).toBe(0);
        expect(disabled.report.stubs.errorRetry).toBe(0);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("5. substitution only on hash match, never of a protected message; stubs only where due", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages, digests } = thread;
        const { messages: view, report } = assemble(messages, digests, options);
        const protection = protectMessages(messages, policy, options.recencyKeepExchanges ?? 3);
        const aligned = align(messages, view);
        let condensedByBackstop = 0;
        view.forEach((message, viewIndex) => {
          const index = aligned[viewIndex] as number;
          if (index < 0) return;
          const original = messages[index] as Message;
          const row = original.role === "tool" ? digests.get(original.toolCallId) : undefined;
          if (message === original) {
            // Liveness: a cleanable result with a matching row does not stay raw (a failed
            // result is left to the error/retry rule).
            if (
              original.role === "tool" &&
              row &&
              protection.reasons[index] === undefined &&
              !isErrorResult(original)
            ) {
              expect(row.contentSha256, `raw ${original.toolCallId} despite a matching row`).not.toBe(
                contentSha256(original.content),
              );
            }
            return;
          }
          expect(original.role).toBe("tool");
          expect(withoutContent(message)).toEqual(withoutContent(original));
          const text = message.content as string;
          // The backstop condenses results before the wall to their matching digest (or,
          // further past the budget, its figures-only form) or a stub naming their re-read
          // call: any protected one, and unprotected ones the cleaning left raw (those get
          // the stub: a matching row was substituted already).
          const condensedStub = text.startsWith(BUDGET_STUB_PREFIX);
          if (protection.reasons[index] !== undefined || condensedStub) {
            expect(isErrorResult(original as ToolMessage), "a failed result condensed").toBe(false);
            condensedByBackstop++;
            expect(index, `protected message ${index} replaced inside the wall`).toBeLessThan(
              recencyWallStart(messages, options.recencyKeepExchanges),
            );
            if (condensedStub) {
              const call = messages
                .flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []))
                .find((c) => c.id === (original as ToolMessage).toolCallId);
              expect(call).toBeDefined();
              expect(text).toContain(`${call?.name}(`);
            } else {
              const figuresOnly = row
                ? figuresOnlyDigest(row.digest, (original as ToolMessage).toolCallId)
                : undefined;
              if (text !== figuresOnly) expect(text).toBe(row?.digest);
              expect(row?.contentSha256).toBe(contentSha256(original.content));
            }
            return;
          }
          if (text.startsWith("[Duplicate result")) {
            const source = original as ToolMessage;
            const call = (messages as Message[])
              .flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []))
              .find((c) => c.id === source.toolCallId);
            const later = messages.slice(index + 1).find((candidate) => {
              if (candidate.role !== "tool" || candidate.toolName !== source.toolName) return false;
              if (!text.includes(`tool call ${candidate.toolCallId} `)) return false;
              const laterCall = messages
                .flatMap((m) => (m.role === "assistant" ? (m.toolCalls ?? []) : []))
                .find((c) => c.id === candidate.toolCallId);
              return (
                canonicalJson(laterCall?.args) === canonicalJson(call?.args) &&
                contentSha256(candidate.content) === contentSha256(source.content)
              );
            });
            expect(
              later,
              `duplicate stub of ${source.toolCallId} names no later identical result`,
            ).toBeDefined();
          } else if (text.startsWith("[Transient error")) {
            const source = original as ToolMessage;
            expect(isErrorResult(source)).toBe(true);
            const retried = messages
              .slice(index + 1)
              .some((m) => m.role === "tool" && m.toolName === source.toolName && !isErrorResult(m));
            expect(retried, `error stub of ${source.toolCallId} without a later success`).toBe(true);
          } else {
            expect(row, `replaced ${(original as ToolMessage).toolCallId} without a row`).toBeDefined();
            // The digest, or (by the backstop, past the budget) its figures-only form.
            const figuresOnly = row
              ? figuresOnlyDigest(row.digest, (original as ToolMessage).toolCallId)
              : undefined;
            if (text === figuresOnly) condensedByBackstop++;
            else expect(text).toBe(row?.digest);
            expect(row?.contentSha256).toBe(contentSha256(original.content));
          }
        });
        expect(condensedByBackstop).toBe(report.compaction.condensedResults);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("6. idempotence: assembling the assembled view changes nothing more", () => {
    const check = (messages: Message[], digests: DigestMap, options: AssembleOptions) => {
      const first = assemble(messages, digests, options);
      const second = assemble(first.messages, digests, options);
      expectSameView(first.messages, second.messages);
      expect(second.messages).toEqual(first.messages);
      expect(second.report.substitutions).toBe(0);
      expect(second.report.stubs).toEqual({ duplicate: 0, errorRetry: 0 });
      expect(second.report.compaction.fired).toBe(false);
      expect(second.report.stale).toBeLessThanOrEqual(first.report.stale);
      return { first, second };
    };
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        check(thread.messages, thread.digests, options);
        // With only correct rows, a second pass finds nothing stale either.
        const correct = new Map(
          [...thread.digests].filter(([id, entry]) =>
            thread.messages.some(
              (m) =>
                m.role === "tool" && m.toolCallId === id && contentSha256(m.content) === entry.contentSha256,
            ),
          ),
        );
        const { first, second } = check(thread.messages, correct, options);
        expect(first.report.stale).toBe(0);
        expect(second.report.stale).toBe(0);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("7. untouched messages keep their object identity", () => {
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages } = thread;
        const { messages: view } = assemble(messages, thread.digests, options);
        const aligned = align(messages, view);
        view.forEach((message, viewIndex) => {
          const index = aligned[viewIndex] as number;
          if (index < 0 || message === messages[index]) return;
          // A new object only where the content really changed.
          expect(isDeepStrictEqual(message.content, messages[index]?.content)).toBe(false);
        });
        const untouched = assemble(messages, null, { ...options, inline: false });
        if (!untouched.report.compaction.fired) {
          untouched.messages.forEach((message, index) => {
            expect(message).toBe(messages[index]);
          });
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("8. the report's assembledChars equals the chars of the returned messages", () => {
    const total = (view: readonly Message[]) => view.reduce((sum, message) => sum + messageChars(message), 0);
    const expectReport = (report: AssemblyReport, view: readonly Message[], input: readonly Message[]) => {
      expect(report.assembledChars).toBe(total(view));
      expect(report.rawChars).toBe(total(input));
      expect(report.messages).toBe(input.length);
    };
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages } = thread;
        const enabled = assemble(messages, thread.digests, options);
        expectReport(enabled.report, enabled.messages, messages);
        const disabled = assembleModelView(messages, thread.digests, { ...options, disabled: true });
        expectReport(disabled.report, disabled.messages, messages);
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("9. the view fits historyBudgetChars plus the wall's size at worst, and every call keeps exactly one result", () => {
    /** Per assistant message and call id of the view: calls made, and results answering them. */
    const expectEveryCallAnswered = (view: readonly Message[]) => {
      const calls = new Map<string, number>();
      const results = new Map<string, number>();
      const latestCaller = new Map<string, number>();
      view.forEach((message, index) => {
        if (message.role === "assistant") {
          for (const call of message.toolCalls ?? []) {
            latestCaller.set(call.id, index);
            const key = `${index}\u0000${call.id}`;
            calls.set(key, (calls.get(key) ?? 0) + 1);
          }
        } else if (message.role === "tool") {
          const caller = latestCaller.get(message.toolCallId);
          expect(caller, `result of ${message.toolCallId} at ${index} has no call`).toBeDefined();
          const key = `${caller}\u0000${message.toolCallId}`;
          results.set(key, (results.get(key) ?? 0) + 1);
        }
      });
      expect(results).toEqual(calls);
    };
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { messages, digests } = thread;
        const budget = options.historyBudgetChars ?? 320_000;
        const wallStart = recencyWallStart(messages, options.recencyKeepExchanges);
        for (const disabled of [false, true]) {
          const { messages: view, report } = assembleModelView(messages, digests, {
            ...options,
            disabled,
            policy,
          });
          expectEveryCallAnswered(view);
          const size = view.reduce((sum, message) => sum + messageChars(message), 0);
          // The wall, with what the backstop never removes besides it: system messages, notes
          // and the exchange of the latest assistant message before the latest user message.
          const aligned = align(messages, view);
          const units = indexUnits(messages);
          const latest = latestAssistantBeforeLatestUser(messages);
          const latestUnit = new Set(latest < 0 ? [] : units.members(units.unitOf(latest)));
          const wallChars = view.reduce((sum, message, viewIndex) => {
            const index = aligned[viewIndex] as number;
            const kept =
              index < 0 || index >= wallStart || message.role === "system" || latestUnit.has(index);
            return kept ? sum + messageChars(message) : sum;
          }, 0);
          // The worst case: the history besides the wall and the latest exchange kept within
          // the budget on its own, with them beside it (the backstop never cuts history for
          // what no cut can make fit).
          const wallOnly = view.reduce((sum, message, viewIndex) => {
            const index = aligned[viewIndex] as number;
            return index >= wallStart ? sum + messageChars(message) : sum;
          }, 0);
          const latestOnly = view.reduce((sum, message, viewIndex) => {
            const index = aligned[viewIndex] as number;
            return index < wallStart && latestUnit.has(index) ? sum + messageChars(message) : sum;
          }, 0);
          expect(size).toBeLessThanOrEqual(Math.max(budget, wallChars, budget + wallOnly + latestOnly));
          expect(report.compaction.wallExceedsBudget).toBe(size > budget);
          if (report.compaction.latestExchangeExceedsBudget) {
            expect(size).toBeGreaterThan(budget);
            expect(wallOnly).toBeLessThanOrEqual(budget);
            expect(wallOnly + latestOnly).toBeGreaterThan(budget);
          }
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("10. assembling prefixes first, then the whole thread (reusing what they kept), equals a fresh assembly", () => {
    /** The thread assembled on new objects: nothing kept from earlier calls applies. */
    const fresh = (messages: readonly Message[], digests: DigestMap | null, options: AssembleOptions) =>
      assemble(structuredClone(messages as Message[]), digests, options);
    const expectSame = (warm: AssembledView, cold: AssembledView) => {
      expect(JSON.stringify(warm.messages)).toBe(JSON.stringify(cold.messages));
      expect(warm.report).toEqual(cold.report);
    };
    const stepArbitrary = fc.record({ cut: fc.nat(), options: optionsArbitrary, digests: fc.boolean() });
    fc.assert(
      fc.property(
        caseArbitrary,
        scrambleArbitrary,
        fc.oneof(fc.constant("every prefix" as const), fc.array(stepArbitrary, { maxLength: 4 })),
        ({ thread, options }, scramble, steps) => {
          const messages = scrambled(thread.messages, scramble);
          const { digests } = thread;
          freezeCase(messages, digests);
          // Earlier calls of the "turn": growing prefixes, under other options and digests.
          const cuts =
            steps === "every prefix"
              ? messages.map((_, cut) => ({ cut, options, digests: true }))
              : steps
                  .map((step) => ({ ...step, cut: step.cut % (messages.length + 1) }))
                  .sort((a, b) => a.cut - b.cut);
          for (const step of cuts) {
            const prefix = messages.slice(0, step.cut);
            const earlier = assemble(prefix, step.digests ? digests : null, step.options);
            expectSame(earlier, fresh(prefix, step.digests ? digests : null, step.options));
          }
          expectSame(assemble(messages, digests, options), fresh(messages, digests, options));
          // A shorter thread after the whole one, then the whole one again.
          const shorter = messages.slice(0, cuts[0]?.cut ?? 0);
          expectSame(assemble(shorter, digests, options), fresh(shorter, digests, options));
          expectSame(assemble(messages, digests, options), fresh(messages, digests, options));
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("11. a message edited in place after an assembly is read again, as a fresh assembly reads it", () => {
    fc.assert(
      fc.property(
        caseArbitrary,
        fc.nat(),
        fc.nat(),
        fc.constantFrom("content", "blocks", "status", "args"),
        ({ thread, options }, at, from, edit) => {
          const messages = structuredClone(thread.messages);
          if (messages.length === 0) return;
          assemble(messages, thread.digests, options);
          const target = messages[at % messages.length] as Message;
          const donor = messages[from % messages.length] as Message;
          if (edit === "content") target.content = donor.content;
          else if (edit === "blocks" && typeof target.content !== "string" && target.content[0]) {
            (target.content[0] as { text?: string }).text = "Error: edited in place";
          } else if (edit === "status" && target.role === "tool") {
            target.status = target.status === "error" ? "success" : "error";
          } else if (edit === "args" && target.role === "assistant" && target.toolCalls?.[0]) {
            (target.toolCalls[0] as ToolCall).args = { file_id: "doc_edited", offset: 0 };
          }
          const warm = assemble(messages, thread.digests, options);
          const cold = assemble(structuredClone(messages), thread.digests, options);
          expect(JSON.stringify(warm.messages)).toBe(JSON.stringify(cold.messages));
          expect(warm.report).toEqual(cold.report);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it("the generators exercise what the properties are about", () => {
    const seen = { substitutions: 0, stale: 0, duplicate: 0, errorRetry: 0, compaction: 0, emptyIds: 0 };
    fc.assert(
      fc.property(caseArbitrary, ({ thread, options }) => {
        const { report } = assemble(thread.messages, thread.digests, options);
        seen.substitutions += report.substitutions;
        seen.stale += report.stale;
        seen.duplicate += report.stubs.duplicate;
        seen.errorRetry += report.stubs.errorRetry;
        seen.compaction += report.compaction.fired ? 1 : 0;
        seen.emptyIds += thread.messages.filter((m) => m.role === "tool" && m.toolCallId === "").length;
      }),
      { numRuns: 200, seed: 42 },
    );
    for (const [what, count] of Object.entries(seen)) expect(count, what).toBeGreaterThan(0);
    // digestMapArbitrary is usable on its own as well.
    fc.assert(
      fc.property(
        threadArbitrary.chain((messages) => digestMapArbitrary(messages)),
        (map) => map instanceof Map,
      ),
      { numRuns: 20 },
    );
  });
});
