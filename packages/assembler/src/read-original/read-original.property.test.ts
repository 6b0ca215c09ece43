import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { digestMapArbitrary, threadArbitrary } from "#test/assembler/fixtures/thread-arbitrary";
import { type AssembleOptions, assembleModelView, originalOfReplacement } from "../assemble";
import { contentText } from "../content";
import type { Message } from "../types";
import { readOriginal } from "./read-original";

const NUM_RUNS = process.env.CI ? 300 : 100;

/** The non-empty tool call ids of a thread's calls, in order. */
function callIds(messages: readonly Message[]): string[] {
  const ids = messages.flatMap((message) =>
    message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : [],
  );
  return [...new Set(ids.filter((id) => id !== ""))];
}

/**
 * The thread with some calls (and their results) renamed to the id of another call, as a
 * model or a framework that reuses ids writes them: each pick renames one id to another.
 */
function withSharedIds(messages: readonly Message[], picks: readonly number[]): Message[] {
  const ids = callIds(messages);
  const rename = new Map<string, string>();
  for (const pick of picks) {
    const from = ids[pick % ids.length] as string;
    const to = ids[Math.floor(pick / 7) % ids.length] as string;
    if (from !== to && !rename.has(to)) rename.set(from, to);
  }
  const renamed = (id: string) => rename.get(id) ?? id;
  return messages.map((message): Message => {
    if (message.role === "assistant" && message.toolCalls)
      return { ...message, toolCalls: message.toolCalls.map((call) => ({ ...call, id: renamed(call.id) })) };
    if (message.role === "tool") return { ...message, toolCallId: renamed(message.toolCallId) };
    return message;
  });
}

/** Per non-empty tool call id, the results carrying it. */
function resultsById(messages: readonly Message[]): Map<string, Message[]> {
  const byId = new Map<string, Message[]>();
  for (const message of messages) {
    if (message.role !== "tool" || message.toolCallId === "") continue;
    byId.set(message.toolCallId, [...(byId.get(message.toolCallId) ?? []), message]);
  }
  return byId;
}

const HANDLE = /read_original\(tool_call_id=("(?:[^"\\]|\\.)*")\)/g;

/** The tool call ids the `read_original` handles of a view name. */
function handleIds(view: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of view)
    for (const match of contentText(message.content).matchAll(HANDLE))
      ids.add(JSON.parse(match[1] as string));
  return ids;
}

const caseArbitrary = threadArbitrary
  .chain((thread) =>
    fc.record({
      messages: fc
        .array(fc.nat({ max: 1_000 }), { maxLength: 3 })
        .map((picks) => (callIds(thread).length < 2 ? thread : withSharedIds(thread, picks))),
      shownPicks: fc.array(fc.nat({ max: 60 }), { maxLength: 12 }),
    }),
  )
  .chain(({ messages, shownPicks }) =>
    fc.record({
      messages: fc.constant(messages),
      digests: digestMapArbitrary(messages),
      options: fc.record({
        recencyKeepExchanges: fc.nat({ max: 3 }),
        historyBudgetChars: fc.oneof(fc.constant(undefined), fc.integer({ min: 300, max: 8_000 })),
        inline: fc.boolean(),
        cache: fc.oneof(
          fc.constant<false>(false),
          fc.record({
            turnStart: fc.boolean(),
            idleMs: fc.constantFrom(undefined, 1_000),
            // Ids a previous view may have shown, empty and shared ones included.
            shown: fc.constant(["", ...callIds(messages)].filter((_, index) => shownPicks.includes(index))),
          }),
        ),
      }),
    }),
  );

describe("read_original and results without an id of their own (property)", () => {
  it("every handle a view names is one read_original answers with that result; no result sharing its id or with an empty id is condensed or listed", () => {
    let shared = 0;
    let handles = 0;
    fc.assert(
      fc.property(caseArbitrary, ({ messages, digests, options }) => {
        const byId = resultsById(messages);
        const isShared = (id: string) => (byId.get(id)?.length ?? 0) > 1;
        const assembleOptions: AssembleOptions = { ...options, disabled: false, readOriginal: true };
        const view = assembleModelView(messages, digests, assembleOptions);
        for (const id of handleIds(view.messages)) {
          const answer = readOriginal(messages, { tool_call_id: id });
          expect(answer.ok, `handle ${JSON.stringify(id)}: ${answer.ok ? "" : answer.error}`).toBe(true);
          expect(answer.ok && answer.content).toBe(
            contentText((byId.get(id) as Message[])[0]?.content ?? ""),
          );
          handles++;
        }
        for (const message of view.messages) {
          const original = originalOfReplacement(message);
          if (original?.role !== "tool") continue;
          expect(original.toolCallId).not.toBe("");
          expect(isShared(original.toolCallId), original.toolCallId).toBe(false);
        }
        for (const id of view.report.ledger.condensedIds) {
          expect(id).not.toBe("");
          expect(isShared(id), id).toBe(false);
        }
        if ([...byId.values()].some((results) => results.length > 1)) shared++;
      }),
      { numRuns: NUM_RUNS },
    );
    expect(shared).toBeGreaterThan(NUM_RUNS / 10);
    // Some views must name handles for the check to mean anything (a sum over runs, so a loose bound).
    expect(handles).toBeGreaterThan(NUM_RUNS / 10);
  });
});
