import { contentChars, contentText } from "./content";
import { canonicalArgs, canonicalJson, messageContentSha256 } from "./hash";
import { readOffset } from "./keep-rules";
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

/** A result without an error status counts as an error by its text only up to this many chars. */
export const ERROR_TEXT_MAX_CHARS = 500;

const ERROR_PATTERN =
  /^\s*(?:error\b|exception\b|traceback\b|fatal\b|failed\b|\[error\]|\[transient error\b|status(?: code)?:? [45]\d\d\b)/i;
const BLANK_LINE = /\n[ \t]*\r?\n/;

/**
 * Whether a tool result failed: the framework marks it (`status: "error"`, which adapters
 * map from `is_error`), or, without a status, it is a short text that is nothing but an
 * error — at most {@link ERROR_TEXT_MAX_CHARS} chars, one paragraph, opening like an error.
 * A longer result is output whatever its first line says ("ERROR 12:00 charge failed …" in
 * a log, a clause headed "Failed Delivery"), so no text heuristic ever collapses it.
 */
export function isErrorResult(message: ToolMessage): boolean {
  if (message.status === "error") return true;
  if (message.status === "success") return false;
  if (contentChars(message.content) > ERROR_TEXT_MAX_CHARS) return false;
  const text = contentText(message.content);
  return !BLANK_LINE.test(text) && ERROR_PATTERN.test(text);
}

/**
 * What a retry shares with the failed call: the tool and the document it names (first
 * provenance arg), or, for a tool without one, every arg (canonical JSON).
 */
function retryKey(toolName: string, call: ToolCall, rule: ToolRule): string {
  const idArg = rule.provenanceArgs[0];
  if (idArg !== undefined && call.args[idArg] !== undefined) {
    return `${toolName}\u0000${idArg}=${canonicalJson(call.args[idArg])}`;
  }
  return `${toolName}\u0000${canonicalArgs(call)}`;
}

function provenanceValue(call: ToolCall, name: string, rule: ToolRule): unknown {
  // A read without an offset reads the first page.
  if (name === rule.offsetArg) return readOffset(call, name) ?? call.args[name] ?? 0;
  return call.args[name];
}

/**
 * Whether two calls with the same {@link retryKey} read overlapping things: every further
 * provenance arg that both calls pass has the same value (an offset left out is 0).
 */
function overlaps(failed: ToolCall, retry: ToolCall, rule: ToolRule): boolean {
  const [idArg, ...rest] = rule.provenanceArgs;
  if (idArg === undefined || failed.args[idArg] === undefined) return true;
  return rest.every((name) => {
    const before = provenanceValue(failed, name, rule);
    const after = provenanceValue(retry, name, rule);
    return before === undefined || after === undefined || canonicalJson(before) === canonicalJson(after);
  });
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
export function inlineStubs({ messages, cleanable, threadIndex, policy }: InlineInput): InlineStub[] {
  const stubs: InlineStub[] = [];
  const byCallKey = new Map<string, number[]>();
  const successesByRetryKey = new Map<string, number[]>();
  const factsAt: (ResultFacts | undefined)[] = new Array(messages.length);

  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    const facts = resultFacts(message, threadIndex.callFor(message), policy);
    factsAt[index] = facts;
    if (!facts.failed && facts.retryKey !== undefined) {
      const successes = successesByRetryKey.get(facts.retryKey);
      if (successes) successes.push(index);
      else successesByRetryKey.set(facts.retryKey, [index]);
    }
    // Failed results are left to the error/retry collapse: a duplicate stub would point to
    // a later copy that is itself collapsed.
    const key = facts.groupKey;
    if (key === undefined) return;
    const group = byCallKey.get(key);
    if (group) group.push(index);
    else byCallKey.set(key, [index]);
  });

  const duplicateStubOf = (message: ToolMessage, latest: number): string => {
    const latestMessage = messages[latest] as ToolMessage;
    const latestCall = threadIndex.callFor(latestMessage) as ToolCall;
    const rule = policy.ruleFor(latestMessage.toolName);
    return renderDuplicateStub(
      message.toolName,
      latestMessage.toolCallId,
      renderToolCall(latestCall, rule.provenanceArgs),
      rule.idempotent,
    );
  };
  // The later copy whose duplicate stub `message` already shows, byte for byte.
  const shownTarget = (message: ToolMessage, index: number, group: readonly number[]) => {
    if (typeof message.content !== "string" || !message.content.startsWith(DUPLICATE_PREFIX))
      return undefined;
    const named = message.content.slice(DUPLICATE_PREFIX.length).split(" (", 1)[0];
    for (let position = group.length - 1; position >= 0; position--) {
      const member = group[position] as number;
      if (member <= index) break;
      if ((messages[member] as ToolMessage).toolCallId !== named) continue;
      if (duplicateStubOf(message, member) === message.content) return member;
    }
    return undefined;
  };

  const stubbed = new Set<number>();
  for (const group of byCallKey.values()) {
    if (group.length < 2) continue;
    const latestByHash = new Map<string, number>();
    for (const index of group) latestByHash.set(messageContentSha256(messages[index] as Message), index);
    for (const index of group) {
      if (!cleanable(index)) continue;
      const message = messages[index] as ToolMessage;
      const shown = shownTarget(message, index, group);
      if (shown !== undefined) {
        stubs.push({ index, category: "duplicate", text: message.content as string, target: shown });
        stubbed.add(index);
        continue;
      }
      const latest = latestByHash.get(messageContentSha256(message)) as number;
      if (latest === index) continue;
      const text = duplicateStubOf(message, latest);
      if (text.length >= contentChars(message.content)) continue;
      stubs.push({ index, category: "duplicate", text, target: latest });
      stubbed.add(index);
    }
  }

  messages.forEach((message, index) => {
    if (message.role !== "tool" || stubbed.has(index) || !cleanable(index)) return;
    const facts = factsAt[index];
    if (!facts?.failed || !facts.call || facts.retryKey === undefined) return;
    const successes = successesByRetryKey.get(facts.retryKey);
    const rule = policy.ruleFor(message.toolName);
    const retry = successes && findRetry(successes, index, facts.call, rule, factsAt);
    if (retry === undefined) return;
    // Always collapsed, even when short: the stub also tells the model the retry worked.
    const failedCall = renderToolCall(facts.call, rule.provenanceArgs);
    const text =
      typeof message.content === "string" && isErrorRetryStubFor(message.content, failedCall)
        ? message.content
        : renderErrorRetryStub(contentText(message.content), failedCall);
    stubs.push({ index, category: "error-retry", text, target: retry });
  });
  return stubs.sort((a, b) => a.index - b.index);
}
