export type { DigestQueueOperation } from "../errors";
export { DigestQueueError } from "../errors";
export type {
  DeadLetterQueue,
  DigestQueue,
  DigestQueueMessage,
  ReceivedDigestMessage,
  ReceiveOptions,
} from "./digest-queue";
export type { InProcessDigestQueueOptions } from "./in-process-queue";
export { createInProcessDigestQueue, IN_PROCESS_QUEUE_DEFAULTS } from "./in-process-queue";
export { DIGEST_QUEUE_LIMITS, redriveDeduplicationId } from "./queue-limits";
