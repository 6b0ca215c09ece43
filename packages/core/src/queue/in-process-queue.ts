import { randomUUID } from "node:crypto";
import { InvalidOptionError } from "@context-cleaner/assembler";
import { systemClock } from "../clock";
import { DigestQueueError } from "../errors";
import type { Clock } from "../ports";
import type {
  DeadLetterQueue,
  DigestQueue,
  DigestQueueMessage,
  ReceivedDigestMessage,
  ReceiveOptions,
} from "./digest-queue";
import { checkMessage, checkReceive, checkVisibility, redriveDeduplicationId } from "./queue-limits";

export interface InProcessDigestQueueOptions {
  /** The time source; a test moves it by hand. @default the wall clock */
  clock?: Clock;
  /** How long a received message stays invisible, in seconds. @default 30 */
  visibilityTimeoutSeconds?: number;
  /** Receives after which an undeleted message moves to the dead letters. @default 5 */
  maxReceiveCount?: number;
  /** How long a deduplication id is remembered, in seconds (SQS: 5 minutes). @default 300 */
  dedupeWindowSeconds?: number;
  /** Delivery delay of every message, 0–900 s (the queue's delay, as on SQS FIFO). @default 0 */
  delaySeconds?: number;
}

export const IN_PROCESS_QUEUE_DEFAULTS = {
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 5,
  dedupeWindowSeconds: 300,
  delaySeconds: 0,
} as const;

interface StoredMessage {
  readonly messageId: string;
  readonly body: string;
  readonly groupId: string;
  readonly deduplicationId: string;
  readonly sentAt: Date;
  /** When the message may next be received (after the delay, or after its visibility timeout). */
  availableAt: number;
  receiveCount: number;
  /** The handle of the latest receive; the message is in flight while `availableAt` is ahead. */
  receiptHandle: string | undefined;
}

function integerOption(value: number, field: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new InvalidOptionError(`${field}: must be an integer from ${min} to ${max}, got ${value}`, field);
  }
  return value;
}

/** One FIFO store: the digest queue, or its dead letters (which never expire to anywhere). */
class FifoStore {
  private readonly messages: StoredMessage[] = [];

  constructor(
    private readonly clock: Clock,
    private readonly visibilityTimeoutSeconds: number,
    private readonly maxReceiveCount: number,
    private readonly onDeadLetter: (message: StoredMessage) => void,
  ) {}

  add(message: StoredMessage): void {
    this.messages.push(message);
  }

  receive(
    maxMessages: number,
    visibilityTimeoutSeconds = this.visibilityTimeoutSeconds,
  ): ReceivedDigestMessage[] {
    const now = this.clock.now().getTime();
    // Messages are kept in send order, so a group's first message is the one in flight or
    // delayed: a group stops at its first message not yet available, and after one delivery.
    const waiting = new Set<string>();
    const received: ReceivedDigestMessage[] = [];
    for (const message of [...this.messages]) {
      if (received.length >= maxMessages) break;
      if (waiting.has(message.groupId)) continue;
      if (message.availableAt > now) {
        waiting.add(message.groupId);
        continue;
      }
      message.receiveCount += 1;
      if (message.receiveCount > this.maxReceiveCount) {
        this.remove(message);
        this.onDeadLetter(message);
        continue;
      }
      message.receiptHandle = randomUUID();
      message.availableAt = now + visibilityTimeoutSeconds * 1000;
      waiting.add(message.groupId);
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        groupId: message.groupId,
        deduplicationId: message.deduplicationId,
        receiveCount: message.receiveCount,
        sentAt: message.sentAt,
      });
    }
    return received;
  }

  delete(receiptHandle: string): void {
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message !== undefined) this.remove(message);
  }

  changeVisibility(receiptHandle: string, timeoutSeconds: number): void {
    const now = this.clock.now().getTime();
    const message = this.messages.find((candidate) => candidate.receiptHandle === receiptHandle);
    if (message === undefined || !this.inFlight(message, now)) {
      throw new DigestQueueError("changeVisibility: the message is not in flight under this receipt handle", {
        operation: "changeVisibility",
        code: "MessageNotInflight",
      });
    }
    message.availableAt = now + timeoutSeconds * 1000;
  }

  private inFlight(message: StoredMessage, now: number): boolean {
    return message.receiptHandle !== undefined && message.availableAt > now;
  }

  private remove(message: StoredMessage): void {
    this.messages.splice(this.messages.indexOf(message), 1);
  }
}

/**
 * A digest queue in this process with SQS FIFO semantics (see the port): per-group order
 * with one receive in flight per group, a deduplication window that outlives deletes,
 * visibility timeouts with redelivery, dead letters after `maxReceiveCount` receives, and
 * a queue delay. For embedded runs and tests; its messages live as long as the process.
 *
 * @throws {InvalidOptionError} for an option out of its range.
 */
export function createInProcessDigestQueue(options: InProcessDigestQueueOptions = {}): DigestQueue & {
  readonly deadLetters: DeadLetterQueue;
} {
  const clock = options.clock ?? systemClock;
  const defaults = IN_PROCESS_QUEUE_DEFAULTS;
  const visibility = integerOption(
    options.visibilityTimeoutSeconds ?? defaults.visibilityTimeoutSeconds,
    "visibilityTimeoutSeconds",
    0,
    43_200,
  );
  const maxReceiveCount = integerOption(
    options.maxReceiveCount ?? defaults.maxReceiveCount,
    "maxReceiveCount",
    1,
    1_000,
  );
  const dedupeWindowMs =
    integerOption(
      options.dedupeWindowSeconds ?? defaults.dedupeWindowSeconds,
      "dedupeWindowSeconds",
      0,
      86_400,
    ) * 1000;
  const delayMs = integerOption(options.delaySeconds ?? defaults.delaySeconds, "delaySeconds", 0, 900) * 1000;

  const deadLetterStore = new FifoStore(clock, visibility, Number.POSITIVE_INFINITY, () => {});
  const store = new FifoStore(clock, visibility, maxReceiveCount, (message) => {
    deadLetterStore.add({ ...message, availableAt: clock.now().getTime(), receiptHandle: undefined });
  });
  const sentIds = new Map<string, { messageId: string; expiresAt: number }>();

  const queue: DigestQueue = {
    async send(message: DigestQueueMessage) {
      checkMessage(message);
      const now = clock.now().getTime();
      for (const [id, entry] of sentIds) if (entry.expiresAt <= now) sentIds.delete(id);
      const earlier = sentIds.get(message.deduplicationId);
      if (earlier !== undefined) return { messageId: earlier.messageId };
      const messageId = randomUUID();
      sentIds.set(message.deduplicationId, { messageId, expiresAt: now + dedupeWindowMs });
      store.add({
        messageId,
        body: message.body,
        groupId: message.groupId,
        deduplicationId: message.deduplicationId,
        sentAt: new Date(now),
        availableAt: now + delayMs,
        receiveCount: 0,
        receiptHandle: undefined,
      });
      return { messageId };
    },
    async receive(maxMessages: number, receiveOptions: ReceiveOptions = {}) {
      checkReceive(maxMessages, receiveOptions.visibilityTimeoutSeconds);
      return store.receive(maxMessages, receiveOptions.visibilityTimeoutSeconds);
    },
    async delete(receiptHandle: string) {
      store.delete(receiptHandle);
    },
    async changeVisibility(receiptHandle: string, timeoutSeconds: number) {
      checkVisibility(timeoutSeconds, "changeVisibility");
      store.changeVisibility(receiptHandle, timeoutSeconds);
    },
  };

  const deadLetters: DeadLetterQueue = {
    async receive(maxMessages: number, receiveOptions: ReceiveOptions = {}) {
      checkReceive(maxMessages, receiveOptions.visibilityTimeoutSeconds);
      return deadLetterStore.receive(maxMessages, receiveOptions.visibilityTimeoutSeconds);
    },
    async redrive(message: ReceivedDigestMessage) {
      const sent = await queue.send({
        body: message.body,
        groupId: message.groupId,
        deduplicationId: redriveDeduplicationId(message.messageId),
      });
      deadLetterStore.delete(message.receiptHandle);
      return sent;
    },
    async delete(receiptHandle: string) {
      deadLetterStore.delete(receiptHandle);
    },
    async changeVisibility(receiptHandle: string, timeoutSeconds: number) {
      checkVisibility(timeoutSeconds, "changeVisibility");
      deadLetterStore.changeVisibility(receiptHandle, timeoutSeconds);
    },
  };

  return { ...queue, deadLetters };
}
