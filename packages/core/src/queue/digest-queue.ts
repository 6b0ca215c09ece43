/**
 * The digest queue port: a FIFO queue of turn events, one message group per thread.
 * Adapters: the SQS FIFO queue (production) and an in-process queue (embedded runs and
 * tests). Both pass one conformance suite.
 *
 * Semantics every adapter keeps:
 * - messages of one group are delivered in send order; a receive returns as many of one
 *   group as it can (up to its `maxMessages`), in order, and none of a group while any of
 *   its messages is in flight (one batch per thread at a time);
 * - a send whose deduplication id was sent in the last 5 minutes is accepted and dropped,
 *   whether or not the first message was deleted since;
 * - a received message stays invisible for the visibility timeout, then comes back with
 *   `receiveCount` one higher, unless it was deleted;
 * - a message received `maxReceiveCount` times and not deleted moves to the dead letters
 *   instead of being received again;
 * - the queue's delivery delay, if any, applies to every message. FIFO queues take no
 *   per-message delay: to retry a received message later, change its visibility.
 */

/** A message to enqueue. */
export interface DigestQueueMessage {
  /** The body, e.g. the JSON of a turn event. */
  readonly body: string;
  /** The FIFO group: 1–128 characters, alphanumeric or ASCII punctuation. */
  readonly groupId: string;
  /** The deduplication id: 1–128 characters, alphanumeric or ASCII punctuation. */
  readonly deduplicationId: string;
}

/** A message as received: in flight until deleted or until its visibility timeout passes. */
export interface ReceivedDigestMessage {
  readonly messageId: string;
  /** The handle of this receipt; delete and changeVisibility take it. */
  readonly receiptHandle: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  /** Receives of this message so far, this one included. */
  readonly receiveCount: number;
  readonly sentAt: Date;
  /** Why a dead letter was put in the dead letters, when it was sent there on purpose (a poison record). */
  readonly deadLetterReason?: string;
}

export interface ReceiveOptions {
  /** How long the received messages stay invisible, 0–43,200 s. @default the queue's visibility timeout */
  readonly visibilityTimeoutSeconds?: number;
  /**
   * Long polling: how long a receive waits for a message when none is visible, 0–20 s
   * (SQS's `WaitTimeSeconds`). The in-process queue answers at once. @default 0
   */
  readonly waitTimeSeconds?: number;
  /** Abandons a waiting receive: it rejects, and nothing it may have taken is lost (it comes back after its visibility timeout). */
  readonly signal?: AbortSignal;
}

/** Messages that were received too often without being deleted (poison or repeatedly failing jobs). */
export interface DeadLetterQueue {
  /** Up to `maxMessages` (1–10) dead letters; each is in flight until deleted or redriven. */
  receive(maxMessages: number, options?: ReceiveOptions): Promise<ReceivedDigestMessage[]>;
  /**
   * Sends a received dead letter back to the digest queue (same body and group, a
   * deduplication id derived from the dead letter's message id, so a retried redrive
   * collapses), then deletes it from the dead letters.
   */
  redrive(message: ReceivedDigestMessage): Promise<{ messageId: string }>;
  /**
   * Puts a message straight into the dead letters with the reason it is there (a record
   * with no ordering meaning, such as a body that is not a turn event), so the digest
   * queue can let it go without holding its group. The deduplication id is derived from
   * `sourceMessageId`, so a retried send collapses.
   */
  send(message: DigestQueueMessage, reason: string, sourceMessageId: string): Promise<{ messageId: string }>;
  /**
   * How many dead letters are visible and not received now: on SQS FIFO, those waiting
   * behind received ones of their group among them (approximate on SQS).
   */
  countVisible(): Promise<number>;
  /** Drops a received dead letter for good. */
  delete(receiptHandle: string): Promise<void>;
  /**
   * Sets how long a received dead letter stays invisible from now, 0–43,200 s (0 releases
   * it at once, e.g. after listing it).
   *
   * @throws {DigestQueueError} when the dead letter is not in flight under that handle.
   */
  changeVisibility(receiptHandle: string, timeoutSeconds: number): Promise<void>;
}

export interface DigestQueue {
  /** Enqueues a message; a duplicate within the deduplication window is accepted and dropped. */
  send(message: DigestQueueMessage): Promise<{ messageId: string }>;
  /**
   * Up to `maxMessages` (1–10) visible messages: of each group with none in flight, as many
   * as fit, in send order.
   */
  receive(maxMessages: number, options?: ReceiveOptions): Promise<ReceivedDigestMessage[]>;
  /** Deletes a received message. A receipt handle that is no longer current deletes nothing. */
  delete(receiptHandle: string): Promise<void>;
  /**
   * Sets how long a received message stays invisible from now, 0–43,200 s: 0 hands it
   * back at once, more retries it later (its group waits meanwhile).
   *
   * @throws {DigestQueueError} when the message is not in flight under that handle.
   */
  changeVisibility(receiptHandle: string, timeoutSeconds: number): Promise<void>;
  /** The dead letters, when the queue has a dead-letter queue. */
  readonly deadLetters?: DeadLetterQueue;
}
