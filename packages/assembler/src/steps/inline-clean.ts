import { contentChars } from "../content";
import type { ToolPolicy } from "../policy";
import type { DuplicateGroup } from "../thread/inline-index";
import type { ThreadFacts } from "../thread/thread-facts";
import type { ThreadIndex } from "../thread/thread-index";
import { indexedThreadOf, threadFactsOf } from "../thread/thread-state";
import type { Message } from "../types";

/** Stub text per message index chosen by inline cleaning, with its category. */
export interface InlineStub {
  index: number;
  category: "duplicate" | "error-retry";
  text: string;
  /** Index of the later result the stub points to: the next identical copy, or the retry. */
  target: number;
}

/**
 * The "duplicate" stub of each cleanable earlier copy in `group`, pointing to the next
 * later identical copy before `evidenceEnd`: a copy that comes later never re-points a
 * stub, so a stub once shown keeps its text.
 */
function duplicateStubs(
  facts: ThreadFacts,
  group: DuplicateGroup,
  cleanable: (index: number) => boolean,
  evidenceEnd: number,
  stubs: InlineStub[],
): void {
  const { thread, inline } = facts;
  const nextByContent = new Map<string, number>();
  for (let position = group.members.length - 1; position >= 0; position--) {
    const index = group.members[position] as number;
    if (index >= evidenceEnd) continue;
    const key = thread.contentKeyAt(index);
    const next = nextByContent.get(key);
    nextByContent.set(key, index);
    if (!cleanable(index)) continue;
    const message = facts.message(index);
    // Stryker disable next-line OptionalChaining: group members are tool results, which always have facts
    const shown = facts.at(index)?.showsDuplicateStub ? inline.shownTarget(index, group.members) : undefined;
    if (shown !== undefined) {
      stubs.push({ index, category: "duplicate", text: message.content as string, target: shown });
      continue;
    }
    if (next === undefined) continue;
    const text = inline.duplicateStubText(index, next);
    if (text.length >= contentChars(message.content)) continue;
    stubs.push({ index, category: "duplicate", text, target: next });
  }
}

/**
 * Deterministic inline cleaning (docs/architecture.md#junk-categories) of a thread whose
 * facts are kept across calls: the cost is that of the duplicates and failed results,
 * not the thread's. See {@link inlineStubs}. Only results before `evidenceEnd` serve as a
 * later copy or a retry (the assembly passes its latest user message when cache-aware, so
 * stubs change at a turn's start only).
 */
export function decideInlineStubs(
  facts: ThreadFacts,
  cleanable: (index: number) => boolean,
  evidenceEnd: number = facts.thread.length,
): InlineStub[] {
  const stubs: InlineStub[] = [];
  for (const group of facts.inline.multiGroups) duplicateStubs(facts, group, cleanable, evidenceEnd, stubs);
  // Stryker disable next-line ArrowFunction: duplicate stubs go to successful results only
  const stubbed = new Set(stubs.map((stub) => stub.index));
  for (const index of facts.inline.failed) {
    if (stubbed.has(index) || !cleanable(index)) continue;
    const retry = facts.inline.retryOf(index);
    if (retry === undefined || retry >= evidenceEnd) continue;
    // Always collapsed, even when short: the stub also tells the model the retry worked.
    stubs.push({ index, category: "error-retry", text: facts.inline.errorStubText(index), target: retry });
  }
  return stubs.sort((a, b) => a.index - b.index);
}

interface InlineInput {
  messages: readonly Message[];
  cleanable: (index: number) => boolean;
  /** The thread's call index (from {@link protectMessages}); the pairing is read from `messages` itself. */
  threadIndex?: ThreadIndex;
  policy: ToolPolicy;
}

/**
 * Deterministic inline cleaning (docs/architecture.md#junk-categories): "duplicate" exact copies (same tool, same
 * canonical args, identical content — each earlier copy points to the next, the latest stays) and
 * "error-retry" pairs (a failed result followed by a successful retry: the same tool with
 * the same or overlapping provenance args, see error-retry.ts). Every stub names the call
 * that re-reads what it replaced.
 *
 * What the cleaner wrote is known from these decisions, never from how a text looks: a
 * result that already shows exactly the stub decided for it (the view of an earlier
 * assembly) is decided again with its own text, so callers can leave it as it is.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 */
export function inlineStubs({ messages, cleanable, policy }: InlineInput): InlineStub[] {
  return decideInlineStubs(threadFactsOf(indexedThreadOf(messages), policy), cleanable);
}
