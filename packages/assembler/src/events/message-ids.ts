import { createHash } from "node:crypto";
import { announcedTurn, midTurnMark, normalizeTurnEndedAt, type TurnEndedEvent } from "./turn-event";

// SQS FIFO ids: at most 128 characters, each alphanumeric or ASCII punctuation; URI
// encoding keeps a readable id within that alphabet.
const SQS_ID_MAX_CHARS = 128;

export function sha256Hex(parts: readonly string[]): string {
  return createHash("sha256").update(JSON.stringify(parts), "utf8").digest("hex");
}

/** `org:thread`, each part URI-encoded; undefined for an id with a lone surrogate (no UTF-8 form). */
export function uriEncoded(orgId: string, threadId: string): string | undefined {
  try {
    return `${encodeURIComponent(orgId)}:${encodeURIComponent(threadId)}`;
  } catch {
    // URIError: a lone surrogate has no UTF-8 form; the hashed id covers it.
    return undefined;
  }
}

/**
 * The FIFO message group of a thread: every event of one thread shares it, so the worker
 * runs one job per thread at a time. Readable (`org:thread`, each part URI-encoded so a
 * `:` inside an id cannot make two threads meet) when that fits SQS's 128 characters;
 * otherwise the sha256 hex of the pair, which has no `:` and so never equals a readable id.
 */
export function turnEventGroupId(orgId: string, threadId: string): string {
  const readable = uriEncoded(orgId, threadId);
  if (readable !== undefined && readable.length <= SQS_ID_MAX_CHARS) return readable;
  return sha256Hex(["group", orgId, threadId]);
}

/**
 * The FIFO deduplication id of one turn's event: sha256 hex of org, thread and the
 * instant the turn ended (64 characters). A retried publish of the same turn, or the
 * sweep re-enqueueing it, collapses into one message within the queue's 5-minute window.
 * The announced turn (`messageCount`, `lastMessageId`) is not part of it: a retried publish
 * announces the same turn, and a sweep's job for the same instant announces none.
 *
 * @throws {InvalidTurnEventError} when `turnEndedAt` is not a valid instant.
 */
export function turnEventDeduplicationId(
  orgId: string,
  threadId: string,
  turnEndedAt: Date | string,
): string {
  return sha256Hex(["turn-ended", orgId, threadId, normalizeTurnEndedAt(turnEndedAt)]);
}

/**
 * The FIFO deduplication id of a mid-turn event: sha256 hex of org, thread, the instant it
 * was published and the message count it announces. It never equals a turn-ended event's,
 * and successive mid-turn events of one turn differ by their message count even when the
 * runtime's clock gives them the same instant; a retried publish of the same event collapses.
 *
 * @throws {InvalidTurnEventError} when `publishedAt` is not a valid instant.
 */
export function midTurnEventDeduplicationId(
  orgId: string,
  threadId: string,
  publishedAt: Date | string,
  messageCount?: number,
): string {
  return sha256Hex([
    "mid-turn",
    orgId,
    threadId,
    normalizeTurnEndedAt(publishedAt),
    String(messageCount ?? ""),
  ]);
}

/** A turn-ended event as an SQS FIFO message: its body and ids. */
export interface TurnEventMessage {
  /** The event as JSON: its four fields, the announced turn's when present, and `midTurn` for a mid-turn event. */
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
}

/**
 * The queue message of a turn-ended event, as the publisher sends it and the sweep
 * re-enqueues it: the body holds the event's fields only (the four, then `messageCount` and
 * `lastMessageId` when the event announces its turn, and `midTurn: true` for a mid-turn
 * event), the group is the thread's, and the deduplication id the turn's (a mid-turn
 * event's: {@link midTurnEventDeduplicationId}).
 */
export function turnEventMessage(event: TurnEndedEvent): TurnEventMessage {
  const { orgId, threadId, rawToolChars, turnEndedAt } = event;
  const mark = midTurnMark(event);
  return {
    body: JSON.stringify({ orgId, threadId, rawToolChars, turnEndedAt, ...announcedTurn(event), ...mark }),
    groupId: turnEventGroupId(orgId, threadId),
    deduplicationId: mark.midTurn
      ? midTurnEventDeduplicationId(orgId, threadId, turnEndedAt, event.messageCount)
      : turnEventDeduplicationId(orgId, threadId, turnEndedAt),
  };
}
