import { IndexedThread } from "./indexed-thread";
import type { ToolPolicy } from "./policy";
import { ThreadFacts } from "./thread-facts";
import type { Message } from "./types";
import { validateThreadArray } from "./validate";

/**
 * Indexes kept per first message object: a runtime's repeated model calls pass the same
 * thread again and again, grown by the latest exchanges, so its index is found by its
 * first message and extended by the new messages only. Several threads may share a first
 * message object (a constant system prompt): a few indexes are kept per first message,
 * the most recently used first.
 */
const threadsByFirstMessage = new WeakMap<object, IndexedThread[]>();
const THREADS_PER_FIRST_MESSAGE = 8;
/** Facts per index and policy (one policy at a time is the rule; two alternate at most). */
const factsByThread = new WeakMap<IndexedThread, ThreadFacts[]>();
const POLICIES_PER_THREAD = 2;

/** The longest kept index whose messages `messages` starts with, unchanged. */
function longestMatch(
  kept: readonly IndexedThread[],
  messages: readonly Message[],
): IndexedThread | undefined {
  const candidates = kept
    .filter(
      (thread) => thread.length <= messages.length && messages[thread.length - 1] === thread.messages.at(-1),
    )
    .sort((a, b) => b.length - a.length);
  return candidates.find((thread) => thread.matchLength(messages) === thread.length);
}

/**
 * The index of `messages`, validated: a kept index of a thread these messages continue
 * (extended by the new ones), or a new one, kept for the next call. The caller's messages
 * are never changed, and the index answers exactly as a new one would.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 */
export function indexedThreadOf(messages: readonly Message[]): IndexedThread {
  validateThreadArray(messages);
  const first: unknown = messages[0];
  if (first === null || typeof first !== "object") {
    const thread = new IndexedThread();
    thread.extend(messages);
    return thread;
  }
  const kept = threadsByFirstMessage.get(first) ?? [];
  const found = longestMatch(kept, messages);
  const thread = found ?? new IndexedThread();
  thread.extend(messages);
  const others = kept.filter((each) => each !== thread).slice(0, THREADS_PER_FIRST_MESSAGE - 1);
  threadsByFirstMessage.set(first, [thread, ...others]);
  return thread;
}

/** The facts of an index's results under `policy`, extended to all of its messages. */
export function threadFactsOf(thread: IndexedThread, policy: ToolPolicy): ThreadFacts {
  const kept = factsByThread.get(thread) ?? [];
  let facts = kept.find((each) => each.policy === policy && each.current);
  facts ??= new ThreadFacts(thread, policy);
  facts.extend();
  const others = kept.filter((each) => each !== facts && each.policy !== policy);
  factsByThread.set(thread, [facts, ...others].slice(0, POLICIES_PER_THREAD));
  return facts;
}
