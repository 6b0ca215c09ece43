import {
  hasEmptyToolCallId,
  isConversationalMessage,
  isInsideRecencyWall,
  isInterruptResult,
  isLedgerFirstPage,
  isPolicyKept,
  isReferencedByWindow,
  KEEP_REASONS,
  type KeepReason,
  provenanceKeys,
  recencyWallStart,
  sourceKey,
  windowReferences,
} from "./keep-rules";
import type { ToolPolicy } from "./policy";
import { indexThread, type ThreadIndex } from "./thread-index";
import type { Message, ToolCall, ToolMessage } from "./types";

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

/**
 * Evaluates every keep-rule (docs/architecture.md#keep-rules) over a thread. The worker's
 * classification and the assembler both call this: one implementation of "never junk".
 */
export function protectMessages(
  messages: readonly Message[],
  policy: ToolPolicy,
  recencyKeepExchanges: number,
): Protection {
  const wallStart = recencyWallStart(messages, recencyKeepExchanges);
  const threadIndex = indexThread(messages);
  const references = windowReferences(messages, wallStart);
  const reasons: (KeepReason | undefined)[] = new Array(messages.length).fill(undefined);
  const referencedSources = new Set<string>();
  const pending: number[] = [];

  const pendingSources: (string | undefined)[] = [];
  const mentioned = new Set<number>();

  messages.forEach((message, index) => {
    if (isConversationalMessage(message)) {
      reasons[index] = KEEP_REASONS.conversational;
      return;
    }
    if (isInsideRecencyWall(index, wallStart)) {
      reasons[index] = KEEP_REASONS.recencyWall;
      return;
    }
    // Stryker disable next-line ConditionalExpression: every message that is not a tool result returned above as conversational
    if (message.role !== "tool") return;
    const facts = staticFacts(message, threadIndex.callFor(message), policy);
    // A mentioned result protects its whole source even when another rule already keeps it.
    const referenced = isReferencedByWindow(facts.keys, references);
    if (referenced) {
      mentioned.add(index);
      // Stryker disable next-line ConditionalExpression: an `undefined` entry is never looked up (pending sources are checked for undefined)
      if (facts.source !== undefined) referencedSources.add(facts.source);
    }
    if (facts.reason !== undefined) reasons[index] = facts.reason;
    else if (referenced) reasons[index] = KEEP_REASONS.referencedByWindow;
    else {
      pending.push(index);
      pendingSources.push(facts.source);
    }
  });

  // Every result of a referenced source stays raw this pass, not only the mentioned one.
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; over an empty set the loop changes nothing
  if (referencedSources.size > 0) {
    pending.forEach((index, position) => {
      const source = pendingSources[position];
      if (source !== undefined && referencedSources.has(source))
        reasons[index] = KEEP_REASONS.referencedByWindow;
    });
  }
  return { wallStart, reasons, threadIndex, mentioned };
}

/** What the keep-rules say of a result regardless of the window: cached per message object. */
interface StaticFacts {
  readonly content: unknown;
  readonly call: ToolCall | undefined;
  readonly policy: ToolPolicy;
  /** The empty-tool-call-id, interrupt, policy-keep and ledger-first-page keep-rules, in that order. */
  readonly reason: KeepReason | undefined;
  /** The provenance keys the referenced-by-window keep-rule looks for. */
  readonly keys: readonly string[];
  /** The tool and document the result came from, for "every result of that source". */
  readonly source: string | undefined;
}

const factsByMessage = new WeakMap<ToolMessage, StaticFacts>();

function staticFacts(message: ToolMessage, call: ToolCall | undefined, policy: ToolPolicy): StaticFacts {
  const cached = factsByMessage.get(message);
  if (cached && cached.content === message.content && cached.call === call && cached.policy === policy) {
    return cached;
  }
  let reason: KeepReason | undefined;
  if (hasEmptyToolCallId(message)) reason = KEEP_REASONS.emptyToolCallId;
  else if (isInterruptResult(message, policy)) reason = KEEP_REASONS.interrupt;
  else if (isPolicyKept(message, policy)) reason = KEEP_REASONS.policyKeep;
  else if (isLedgerFirstPage(message, call, policy)) reason = KEEP_REASONS.ledgerFirstPage;
  const document = sourceKey(message, call, policy);
  const facts: StaticFacts = {
    content: message.content,
    call,
    policy,
    reason,
    keys: provenanceKeys(message, call, policy),
    source: document === undefined ? undefined : `${message.toolName}\u0000${document}`,
  };
  factsByMessage.set(message, facts);
  return facts;
}
