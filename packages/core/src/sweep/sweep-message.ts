import { turnEventMessage } from "@context-cleaner/assembler/events";
import type { DigestQueueMessage } from "../queue/digest-queue";

/**
 * The queue message of a swept thread: the turn-ended event's own message (the body,
 * group and deduplication ids a runtime's publisher sends for the same thread and turn).
 */
export function sweepMessage(
  thread: { orgId: string; threadId: string; turnEndedAt: string },
  rawToolChars: number,
): DigestQueueMessage {
  const { orgId, threadId, turnEndedAt } = thread;
  return turnEventMessage({ orgId, threadId, rawToolChars, turnEndedAt });
}
