export type {
  DeadLetterQueue,
  DigestQueue,
  DigestQueueMessage,
  ReceivedDigestMessage,
  ReceiveOptions,
} from "./digest-queue";
export type { DigestQueueOperation } from "./digest-queue-error";
export { DigestQueueError } from "./digest-queue-error";
export type { InProcessDigestQueueOptions } from "./in-process-queue";
export { createInProcessDigestQueue, IN_PROCESS_QUEUE_DEFAULTS } from "./in-process-queue";
export { DIGEST_QUEUE_LIMITS, redriveDeduplicationId } from "./queue-limits";
