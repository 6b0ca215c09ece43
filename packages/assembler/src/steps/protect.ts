import { contentText } from "../content";
import type { ToolPolicy } from "../policy";
import { KEEP_REASONS, type KeepReason, recencyWallStart } from "../rules/keep-rules";
import {
  collapseWhitespace,
  isSingleToken,
  namedOffsets,
  windowQuotes,
  windowText,
  windowTokens,
} from "../rules/window-references";
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
  /** Indices of results the window refers to (see the referenced-by-window keep-rule), whatever rule keeps them. */
  readonly mentioned: ReadonlySet<number>;
}

/** The keep-rules' verdict on a thread for one recency wall, asked message by message. */
export interface WindowProtection {
  readonly wallStart: number;
  /** Results before the wall the window refers to (by call id, or pages of a document it names), whatever rule keeps them. */
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
 * What the window refers to among the results it mentions: a result it names by its tool
 * call id; and, of a document it names by id, its latest page before the wall (kept even
 * when the turn has since read a page of it into the wall, so what a turn's start pins
 * stays pinned on its later calls), a page it names by offset (`offset 24000`), and a page
 * holding a passage it quotes. The other pages of a named document are not referred to:
 * agents echo the id of the document they work on in every answer.
 */
function referredResults(
  facts: ThreadFacts,
  wallStart: number,
  windowEnd: number,
  mentioned: ReadonlySet<number>,
): Set<number> {
  const referred = new Set<number>();
  if (mentioned.size === 0) return referred;
  const { thread, keep, policy } = facts;
  const window = thread.messages.slice(wallStart, windowEnd);
  const tokens = windowTokens(window, keep.isDocumentRead);
  let text: string | undefined;
  const windowString = () => {
    text ??= windowText(window, keep.isDocumentRead);
    return text;
  };
  const names = (key: string) => (isSingleToken(key) ? tokens.has(key) : windowString().includes(key));
  const documents = new Set<string>();
  for (const result of mentioned) {
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    const resultFacts = facts.at(result);
    const callId = facts.message(result).toolCallId;
    if (callId !== "" && names(callId)) referred.add(result);
    if (
      resultFacts?.source !== undefined &&
      resultFacts.document !== undefined &&
      names(resultFacts.document)
    )
      documents.add(resultFacts.source);
  }
  let quotes: string[] | undefined;
  for (const source of documents) {
    const members = keep.sourceMembers(source);
    const before = members.filter((member) => member < wallStart);
    const latest = before.at(-1);
    if (latest !== undefined) referred.add(latest);
    const offsetArg = policy.ruleFor(facts.message(members[0] as number).toolName).offsetArg;
    const offsets = offsetArg === undefined ? undefined : namedOffsets(windowString(), offsetArg);
    quotes ??= windowQuotes(windowString());
    for (const member of before) {
      const offset = facts.at(member)?.offset;
      if (offset !== undefined && offsets?.has(offset)) referred.add(member);
      else if (quotes.length > 0) {
        const page = collapseWhitespace(contentText(facts.message(member).content));
        if (quotes.some((quote) => page.includes(quote))) referred.add(member);
      }
    }
  }
  return referred;
}

/** Results before the wall whose tool call id another result of the thread carries too (the shared-tool-call-id keep-rule). */
function sharedResultsBefore(facts: ThreadFacts, wallStart: number): Set<number> {
  const shared = new Set<number>();
  const { calls } = facts.thread;
  for (const id of calls.sharedIds) {
    for (const result of calls.resultsOf(id)) {
      if (result >= wallStart) break;
      shared.add(result);
    }
  }
  return shared;
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
  const end = Math.min(windowEnd, facts.thread.length);
  const mentioned = referredResults(facts, wallStart, end, mentionedResults(facts, wallStart, end));
  const { keep, thread } = facts;
  const shared = sharedResultsBefore(facts, wallStart);
  // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
  const unkept = (result: number) => facts.at(result)?.reason === undefined && !shared.has(result);
  const referenced = new Set([...mentioned].filter(unkept));
  // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
  const sharedOnly = [...shared].filter((result) => facts.at(result)?.reason === undefined).length;
  const resultsInWall = keep.resultsBefore(thread.length) - keep.resultsBefore(wallStart);
  return {
    wallStart,
    mentioned,
    referenced,
    protectedResults: resultsInWall + keep.keptBefore(wallStart) + sharedOnly + referenced.size,
    reasonAt(index) {
      // Stryker disable next-line OptionalChaining: equivalent — asked for messages of the thread only
      if (thread.messages[index]?.role !== "tool") return KEEP_REASONS.conversational;
      if (index >= wallStart) return KEEP_REASONS.recencyWall;
      // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
      const reason = facts.at(index)?.reason;
      // An empty id is never shared: the order of the keep-rules' table.
      if (shared.has(index)) return KEEP_REASONS.sharedToolCallId;
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
