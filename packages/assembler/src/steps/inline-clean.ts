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
  /** Index of the later result the stub points to: the latest identical copy, or the retry. */
  target: number;
}

/** The "duplicate" stub of each cleanable earlier copy in `group`, pointing to its latest identical copy. */
function duplicateStubs(
  facts: ThreadFacts,
  group: DuplicateGroup,
  cleanable: (index: number) => boolean,
  stubs: InlineStub[],
): void {
  const { thread, inline } = facts;
  for (const index of group.members) {
    if (!cleanable(index)) continue;
    const message = facts.message(index);
    // Stryker disable next-line OptionalChaining: group members are tool results, which always have facts
    const shown = facts.at(index)?.showsDuplicateStub ? inline.shownTarget(index, group.members) : undefined;
    if (shown !== undefined) {
      stubs.push({ index, category: "duplicate", text: message.content as string, target: shown });
      continue;
    }
    const latest = group.latestByContent.get(thread.contentKeyAt(index)) as number;
    if (latest === index) continue;
    const text = inline.duplicateStubText(index, latest);
    if (text.length >= contentChars(message.content)) continue;
    stubs.push({ index, category: "duplicate", text, target: latest });
  }
}

/**
 * Deterministic inline cleaning (docs/architecture.md#junk-categories) of a thread whose
 * facts are kept across calls: the cost is that of the duplicates and failed results,
 * not the thread's. See {@link inlineStubs}.
 */
export function decideInlineStubs(facts: ThreadFacts, cleanable: (index: number) => boolean): InlineStub[] {
  const stubs: InlineStub[] = [];
  for (const group of facts.inline.multiGroups) duplicateStubs(facts, group, cleanable, stubs);
  // Stryker disable next-line ArrowFunction: duplicate stubs go to successful results only, never to a failed one
  const stubbed = new Set(stubs.map((stub) => stub.index));
  for (const index of facts.inline.failed) {
    if (stubbed.has(index) || !cleanable(index)) continue;
    const retry = facts.inline.retryOf(index);
    if (retry === undefined) continue;
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
 * canonical args, identical content — earlier copies point to the latest, which stays) and
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
