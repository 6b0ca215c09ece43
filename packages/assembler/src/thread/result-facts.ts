import { DUPLICATE_PREFIX } from "../contract/stubs";
import type { ToolPolicy } from "../policy";
import { isErrorResult, retryKey } from "../rules/error-retry";
import {
  hasEmptyToolCallId,
  isInterruptResult,
  isLedgerFirstPage,
  isPolicyKept,
  KEEP_REASONS,
  type KeepReason,
  provenanceKeys,
  readOffset,
  sourceKey,
} from "../rules/keep-rules";
import type { ToolCall, ToolMessage } from "../types";

/** What the cleaning rules say of one tool result on its own: its content, its call and the policy. */
export interface ResultFacts {
  /** The empty-tool-call-id, interrupt, policy-keep and ledger-first-page keep-rules, in that order. */
  readonly reason: KeepReason | undefined;
  /** The provenance keys the referenced-by-window keep-rule looks for. */
  readonly keys: readonly string[];
  /** The tool and document the result came from, for "every result of that source". */
  readonly source: string | undefined;
  /** The document id (the first provenance arg), when the result has one. */
  readonly document: string | undefined;
  /** The page's offset (the rule's `offsetArg`), when the call gives one. */
  readonly offset: number | undefined;
  readonly failed: boolean;
  /** Same tool and canonical args; undefined for failed results and results without a call. */
  readonly groupKey: string | undefined;
  /** See {@link retryKey}; undefined for results without a call. */
  readonly retryKey: string | undefined;
  /** Whether the content opens like a duplicate stub (an earlier assembly's view, or look-alike text). */
  readonly showsDuplicateStub: boolean;
}

function staticReason(message: ToolMessage, call: ToolCall | undefined, policy: ToolPolicy) {
  if (hasEmptyToolCallId(message)) return KEEP_REASONS.emptyToolCallId;
  if (isInterruptResult(message, policy)) return KEEP_REASONS.interrupt;
  if (isPolicyKept(message, policy, call)) return KEEP_REASONS.policyKeep;
  if (isLedgerFirstPage(message, call, policy)) return KEEP_REASONS.ledgerFirstPage;
  return undefined;
}

/** The facts of a tool result answering `call` (whose args are `argsJson`, canonical JSON) under `policy`. */
export function readResultFacts(
  message: ToolMessage,
  call: ToolCall | undefined,
  argsJson: string | undefined,
  policy: ToolPolicy,
): ResultFacts {
  const failed = isErrorResult(message);
  const document = sourceKey(message, call, policy);
  return {
    reason: staticReason(message, call, policy),
    keys: provenanceKeys(message, call, policy),
    source: document === undefined ? undefined : `${message.toolName}\u0000${document}`,
    document,
    offset: readOffset(call, policy.ruleFor(message.toolName).offsetArg),
    failed,
    groupKey: call && !failed ? `${message.toolName}\u0000${argsJson}` : undefined,
    retryKey: call
      ? retryKey(message.toolName, call, policy.ruleFor(message.toolName), argsJson as string)
      : undefined,
    showsDuplicateStub: typeof message.content === "string" && message.content.startsWith(DUPLICATE_PREFIX),
  };
}
