import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import { lambdaContext, type SqsRecordFields } from "@context-cleaner/core/worker";
import type { Context } from "aws-lambda";
import { heavyThread, rawToolChars } from "./threads";

/** Which turn of which thread a record carries. */
export interface TurnOf {
  orgId: string;
  threadId: string;
  turnEndedAt: string;
}

/**
 * The SQS record of a turn event of the ground-lease fixture thread (`rawToolChars` its
 * tool output's), as the publisher sends it: the event as its body, the thread's group id
 * and the turn's deduplication id. `event` changes fields of the body; the other overrides
 * replace the record's fields.
 */
export function turnRecordOf(
  turn: TurnOf,
  overrides: Partial<SqsRecordFields> & { event?: Record<string, unknown> } = {},
): SqsRecordFields {
  const { event: eventOverrides, ...fields } = overrides;
  const event = {
    orgId: turn.orgId,
    threadId: turn.threadId,
    rawToolChars: rawToolChars(heavyThread().messages),
    turnEndedAt: turn.turnEndedAt,
    ...eventOverrides,
  };
  return {
    body: JSON.stringify(event),
    groupId: turnEventGroupId(turn.orgId, turn.threadId),
    deduplicationId: turnEventDeduplicationId(turn.orgId, turn.threadId, turn.turnEndedAt),
    ...fields,
  };
}

/** The digest function's invocation context, with always `remainingMs` left. */
export function contextWith(remainingMs = 300_000): Context {
  return {
    ...lambdaContext({ functionName: "digest", timeoutMs: remainingMs }),
    getRemainingTimeInMillis: () => remainingMs,
  };
}
