import { createHash } from "node:crypto";
import { DigestQueueError, type DigestQueueOperation } from "../errors";

/** The limits SQS FIFO puts on a request, checked the same way by every adapter. */
export const DIGEST_QUEUE_LIMITS = {
  maxMessagesPerReceive: 10,
  maxVisibilityTimeoutSeconds: 43_200,
  /** The longest a receive may wait for a message (SQS long polling). */
  maxWaitTimeSeconds: 20,
  maxIdChars: 128,
  /** Characters of a dead letter's reason kept (SQS counts message attributes in the message's size). */
  maxDeadLetterReasonChars: 1_000,
} as const;

// 1–128 characters, each alphanumeric or ASCII punctuation.
const FIFO_ID = /^[\x21-\x7e]{1,128}$/;

/** @throws {DigestQueueError} (`InvalidParameterValue`) naming the bad field. */
export function checkMessage(message: { body: string; groupId: string; deduplicationId: string }): void {
  const invalid = (field: string, problem: string) =>
    new DigestQueueError(`send: ${field} ${problem}`, { operation: "send", code: "InvalidParameterValue" });
  if (typeof message.body !== "string" || message.body.length === 0)
    throw invalid("body", "must be non-empty");
  if (typeof message.groupId !== "string" || !FIFO_ID.test(message.groupId)) {
    throw invalid("groupId", "must be 1–128 alphanumeric or punctuation characters");
  }
  if (typeof message.deduplicationId !== "string" || !FIFO_ID.test(message.deduplicationId)) {
    throw invalid("deduplicationId", "must be 1–128 alphanumeric or punctuation characters");
  }
}

/** @throws {DigestQueueError} (`InvalidParameterValue`) for a count or timeout SQS would refuse. */
export function checkReceive(
  maxMessages: number,
  visibilityTimeoutSeconds: number | undefined,
  waitTimeSeconds?: number,
): void {
  if (
    !Number.isInteger(maxMessages) ||
    maxMessages < 1 ||
    maxMessages > DIGEST_QUEUE_LIMITS.maxMessagesPerReceive
  ) {
    throw new DigestQueueError(`receive: maxMessages must be an integer from 1 to 10, got ${maxMessages}`, {
      operation: "receive",
      code: "InvalidParameterValue",
    });
  }
  if (visibilityTimeoutSeconds !== undefined) checkVisibility(visibilityTimeoutSeconds, "receive");
  if (
    waitTimeSeconds !== undefined &&
    (!Number.isInteger(waitTimeSeconds) ||
      waitTimeSeconds < 0 ||
      waitTimeSeconds > DIGEST_QUEUE_LIMITS.maxWaitTimeSeconds)
  ) {
    throw new DigestQueueError(
      `receive: wait time must be an integer from 0 to 20 s, got ${waitTimeSeconds}`,
      { operation: "receive", code: "InvalidParameterValue" },
    );
  }
}

/** @throws {DigestQueueError} (`InvalidParameterValue`) for a timeout outside 0–43,200 s. */
export function checkVisibility(seconds: number, operation: DigestQueueOperation): void {
  if (
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    seconds > DIGEST_QUEUE_LIMITS.maxVisibilityTimeoutSeconds
  ) {
    throw new DigestQueueError(
      `${operation}: visibility timeout must be an integer from 0 to 43200 s, got ${seconds}`,
      {
        operation,
        code: "InvalidParameterValue",
      },
    );
  }
}

/**
 * The deduplication id of a redriven dead letter: the sha256 hex of its message id. A
 * redrive retried within the window collapses; the original id would collide with the
 * original send when the redrive comes soon after it.
 */
export function redriveDeduplicationId(messageId: string): string {
  return createHash("sha256").update(`redrive:${messageId}`, "utf8").digest("hex");
}

/** The deduplication id of a message sent straight to the dead letters: the sha256 hex of its source message id. */
export function deadLetterDeduplicationId(sourceMessageId: string): string {
  return createHash("sha256").update(`dead-letter:${sourceMessageId}`, "utf8").digest("hex");
}

/** A dead letter's reason as stored: non-empty, at most {@link DIGEST_QUEUE_LIMITS.maxDeadLetterReasonChars} characters. */
export function deadLetterReason(reason: string): string {
  const trimmed = [...(reason || "no reason given")].slice(0, DIGEST_QUEUE_LIMITS.maxDeadLetterReasonChars);
  return trimmed.join("");
}
