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
import { indexThread } from "./thread-index";
import type { Message } from "./types";

/** Which messages the keep-rules make untouchable, and why. */
export interface Protection {
  /** Index of the first message of the recency wall. */
  readonly wallStart: number;
  /** Per message index: the first keep-rule it matches, or undefined when it may be cleaned. */
  readonly reasons: readonly (KeepReason | undefined)[];
}

/**
 * Evaluates every keep-rule of DESIGN §4 over a thread. The worker's classification and
 * the assembler both call this: one implementation of "never junk".
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

  messages.forEach((message, index) => {
    if (isConversationalMessage(message)) {
      reasons[index] = KEEP_REASONS.conversational;
      return;
    }
    if (isInsideRecencyWall(index, wallStart)) {
      reasons[index] = KEEP_REASONS.recencyWall;
      return;
    }
    if (message.role !== "tool") return;
    const call = threadIndex.callFor(message);
    if (hasEmptyToolCallId(message)) reasons[index] = KEEP_REASONS.emptyToolCallId;
    else if (isInterruptResult(message, policy)) reasons[index] = KEEP_REASONS.interrupt;
    else if (isPolicyKept(message, policy)) reasons[index] = KEEP_REASONS.policyKeep;
    else if (isLedgerFirstPage(message, call, policy)) reasons[index] = KEEP_REASONS.ledgerFirstPage;
    else if (isReferencedByWindow(provenanceKeys(message, call, policy), references)) {
      reasons[index] = KEEP_REASONS.referencedByWindow;
      const source = sourceKey(message, call, policy);
      if (source !== undefined) referencedSources.add(`${message.toolName}\u0000${source}`);
    } else pending.push(index);
  });

  // Every result of a referenced source stays raw this pass, not only the mentioned one.
  if (referencedSources.size > 0) {
    for (const index of pending) {
      const message = messages[index];
      if (message?.role !== "tool") continue;
      const source = sourceKey(message, threadIndex.callFor(message), policy);
      if (source !== undefined && referencedSources.has(`${message.toolName}\u0000${source}`)) {
        reasons[index] = KEEP_REASONS.referencedByWindow;
      }
    }
  }
  return { wallStart, reasons };
}
