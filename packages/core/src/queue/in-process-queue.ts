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
import {
  checkMessage,
  checkReceive,
  checkVisibility,
  deadLetterDeduplicationId,
  deadLetterReason,
  redriveDeduplicationId,
} from "./queue-limits";

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
  /** Why it was sent to the dead letters on purpose. */
  readonly deadLetterReason?: string;
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
    // As SQS FIFO documents ("FIFO queue delivery logic"), a receive returns as many messages
    // of one group as it can, in order, and later receives return none of that group until
    // the messages received are deleted or visible again. Messages are kept in send order:
    // a group stops at its first message not yet available, and a group with a message in
    // flight gives nothing.
    const waiting = new Set(
      this.messages.filter((message) => this.inFlight(message, now)).map((message) => message.groupId),
    );
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
      received.push({
        messageId: message.messageId,
        receiptHandle: message.receiptHandle,
        body: message.body,
        groupId: message.groupId,
        deduplicationId: message.deduplicationId,
        receiveCount: message.receiveCount,
        sentAt: message.sentAt,
        ...(message.deadLetterReason === undefined ? {} : { deadLetterReason: message.deadLetterReason }),
      });
    }
    return received;
  }

  /** Messages available now (neither in flight nor delayed). */
  countVisible(): number {
    const now = this.clock.now().getTime();
    return this.messages.filter((message) => message.availableAt <= now).length;
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

/** The validated options of an in-process queue, durations in milliseconds. */
interface QueueSettings {
  clock: Clock;
  visibilityTimeoutSeconds: number;
  maxReceiveCount: number;
  dedupeWindowMs: number;
  delayMs: number;
}

function queueSettings(options: InProcessDigestQueueOptions): QueueSettings {
  const defaults = IN_PROCESS_QUEUE_DEFAULTS;
  const option = (field: keyof typeof defaults, min: number, max: number) =>
    integerOption(options[field] ?? defaults[field], field, min, max);
  return {
    clock: options.clock ?? systemClock,
    visibilityTimeoutSeconds: option("visibilityTimeoutSeconds", 0, 43_200),
    maxReceiveCount: option("maxReceiveCount", 1, 1_000),
    dedupeWindowMs: option("dedupeWindowSeconds", 0, 86_400) * 1000,
    delayMs: option("delaySeconds", 0, 900) * 1000,
  };
}

/** The deduplication ids sent within the window, with the message id each was sent as. */
class DeduplicationWindow {
  private readonly sentIds = new Map<string, { messageId: string; expiresAt: number }>();

  constructor(private readonly windowMs: number) {}

  /** The message id an earlier send of `deduplicationId` got within the window, if any. */
  earlier(deduplicationId: string, now: number): string | undefined {
    for (const [id, entry] of this.sentIds) if (entry.expiresAt <= now) this.sentIds.delete(id);
    return this.sentIds.get(deduplicationId)?.messageId;
  }

  remember(deduplicationId: string, messageId: string, now: number): void {
    this.sentIds.set(deduplicationId, { messageId, expiresAt: now + this.windowMs });
  }
}

/** The digest queue over its store: sends deduplicated within the window and delayed by the queue's delay. */
function mainQueue(store: FifoStore, settings: QueueSettings): DigestQueue {
  const window = new DeduplicationWindow(settings.dedupeWindowMs);
  return {
    async send(message: DigestQueueMessage) {
      checkMessage(message);
      const now = settings.clock.now().getTime();
      const earlier = window.earlier(message.deduplicationId, now);
      if (earlier !== undefined) return { messageId: earlier };
      const messageId = randomUUID();
      window.remember(message.deduplicationId, messageId, now);
      store.add({
        messageId,
        body: message.body,
        groupId: message.groupId,
        deduplicationId: message.deduplicationId,
        sentAt: new Date(now),
        availableAt: now + settings.delayMs,
        receiveCount: 0,
        receiptHandle: undefined,
      });
      return { messageId };
    },
    async receive(maxMessages: number, receiveOptions: ReceiveOptions = {}) {
      checkReceive(maxMessages, receiveOptions.visibilityTimeoutSeconds, receiveOptions.waitTimeSeconds);
      receiveOptions.signal?.throwIfAborted();
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
}

/** The dead letters over their store: a redrive sends the message to `queue` again under a new deduplication id. */
function deadLetterQueue(deadLetterStore: FifoStore, queue: DigestQueue, clock: Clock): DeadLetterQueue {
  const window = new DeduplicationWindow(IN_PROCESS_QUEUE_DEFAULTS.dedupeWindowSeconds * 1000);
  return {
    async send(message: DigestQueueMessage, reason: string, sourceMessageId: string) {
      checkMessage(message);
      const now = clock.now().getTime();
      const deduplicationId = deadLetterDeduplicationId(sourceMessageId);
      const earlier = window.earlier(deduplicationId, now);
      if (earlier !== undefined) return { messageId: earlier };
      const messageId = randomUUID();
      window.remember(deduplicationId, messageId, now);
      deadLetterStore.add({
        messageId,
        body: message.body,
        groupId: message.groupId,
        deduplicationId,
        sentAt: new Date(now),
        availableAt: now,
        receiveCount: 0,
        receiptHandle: undefined,
        deadLetterReason: deadLetterReason(reason),
      });
      return { messageId };
    },
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
    async countVisible() {
      return deadLetterStore.countVisible();
    },
    async delete(receiptHandle: string) {
      deadLetterStore.delete(receiptHandle);
    },
    async changeVisibility(receiptHandle: string, timeoutSeconds: number) {
      checkVisibility(timeoutSeconds, "changeVisibility");
      deadLetterStore.changeVisibility(receiptHandle, timeoutSeconds);
    },
  };
}

/**
 * A digest queue in this process with SQS FIFO semantics (see the port): per-group order,
 * several messages of a group per receive and none of it while any are in flight, a deduplication window that outlives deletes,
 * visibility timeouts with redelivery, dead letters after `maxReceiveCount` receives, and
 * a queue delay. For embedded runs and tests; its messages live as long as the process.
 *
 * @throws {InvalidOptionError} for an option out of its range.
 */
export function createInProcessDigestQueue(options: InProcessDigestQueueOptions = {}): DigestQueue & {
  readonly deadLetters: DeadLetterQueue;
} {
  const settings = queueSettings(options);
  const { clock, visibilityTimeoutSeconds } = settings;
  const deadLetterStore = new FifoStore(clock, visibilityTimeoutSeconds, Number.POSITIVE_INFINITY, () => {});
  const store = new FifoStore(clock, visibilityTimeoutSeconds, settings.maxReceiveCount, (message) => {
    deadLetterStore.add({ ...message, availableAt: clock.now().getTime(), receiptHandle: undefined });
  });
  const queue = mainQueue(store, settings);
  return { ...queue, deadLetters: deadLetterQueue(deadLetterStore, queue, clock) };
}
