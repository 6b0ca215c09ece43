import { contentText } from "../content";
import {
  DUPLICATE_PREFIX,
  isErrorRetryStubFor,
  renderDuplicateStub,
  renderErrorRetryStub,
  renderOriginalHandle,
  renderToolCall,
} from "../contract/stubs";
import type { ToolPolicy } from "../policy";
import { overlaps } from "../rules/error-retry";
import type { ToolCall, ToolMessage } from "../types";
import type { IndexedThread } from "./indexed-thread";
import { PositionLists } from "./position-lists";
import type { ResultFacts } from "./result-facts";

/** Successful results with the same tool and canonical args, in order. */
export interface DuplicateGroup {
  readonly members: number[];
}

/** The first position in ascending `positions` holding a value above `index`. */
function firstAfter(positions: readonly number[], index: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((positions[middle] as number) <= index) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * What inline cleaning needs of a growing thread's results: duplicate groups, successes by retry key, the failed results, and the stub
 * texts and retries found so far (a retry found stays found: later messages come after it).
 */
export class InlineIndex {
  /** Per group key, the one result so far, or the group once it has two. */
  private readonly groups = new Map<string, number | DuplicateGroup>();
  /** Groups with at least two members, the only ones that can yield a duplicate stub. */
  readonly multiGroups: DuplicateGroup[] = [];
  private readonly successesByRetryKey = new PositionLists();
  /** Failed results with a call, in order. */
  readonly failed: number[] = [];
  private readonly retries = new Map<number, { checked: number; retry: number | undefined }>();
  private readonly duplicateTexts = new Map<number, { latest: number; text: string }>();
  private readonly errorTexts = new Map<number, string>();

  constructor(
    private readonly thread: IndexedThread,
    private readonly policy: ToolPolicy,
    private readonly factsAt: (index: number) => ResultFacts | undefined,
    /** The `read_original` tool's name when it is enabled: the stubs name its call. */
    private readonly readOriginal?: string,
  ) {}

  /** The `read_original` call returning the raw result at `index`; undefined when the tool is off. */
  private originalHandle(index: number): string | undefined {
    const { toolCallId } = this.thread.messages[index] as ToolMessage;
    return this.readOriginal === undefined ? undefined : renderOriginalHandle(toolCallId, this.readOriginal);
  }

  add(index: number, facts: ResultFacts): void {
    if (!facts.failed && facts.retryKey !== undefined) this.successesByRetryKey.add(facts.retryKey, index);
    if (facts.failed && facts.retryKey !== undefined) this.failed.push(index);
    // Failed results are left to the error/retry collapse: a duplicate stub would point to
    // a later copy that is itself collapsed.
    if (facts.groupKey !== undefined) this.addToGroup(facts.groupKey, index);
  }

  private addToGroup(key: string, index: number): void {
    const found = this.groups.get(key);
    if (found === undefined) {
      this.groups.set(key, index);
    } else if (typeof found === "number") {
      const group: DuplicateGroup = { members: [found, index] };
      this.groups.set(key, group);
      this.multiGroups.push(group);
    } else {
      found.members.push(index);
    }
  }

  /** Whether a result before `index` answered the same call (same tool and args, `key` its group key). */
  repeatsEarlier(index: number, key: string): boolean {
    const found = this.groups.get(key);
    if (found === undefined) return false;
    return (typeof found === "number" ? found : (found.members[0] as number)) < index;
  }

  /** The duplicate stub of the result at `index` pointing to the later copy at `latest`. */
  duplicateStubText(index: number, latest: number): string {
    const cached = this.duplicateTexts.get(index);
    if (cached?.latest === latest) return cached.text;
    const text = this.renderDuplicateStub(index, latest);
    this.duplicateTexts.set(index, { latest, text });
    return text;
  }

  private renderDuplicateStub(index: number, latest: number): string {
    const message = this.thread.messages[index] as ToolMessage;
    const latestMessage = this.thread.messages[latest] as ToolMessage;
    const latestCall = this.thread.calls.callAt(latest) as ToolCall;
    const rule = this.policy.ruleFor(latestMessage.toolName);
    return renderDuplicateStub(
      message.toolName,
      latestMessage.toolCallId,
      renderToolCall(latestCall, rule.provenanceArgs),
      rule.idempotent,
      this.originalHandle(index),
    );
  }

  /** The later copy in `group` whose duplicate stub the result at `index` already shows, byte for byte. */
  shownTarget(index: number, group: readonly number[]): number | undefined {
    const content = (this.thread.messages[index] as ToolMessage).content as string;
    const named = content.slice(DUPLICATE_PREFIX.length).split(" (", 1)[0];
    for (let position = group.length - 1; position >= 0; position--) {
      const member = group[position] as number;
      if (member <= index) break;
      if ((this.thread.messages[member] as ToolMessage).toolCallId !== named) continue;
      if (this.renderDuplicateStub(index, member) === content) return member;
    }
    return undefined;
  }

  /** The first later success with the failed result's retry key whose call overlaps its call. */
  retryOf(index: number): number | undefined {
    const facts = this.factsAt(index) as ResultFacts;
    const successes = this.successesByRetryKey.get(facts.retryKey as string);
    let memo = this.retries.get(index);
    if (memo === undefined) {
      memo = { checked: firstAfter(successes, index), retry: undefined };
      this.retries.set(index, memo);
    }
    if (memo.retry !== undefined) return memo.retry;
    const failed = this.thread.calls.callAt(index) as ToolCall;
    const rule = this.policy.ruleFor((this.thread.messages[index] as ToolMessage).toolName);
    for (; memo.checked < successes.length && memo.retry === undefined; memo.checked++) {
      const candidate = successes[memo.checked] as number;
      const call = this.thread.calls.callAt(candidate);
      if (call && overlaps(failed, call, rule)) memo.retry = candidate;
    }
    return memo.retry;
  }

  /** The error-retry stub of the failed result at `index` (its own text when it already is that stub). */
  errorStubText(index: number): string {
    let text = this.errorTexts.get(index);
    if (text === undefined) {
      const message = this.thread.messages[index] as ToolMessage;
      const rule = this.policy.ruleFor(message.toolName);
      const failedCall = renderToolCall(this.thread.calls.callAt(index) as ToolCall, rule.provenanceArgs);
      const original = this.originalHandle(index);
      text =
        typeof message.content === "string" && isErrorRetryStubFor(message.content, failedCall, original)
          ? message.content
          : renderErrorRetryStub(contentText(message.content), failedCall, original);
      this.errorTexts.set(index, text);
    }
    return text;
  }
}
