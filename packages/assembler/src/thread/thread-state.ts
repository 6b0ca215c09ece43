import type { ToolPolicy } from "../policy";
import type { Message } from "../types";
import { validateThreadArray } from "../validate";
import { IndexedThread } from "./indexed-thread";
import { ThreadFacts } from "./thread-facts";

/**
 * Indexes kept per opening message object: a runtime's repeated model calls pass the same
 * thread again and again, grown by the latest exchanges, so its index is found by an
 * opening message and extended by the new messages only. The key is the second message
 * (the first, for a thread of one), most often the user's opening request: a system prompt
 * object that many threads share would keep their indexes alive as long as it lives. Threads
 * may still share the key object: a few indexes are kept per key, the most recently used
 * first.
 */
const threadsByOpening = new WeakMap<object, IndexedThread[]>();
const THREADS_PER_OPENING = 8;
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
  const opening: unknown = messages.length > 1 ? messages[1] : messages[0];
  if (opening === null || typeof opening !== "object") {
    const thread = new IndexedThread();
    thread.extend(messages);
    return thread;
  }
  const kept = threadsByOpening.get(opening) ?? [];
  const found = longestMatch(kept, messages);
  const thread = found ?? new IndexedThread();
  thread.extend(messages);
  const others = kept.filter((each) => each !== thread).slice(0, THREADS_PER_OPENING - 1);
  threadsByOpening.set(opening, [thread, ...others]);
  return thread;
}

/**
 * The facts of an index's results under `policy` (and the `read_original` tool's name, when
 * it is enabled), extended to all of its messages.
 */
export function threadFactsOf(thread: IndexedThread, policy: ToolPolicy, readOriginal?: string): ThreadFacts {
  const kept = factsByThread.get(thread) ?? [];
  const same = (each: ThreadFacts) => each.policy === policy && each.readOriginal === readOriginal;
  let facts = kept.find((each) => same(each) && each.current);
  facts ??= new ThreadFacts(thread, policy, readOriginal);
  facts.extend();
  const others = kept.filter((each) => each !== facts && !same(each));
  factsByThread.set(thread, [facts, ...others].slice(0, POLICIES_PER_THREAD));
  return facts;
}
