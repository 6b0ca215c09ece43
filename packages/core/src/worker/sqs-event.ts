import { createHash, randomUUID } from "node:crypto";
import type { SQSEvent, SQSRecord } from "aws-lambda";

/** The fields of one SQS FIFO message as Lambda's event source mapping delivers it. */
export interface SqsRecordFields {
  body: string;
  groupId: string;
  /** @default a random UUID */
  messageId?: string;
  /** @default a random handle */
  receiptHandle?: string;
  /** @default the sha256 hex of the body */
  deduplicationId?: string;
  /** Receives of the message so far, this one included. @default 1 */
  receiveCount?: number;
  /** @default now */
  sentAt?: Date;
  /** @default a local queue's ARN */
  eventSourceARN?: string;
}

/** The ARN of the local (in-process) digest queue, as events from it name their source. */
export const LOCAL_QUEUE_ARN = "arn:aws:sqs:local:000000000000:digest-queue.fifo";

/** The region part of an SQS ARN (`arn:aws:sqs:<region>:<account>:<name>`). */
function regionOf(arn: string): string {
  return arn.split(":")[3] ?? "";
}

/**
 * One `SQSRecord` of a FIFO queue, shaped as Lambda delivers it: system attributes as
 * strings, the body's MD5, the source ARN and region. The local worker builds its events
 * with it; tests build theirs with it instead of hand-written JSON.
 */
export function sqsRecord(fields: SqsRecordFields): SQSRecord {
  const sentAt = (fields.sentAt ?? new Date()).getTime();
  const eventSourceARN = fields.eventSourceARN ?? LOCAL_QUEUE_ARN;
  return {
    messageId: fields.messageId ?? randomUUID(),
    receiptHandle: fields.receiptHandle ?? randomUUID(),
    body: fields.body,
    attributes: {
      ApproximateReceiveCount: String(fields.receiveCount ?? 1),
      SentTimestamp: String(sentAt),
      SenderId: "AIDAIENQZJOLO23YVJ4VO",
      ApproximateFirstReceiveTimestamp: String(sentAt),
      SequenceNumber: String(sentAt).padStart(20, "0"),
      MessageGroupId: fields.groupId,
      MessageDeduplicationId:
        // Stryker disable next-line StringLiteral: Node hashes a string as UTF-8 when the encoding is empty, so "" is "utf8"
        fields.deduplicationId ?? createHash("sha256").update(fields.body, "utf8").digest("hex"),
    },
    messageAttributes: {},
    // Stryker disable next-line StringLiteral: Node hashes a string as UTF-8 when the encoding is empty, so "" is "utf8"
    md5OfBody: createHash("md5").update(fields.body, "utf8").digest("hex"),
    eventSource: "aws:sqs",
    eventSourceARN,
    awsRegion: regionOf(eventSourceARN),
  };
}

/** An `SQSEvent` of the given records, in order. */
export function sqsEvent(records: readonly SqsRecordFields[]): SQSEvent {
  return { Records: records.map(sqsRecord) };
}
