import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  type Message,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { DigestQueueError, type DigestQueueOperation } from "../errors";
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

export interface SqsDigestQueueOptions {
  /** The SQS client (region, credentials and endpoint are the caller's). */
  client: Pick<SQSClient, "send">;
  /** URL of the FIFO digest queue. */
  queueUrl: string;
  /** URL of its FIFO dead-letter queue; without it the adapter has no `deadLetters`. */
  dlqUrl?: string;
}

const SYSTEM_ATTRIBUTES = [
  "ApproximateReceiveCount",
  "MessageGroupId",
  "MessageDeduplicationId",
  "SentTimestamp",
] as const;

/** The message attribute a dead letter sent on purpose carries its reason in. */
const DEAD_LETTER_REASON_ATTRIBUTE = "DeadLetterReason";

interface SdkError {
  name?: string;
  message?: string;
  $fault?: "client" | "server";
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Wraps an SDK failure: server faults, throttling and failures without an HTTP response
 * (the network) are retryable; a refused request is not.
 */
function queueError(operation: DigestQueueOperation, error: unknown): DigestQueueError {
  if (error instanceof DigestQueueError) return error;
  const sdk = (typeof error === "object" && error !== null ? error : {}) as SdkError;
  const status = sdk.$metadata?.httpStatusCode;
  const retryable =
    sdk.$fault === "server" ||
    sdk.$retryable !== undefined ||
    status === undefined ||
    status === 429 ||
    status >= 500;
  return new DigestQueueError(`${operation}: ${sdk.message ?? String(error)}`, {
    operation,
    code: sdk.name ?? "Unknown",
    retryable,
    cause: error,
  });
}

function toReceived(message: Message): ReceivedDigestMessage {
  const attributes = message.Attributes ?? {};
  const { MessageId, ReceiptHandle, Body } = message;
  const groupId = attributes.MessageGroupId;
  const deduplicationId = attributes.MessageDeduplicationId;
  const reason = message.MessageAttributes?.[DEAD_LETTER_REASON_ATTRIBUTE]?.StringValue;
  if (!MessageId || !ReceiptHandle || Body === undefined || !groupId || !deduplicationId) {
    throw new DigestQueueError(
      "receive: a message lacks its id, receipt handle, body, group or deduplication id",
      {
        operation: "receive",
        code: "IncompleteMessage",
      },
    );
  }
  return {
    messageId: MessageId,
    receiptHandle: ReceiptHandle,
    body: Body,
    groupId,
    deduplicationId,
    receiveCount: Number(attributes.ApproximateReceiveCount ?? "1"),
    sentAt: new Date(Number(attributes.SentTimestamp ?? "0")),
    ...(reason === undefined ? {} : { deadLetterReason: reason }),
  };
}

async function call<T>(operation: DigestQueueOperation, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw queueError(operation, error);
  }
}

/** Receive, delete and change visibility on one queue URL. */
function receiver(client: Pick<SQSClient, "send">, queueUrl: string) {
  return {
    receive: (maxMessages: number, options: ReceiveOptions = {}) =>
      call("receive", async () => {
        checkReceive(maxMessages, options.visibilityTimeoutSeconds, options.waitTimeSeconds);
        const command = new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: maxMessages,
          VisibilityTimeout: options.visibilityTimeoutSeconds,
          WaitTimeSeconds: options.waitTimeSeconds ?? 0,
          MessageSystemAttributeNames: [...SYSTEM_ATTRIBUTES],
          MessageAttributeNames: [DEAD_LETTER_REASON_ATTRIBUTE],
        });
        const output = options.signal
          ? await client.send(command, { abortSignal: options.signal })
          : await client.send(command);
        return (output.Messages ?? []).map(toReceived);
      }),
    delete: (receiptHandle: string) =>
      call("delete", async () => {
        await client.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: receiptHandle }));
      }),
    changeVisibility: (receiptHandle: string, timeoutSeconds: number) =>
      call("changeVisibility", async () => {
        checkVisibility(timeoutSeconds, "changeVisibility");
        await client.send(
          new ChangeMessageVisibilityCommand({
            QueueUrl: queueUrl,
            ReceiptHandle: receiptHandle,
            VisibilityTimeout: timeoutSeconds,
          }),
        );
      }),
  };
}

/**
 * The digest queue on Amazon SQS FIFO. Every SDK failure becomes a `DigestQueueError`
 * carrying the SQS error code and whether a retry can help.
 *
 * @example
 * ```ts
 * const queue = createSqsDigestQueue({ client: new SQSClient({}), queueUrl: Resource.DigestQueue.url });
 * ```
 */
export function createSqsDigestQueue(options: SqsDigestQueueOptions): DigestQueue {
  const { client, queueUrl, dlqUrl } = options;
  const main = receiver(client, queueUrl);

  const sendTo = (url: string, message: DigestQueueMessage, reason?: string) =>
    call("send", async () => {
      checkMessage(message);
      const output = await client.send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: message.body,
          MessageGroupId: message.groupId,
          MessageDeduplicationId: message.deduplicationId,
          ...(reason === undefined
            ? {}
            : {
                MessageAttributes: {
                  [DEAD_LETTER_REASON_ATTRIBUTE]: {
                    DataType: "String",
                    StringValue: deadLetterReason(reason),
                  },
                },
              }),
        }),
      );
      if (!output.MessageId) {
        throw new DigestQueueError("send: SQS returned no message id", {
          operation: "send",
          code: "NoMessageId",
        });
      }
      return { messageId: output.MessageId };
    });
  const send = (message: DigestQueueMessage) => sendTo(queueUrl, message);

  const queue: DigestQueue = { send, ...main };
  if (dlqUrl === undefined) return queue;

  const dead = receiver(client, dlqUrl);
  const deadLetters: DeadLetterQueue = {
    receive: dead.receive,
    delete: dead.delete,
    changeVisibility: dead.changeVisibility,
    countVisible: () =>
      call("count", async () => {
        const output = await client.send(
          new GetQueueAttributesCommand({
            QueueUrl: dlqUrl,
            AttributeNames: ["ApproximateNumberOfMessages"],
          }),
        );
        return Number(output.Attributes?.ApproximateNumberOfMessages ?? "0");
      }),
    send: (message, reason, sourceMessageId) =>
      sendTo(dlqUrl, { ...message, deduplicationId: deadLetterDeduplicationId(sourceMessageId) }, reason),
    async redrive(message: ReceivedDigestMessage) {
      const sent = await send({
        body: message.body,
        groupId: message.groupId,
        deduplicationId: redriveDeduplicationId(message.messageId),
      });
      await dead.delete(message.receiptHandle);
      return sent;
    },
  };
  return { ...queue, deadLetters };
}
