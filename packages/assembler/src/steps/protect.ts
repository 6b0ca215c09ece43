import type { ToolPolicy } from "../policy";
import { KEEP_REASONS, type KeepReason, recencyWallStart } from "../rules/keep-rules";
import { isSingleToken, windowText } from "../rules/window-references";
import type { ThreadFacts } from "../thread/thread-facts";
import type { ThreadIndex } from "../thread/thread-index";
import { indexedThreadOf, threadFactsOf } from "../thread/thread-state";
import type { Message } from "../types";

/** Which messages the keep-rules make untouchable, and why. */
export interface Protection {
  /** Index of the first message of the recency wall. */
  readonly wallStart: number;
  /** Per message index: the first keep-rule it matches, or undefined when it may be cleaned. */
  readonly reasons: readonly (KeepReason | undefined)[];
  /** The thread's tool calls by id, for callers that go on to clean the same thread. */
  readonly threadIndex: ThreadIndex;
  /** Indices of results the window mentions (by call id or document id), whatever rule keeps them. */
  readonly mentioned: ReadonlySet<number>;
}

/** The keep-rules' verdict on a thread for one recency wall, asked message by message. */
export interface WindowProtection {
  readonly wallStart: number;
  /** Results before the wall the window mentions (by call id or document id), whatever rule keeps them. */
  readonly mentioned: ReadonlySet<number>;
  /** Results before the wall no other rule keeps that the referenced-by-window keep-rule keeps. */
  readonly referenced: ReadonlySet<number>;
  /** Tool results a keep-rule other than `conversational` keeps. */
  readonly protectedResults: number;
  /** The first keep-rule the message at `index` matches, or undefined when it may be cleaned. */
  reasonAt(index: number): KeepReason | undefined;
}

/** Results before the wall the window names by a one-token key, or, for other keys, in its text. */
function mentionedResults(facts: ThreadFacts, wallStart: number, windowEnd: number): Set<number> {
  const { thread, keep } = facts;
  const mentioned = new Set<number>();
  for (let index = wallStart; index < windowEnd; index++) {
    for (const result of keep.mentionedBy(index, thread.messages[index] as Message)) {
      if (result >= wallStart) break;
      mentioned.add(result);
    }
  }
  let text: string | undefined;
  for (const result of keep.oddKeyResults) {
    if (result >= wallStart) break;
    if (mentioned.has(result)) continue;
    text ??= windowText(thread.messages.slice(wallStart, windowEnd), keep.isDocumentRead);
    const window = text;
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (facts.at(result)?.keys.some((key) => !isSingleToken(key) && window.includes(key)))
      mentioned.add(result);
  }
  return mentioned;
}

/**
 * Every result of a source the window mentions stays raw, not only the mentioned one: the
 * results before the wall that no other keep-rule keeps and the referenced-by-window one does.
 */
function referencedResults(
  facts: ThreadFacts,
  wallStart: number,
  mentioned: ReadonlySet<number>,
): Set<number> {
  const referenced = new Set<number>();
  const sources = new Set<string>();
  for (const result of mentioned) {
    const resultFacts = facts.at(result);
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (resultFacts?.reason === undefined) referenced.add(result);
    // Stryker disable next-line ConditionalExpression,OptionalChaining: equivalent — no source lists members under `undefined`; every result has its facts
    if (resultFacts?.source !== undefined) sources.add(resultFacts.source);
  }
  for (const source of sources) {
    for (const result of facts.keep.sourceMembers(source)) {
      if (result >= wallStart) break;
      // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
      if (facts.at(result)?.reason === undefined) referenced.add(result);
    }
  }
  return referenced;
}

/**
 * Evaluates every keep-rule (docs/architecture.md#keep-rules) for the recency wall at
 * `wallStart`, from facts kept across calls: the cost is the window's, not the thread's.
 * Only the window's messages before `windowEnd` refer to results (a cache-aware assembly
 * passes the end of the turn's user message, so what the turn itself names counts from
 * the next turn on).
 */
export function protectWindow(
  facts: ThreadFacts,
  wallStart: number,
  windowEnd: number = facts.thread.length,
): WindowProtection {
  const mentioned = mentionedResults(facts, wallStart, Math.min(windowEnd, facts.thread.length));
  const referenced = referencedResults(facts, wallStart, mentioned);
  const { keep, thread } = facts;
  const resultsInWall = keep.resultsBefore(thread.length) - keep.resultsBefore(wallStart);
  return {
    wallStart,
    mentioned,
    referenced,
    protectedResults: resultsInWall + keep.keptBefore(wallStart) + referenced.size,
    reasonAt(index) {
      // Stryker disable next-line OptionalChaining: equivalent — asked for messages of the thread only
      if (thread.messages[index]?.role !== "tool") return KEEP_REASONS.conversational;
      if (index >= wallStart) return KEEP_REASONS.recencyWall;
      // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
      const reason = facts.at(index)?.reason;
      if (reason !== undefined) return reason;
      return referenced.has(index) ? KEEP_REASONS.referencedByWindow : undefined;
    },
  };
}

/**
 * Evaluates every keep-rule (docs/architecture.md#keep-rules) over a thread. The worker's
 * classification and the assembler both call this: one implementation of "never junk".
 * `wallStart` moves the recency wall elsewhere (the worker classifies with the wall of the
 * next turn, `nextTurnWallStart`).
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 */
export function protectMessages(
  messages: readonly Message[],
  policy: ToolPolicy,
  recencyKeepExchanges: number,
  wallStart: number = recencyWallStart(messages, recencyKeepExchanges),
): Protection {
  const thread = indexedThreadOf(messages);
  const facts = threadFactsOf(thread, policy);
  const protection = protectWindow(facts, wallStart);
  const reasons = messages.map((_, index) => protection.reasonAt(index));
  return { wallStart, reasons, threadIndex: thread.calls, mentioned: protection.mentioned };
}
