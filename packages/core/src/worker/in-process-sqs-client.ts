import type { SqsSendClient } from "@context-cleaner/assembler/events";
import type { DigestQueue } from "../queue/index";

/**
 * An SQS client for the runtime's turn-event publisher that sends into a digest queue in
 * this process (`createInProcessDigestQueue`): the embedded default, where the runtime,
 * the queue and the worker share one process. It carries over the body, the group and the
 * deduplication id, which is all a FIFO send has.
 *
 * @example
 * const queue = createInProcessDigestQueue();
 * const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
 */
export function inProcessSqsClient(queue: Pick<DigestQueue, "send">): SqsSendClient {
  return {
    async send(command) {
      const { MessageBody, MessageGroupId, MessageDeduplicationId } = command.input;
      const { messageId } = await queue.send({
        body: MessageBody ?? "",
        groupId: MessageGroupId ?? "",
        deduplicationId: MessageDeduplicationId ?? "",
      });
      return { MessageId: messageId, $metadata: {} };
    },
  };
}
