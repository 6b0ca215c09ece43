/**
 * Provider-true views (docs/architecture.md#provider-true-views). Providers bind a model's
 * thinking to the prompt it was produced after: Anthropic checks every thinking block sent
 * back against `system`, `tools` and the messages before it and refuses the request (400)
 * when they changed; OpenAI's reasoning models drop the reasoning items that follow a
 * change. So when a view changes history at position p (against what the previous call of
 * the thread sent), every thinking block after p leaves the view, and stays out on later
 * calls: removing thinking from the end of the run is what both providers accept, and
 * thinking produced after the change is bound to the view without it.
 *
 * The latest assistant message of a tool loop still under way (no user message after it)
 * is never modified: its thinking must come back as it was produced. Cache-aware
 * assemblies make no change before it (batches land at a turn's start); if one does, the
 * report says so (`latestInvalidated`).
 */
import { viewKey } from "../contract/view-keys";
import { thinkingBlockCount, withoutThinking } from "../thread/thinking";
import type { AssistantMessage, Message } from "../types";

/** What a view did about the thinking its messages carry. */
export interface ThinkingReport {
  /** Thinking blocks (and reasoning items) the view leaves out, sticky ones included: what the model no longer sees of its earlier reasoning. */
  removedBlocks: number;
  /** Of those, the ones this call left out for the first time. */
  newlyRemovedBlocks: number;
  /**
   * Position in the view of the first message it sends differently from the previous
   * call's view (`cache.sent`), or, without one, from the thread as it is; undefined when
   * the view only appends.
   */
  changedAt: number | undefined;
  /**
   * The latest assistant message of the tool loop under way carries thinking and the view
   * changed a message before it: it is sent unmodified, and a provider enforcing the prefix
   * check refuses the request (or, told to, drops the block). Expect false.
   */
  latestInvalidated: boolean;
}

export interface ProviderTrueView {
  messages: readonly Message[];
  /** The key of each message of `messages` (the next call's `cache.sent`). */
  sent: string[];
  thinking: ThinkingReport;
}

/** Index of the latest assistant message when no user message follows it (a tool loop under way); -1 otherwise. */
export function latestLoopAssistant(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const role = (messages[index] as Message).role;
    if (role === "user") return -1;
    if (role === "assistant") return index;
  }
  return -1;
}

/** Whether the request continues a tool loop whose latest assistant message carries thinking. */
export function continuesThinkingLoop(messages: readonly Message[]): boolean {
  const latest = latestLoopAssistant(messages);
  return latest >= 0 && thinkingBlockCount(messages[latest] as Message) > 0;
}

/** First index where `view` no longer holds the thread's own messages (a replaced, dropped or added one). */
function firstDifferenceFromThread(view: readonly Message[], thread: readonly Message[]): number | undefined {
  const length = Math.min(view.length, thread.length);
  for (let index = 0; index < length; index++) if (view[index] !== thread[index]) return index;
  return view.length === thread.length ? undefined : length;
}

/**
 * The view with the thinking after its first change left out (see the module comment).
 * `sent` is what the previous call sent (its keys); without it the view is compared with
 * the thread itself, as a view that condensed nothing would send.
 */
export function providerTrueView(
  view: readonly Message[],
  thread: readonly Message[],
  sent: readonly string[] | undefined,
): ProviderTrueView {
  const messages = view.slice();
  const keys: string[] = new Array(view.length);
  const report: ThinkingReport = {
    removedBlocks: 0,
    newlyRemovedBlocks: 0,
    changedAt: undefined,
    latestInvalidated: false,
  };
  const strip = (index: number, isNew: boolean) => {
    const message = messages[index] as AssistantMessage;
    const blocks = thinkingBlockCount(message);
    messages[index] = withoutThinking(message);
    report.removedBlocks += blocks;
    if (isNew) report.newlyRemovedBlocks += blocks;
  };
  // Whether the previous call sent the message at `index` without its thinking already.
  const sentWithout = (index: number): boolean =>
    sent !== undefined &&
    index < sent.length &&
    viewKey(withoutThinking(view[index] as AssistantMessage)) === sent[index];
  let changedAt: number | undefined;
  if (sent === undefined) changedAt = firstDifferenceFromThread(view, thread);
  else {
    const length = Math.min(view.length, sent.length);
    for (let index = 0; index < length && changedAt === undefined; index++) {
      const message = view[index] as Message;
      const key = viewKey(message);
      keys[index] = key;
      if (key === sent[index]) continue;
      // Sent without its thinking by an earlier call: it stays without.
      if (thinkingBlockCount(message) > 0 && sentWithout(index)) {
        strip(index, false);
        keys[index] = sent[index] as string;
        continue;
      }
      changedAt = index;
    }
    if (changedAt === undefined && view.length < sent.length) changedAt = view.length;
  }
  report.changedAt = changedAt;
  if (changedAt !== undefined) {
    const latest = latestLoopAssistant(view);
    for (let index = changedAt; index < messages.length; index++) {
      if (thinkingBlockCount(messages[index] as Message) === 0) continue;
      if (index === latest) {
        report.latestInvalidated = true;
        continue;
      }
      strip(index, !sentWithout(index));
    }
  }
  const latest = report.latestInvalidated ? latestLoopAssistant(view) : -1;
  for (let index = 0; index < messages.length; index++) {
    // The latest assistant message whose thinking this view invalidated is recorded as sent
    // without it (a provider told to drops it; one that refuses refuses anyway): the next
    // call leaves it out, so it never poisons the thinking produced after it.
    keys[index] =
      index === latest
        ? viewKey(withoutThinking(messages[index] as AssistantMessage))
        : viewKey(messages[index] as Message);
  }
  return { messages, sent: keys, thinking: report };
}
