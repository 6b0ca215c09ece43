import type { Message } from "@context-cleaner/assembler";
import { type JobContext, recordMetric, skipped } from "./job-context";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";
import type { DigestJobPayload } from "./payload";

/**
 * Whether a thread as the checkpoint holds it shows the turn the event announced: a message
 * with the announced `lastMessageId`, or without one, at least `messageCount` messages. An
 * event that announces nothing is shown by any read, even of no checkpoint at all; an
 * announced turn is never shown by a thread that has no checkpoint yet.
 */
export function showsAnnouncedTurn(
  messages: readonly Message[] | null,
  job: Pick<DigestJobPayload, "messageCount" | "lastMessageId">,
): boolean {
  const { messageCount, lastMessageId } = job;
  if (messageCount === undefined && lastMessageId === undefined) return true;
  if (messages === null) return false;
  if (lastMessageId !== undefined) return messages.some((message) => message.id === lastMessageId);
  return messages.length >= (messageCount as number);
}

/**
 * The plan's check of the thread it read against the turn the event announced. When the
 * checkpoint does not show it yet (the runtime published before it wrote the turn's
 * checkpoint), the job is skipped `checkpoint_behind` with `requeueAfterSeconds`
 * (`checkpointWaitSeconds`) while the delivery allows a wait: nothing is recorded or paid,
 * and the lease is released as the pass ends. Past the last wait the pass goes on with the
 * checkpoint as it is, counted (`CheckpointWaitsCapped`) and logged, and covers nothing,
 * so the turn is left to the next event or the nightly sweep.
 *
 * @returns the skip outcome, or `undefined` when the pass goes on.
 */
export function checkpointBehind(
  context: JobContext,
  messages: readonly Message[] | null,
): DigestJobOutcome | undefined {
  const { job, options, ports, delivery } = context;
  if (showsAnnouncedTurn(messages, job)) return undefined;
  if (delivery.mayWaitForCheckpoint === true) {
    return skipped(context, SKIP_REASONS.checkpointBehind, {
      requeueAfterSeconds: options.checkpointWaitSeconds,
    });
  }
  context.announcedTurnMissing = true;
  recordMetric(context, "CheckpointWaitsCapped", 1);
  ports.logger?.warn("the checkpoint does not show the announced turn: the pass goes on without it", {
    orgId: job.orgId,
    threadId: job.threadId,
    turnEndedAt: job.turnEndedAt,
    messageCount: job.messageCount,
    lastMessageId: job.lastMessageId,
    messagesRead: messages?.length ?? null,
  });
  return undefined;
}
