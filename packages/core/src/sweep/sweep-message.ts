import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import type { DigestQueueMessage } from "../queue/digest-queue";

/**
 * The queue message of a swept thread: the body a runtime's publisher sends for a turn
 * (`{ orgId, threadId, rawToolChars, turnEndedAt }`), under the group and deduplication
 * ids the publisher gives the same thread and turn.
 */
export function sweepMessage(
  thread: { orgId: string; threadId: string; turnEndedAt: string },
  rawToolChars: number,
): DigestQueueMessage {
  const { orgId, threadId, turnEndedAt } = thread;
  return {
    body: JSON.stringify({ orgId, threadId, rawToolChars, turnEndedAt }),
    groupId: turnEventGroupId(orgId, threadId),
    deduplicationId: turnEventDeduplicationId(orgId, threadId, turnEndedAt),
  };
}
