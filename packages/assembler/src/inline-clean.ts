import { contentChars, contentText } from "./content";
import { isErrorResult, overlaps, retryKey } from "./error-retry";
import { canonicalArgs, messageContentSha256 } from "./hash";
import type { ToolPolicy, ToolRule } from "./policy";
import {
  DUPLICATE_PREFIX,
  isErrorRetryStubFor,
  renderDuplicateStub,
  renderErrorRetryStub,
  renderToolCall,
} from "./stubs";
import type { ThreadIndex } from "./thread-index";
import type { Message, ToolCall, ToolMessage } from "./types";

/** Stub text per message index chosen by inline cleaning, with its category. */
export interface InlineStub {
  index: number;
  category: "duplicate" | "error-retry";
  text: string;
  /** Index of the later result the stub points to: the latest identical copy, or the retry. */
  target: number;
}

/** Per-result facts inline cleaning needs, cached per message object across assemblies. */
interface ResultFacts {
  readonly content: unknown;
  readonly call: ToolCall | undefined;
  readonly policy: ToolPolicy;
  readonly failed: boolean;
  /** Same tool and canonical args; undefined for failed results and results without a call. */
  readonly groupKey: string | undefined;
  /** See {@link retryKey}; undefined for results without a call. */
  readonly retryKey: string | undefined;
}

const factsByMessage = new WeakMap<ToolMessage, ResultFacts>();

function resultFacts(message: ToolMessage, call: ToolCall | undefined, policy: ToolPolicy): ResultFacts {
  const cached = factsByMessage.get(message);
  if (cached && cached.content === message.content && cached.call === call && cached.policy === policy) {
    return cached;
  }
  const failed = isErrorResult(message);
  const facts: ResultFacts = {
    content: message.content,
    call,
    policy,
    failed,
    groupKey: call && !failed ? `${message.toolName}\u0000${canonicalArgs(call)}` : undefined,
    retryKey: call ? retryKey(message.toolName, call, policy.ruleFor(message.toolName)) : undefined,
  };
  factsByMessage.set(message, facts);
  return facts;
}

/** The first result after `index` in `successes` (ascending) whose call overlaps `failed`. */
function findRetry(
  successes: readonly number[],
  index: number,
  failed: ToolCall,
  rule: ToolRule,
  factsAt: readonly (ResultFacts | undefined)[],
): number | undefined {
  let low = 0;
  let high = successes.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    // Stryker disable next-line EqualityOperator: `index` is a failed result, never among the successes, so < and <= split them alike
    if ((successes[middle] as number) <= index) low = middle + 1;
    else high = middle;
  }
  for (let position = low; position < successes.length; position++) {
    const candidate = successes[position] as number;
    const call = factsAt[candidate]?.call;
    if (call && overlaps(failed, call, rule)) return candidate;
  }
  return undefined;
}

interface InlineInput {
  messages: readonly Message[];
  cleanable: (index: number) => boolean;
  threadIndex: ThreadIndex;
  policy: ToolPolicy;
}

/** The tool results of a thread grouped for inline cleaning. */
interface ResultScan {
  /** Per message index: the result's facts (undefined for other messages). */
  factsAt: (ResultFacts | undefined)[];
  /** Successful results by tool and canonical args, in thread order. */
  byCallKey: Map<string, number[]>;
  /** Successful results by {@link retryKey}, in thread order. */
  successesByRetryKey: Map<string, number[]>;
}

function pushTo(groups: Map<string, number[]>, key: string, index: number): void {
  const group = groups.get(key);
  if (group) group.push(index);
  else groups.set(key, [index]);
}

function scanResults({ messages, threadIndex, policy }: InlineInput): ResultScan {
  const scan: ResultScan = {
    factsAt: new Array(messages.length),
    byCallKey: new Map(),
    successesByRetryKey: new Map(),
  };
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const facts = resultFacts(message, threadIndex.callFor(message), policy);
    scan.factsAt[index] = facts;
    if (!facts.failed && facts.retryKey !== undefined)
      pushTo(scan.successesByRetryKey, facts.retryKey, index);
    // Failed results are left to the error/retry collapse: a duplicate stub would point to
    // a later copy that is itself collapsed.
    if (facts.groupKey !== undefined) pushTo(scan.byCallKey, facts.groupKey, index);
  });
  return scan;
}

/** The duplicate stub of `message` pointing to the later copy at `latest`. */
function duplicateStubOf(input: InlineInput, message: ToolMessage, latest: number): string {
  const latestMessage = input.messages[latest] as ToolMessage;
  const latestCall = input.threadIndex.callFor(latestMessage) as ToolCall;
  const rule = input.policy.ruleFor(latestMessage.toolName);
  return renderDuplicateStub(
    message.toolName,
    latestMessage.toolCallId,
    renderToolCall(latestCall, rule.provenanceArgs),
    rule.idempotent,
  );
}

/** The later copy whose duplicate stub `message` already shows, byte for byte. */
function shownTarget(
  input: InlineInput,
  message: ToolMessage,
  index: number,
  group: readonly number[],
): number | undefined {
  if (typeof message.content !== "string" || !message.content.startsWith(DUPLICATE_PREFIX)) return undefined;
  const named = message.content.slice(DUPLICATE_PREFIX.length).split(" (", 1)[0];
  for (let position = group.length - 1; position >= 0; position--) {
    const member = group[position] as number;
    if (member <= index) break;
    // Stryker disable next-line ConditionalExpression: a shortcut; the exact stub comparison below rejects another call id anyway
    if ((input.messages[member] as ToolMessage).toolCallId !== named) continue;
    if (duplicateStubOf(input, message, member) === message.content) return member;
  }
  return undefined;
}

/** The "duplicate" stub of each cleanable earlier copy in `group`, pointing to its latest identical copy. */
function duplicateStubs(input: InlineInput, group: readonly number[], stubs: InlineStub[]): void {
  const { messages, cleanable } = input;
  const latestByHash = new Map<string, number>();
  for (const index of group) latestByHash.set(messageContentSha256(messages[index] as Message), index);
  for (const index of group) {
    if (!cleanable(index)) continue;
    const message = messages[index] as ToolMessage;
    const shown = shownTarget(input, message, index, group);
    if (shown !== undefined) {
      stubs.push({ index, category: "duplicate", text: message.content as string, target: shown });
      continue;
    }
    const latest = latestByHash.get(messageContentSha256(message)) as number;
    if (latest === index) continue;
    const text = duplicateStubOf(input, message, latest);
    if (text.length >= contentChars(message.content)) continue;
    stubs.push({ index, category: "duplicate", text, target: latest });
  }
}

/** The "error-retry" stub of a cleanable failed result that a later success retried, if any. */
function errorRetryStub(
  input: InlineInput,
  scan: ResultScan,
  message: ToolMessage,
  index: number,
): InlineStub | undefined {
  const facts = scan.factsAt[index];
  if (!facts?.failed || !facts.call || facts.retryKey === undefined) return undefined;
  const successes = scan.successesByRetryKey.get(facts.retryKey);
  const rule = input.policy.ruleFor(message.toolName);
  const retry = successes && findRetry(successes, index, facts.call, rule, scan.factsAt);
  if (retry === undefined) return undefined;
  // Always collapsed, even when short: the stub also tells the model the retry worked.
  const failedCall = renderToolCall(facts.call, rule.provenanceArgs);
  const text =
    typeof message.content === "string" && isErrorRetryStubFor(message.content, failedCall)
      ? message.content
      : renderErrorRetryStub(contentText(message.content), failedCall);
  return { index, category: "error-retry", text, target: retry };
}

/**
 * Deterministic inline cleaning (docs/architecture.md#junk-categories): "duplicate" exact copies (same tool, same
 * canonical args, identical content — earlier copies point to the latest, which stays) and
 * "error-retry" pairs (a failed result followed by a successful retry: the same tool with
 * the same or overlapping provenance args, see {@link overlaps}). Every stub names the call
 * that re-reads what it replaced.
 *
 * What the cleaner wrote is known from these decisions, never from how a text looks: a
 * result that already shows exactly the stub decided for it (the view of an earlier
 * assembly) is decided again with its own text, so callers can leave it as it is.
 */
export function inlineStubs(input: InlineInput): InlineStub[] {
  const scan = scanResults(input);
  const stubs: InlineStub[] = [];
  for (const group of scan.byCallKey.values()) {
    // Stryker disable next-line ConditionalExpression: a group of one has no earlier copy to stub
    if (group.length >= 2) duplicateStubs(input, group, stubs);
  }
  const stubbed = new Set(stubs.map((stub) => stub.index));
  input.messages.forEach((message, index) => {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: only a failed result gets an error-retry stub; other messages and the duplicate-stubbed results (successes) never do
    if (message.role !== "tool" || stubbed.has(index) || !input.cleanable(index)) return;
    const stub = errorRetryStub(input, scan, message, index);
    if (stub) stubs.push(stub);
  });
  return stubs.sort((a, b) => a.index - b.index);
}
