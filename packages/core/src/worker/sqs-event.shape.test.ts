import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { LOCAL_QUEUE_ARN, sqsEvent, sqsRecord } from "./sqs-event";

const body = '{"orgId":"acme","threadId":"t-1"}';
const sentAt = new Date("2026-11-30T10:00:00.000Z");

describe("sqsRecord", () => {
  it("shapes a FIFO record as Lambda delivers it, every field given", () => {
    const record = sqsRecord({
      body,
      groupId: "acme/t-1",
      messageId: "m-1",
      receiptHandle: "r-1",
      deduplicationId: "d-1",
      receiveCount: 3,
      sentAt,
      eventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:digest.fifo",
    });
    expect(record).toEqual({
      messageId: "m-1",
      receiptHandle: "r-1",
      body,
      attributes: {
        ApproximateReceiveCount: "3",
        SentTimestamp: String(sentAt.getTime()),
        SenderId: "AIDAIENQZJOLO23YVJ4VO",
        ApproximateFirstReceiveTimestamp: String(sentAt.getTime()),
        SequenceNumber: `0000000${sentAt.getTime()}`,
        MessageGroupId: "acme/t-1",
        MessageDeduplicationId: "d-1",
      },
      messageAttributes: {},
      md5OfBody: createHash("md5").update(body, "utf8").digest("hex"),
      eventSource: "aws:sqs",
      eventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:digest.fifo",
      awsRegion: "eu-west-1",
    });
    expect(record.attributes.SequenceNumber).toHaveLength(20);
  });

  it("defaults: random ids, one receive, sent now, the body's sha256 as dedup id, the local queue", () => {
    const before = Date.now();
    const first = sqsRecord({ body: "é", groupId: "g" });
    const after = Date.now();
    const second = sqsRecord({ body: "é", groupId: "g" });
    expect(first.messageId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.receiptHandle).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.messageId).not.toBe(second.messageId);
    expect(first.receiptHandle).not.toBe(second.receiptHandle);
    expect(first.messageId).not.toBe(first.receiptHandle);
    expect(first.attributes.ApproximateReceiveCount).toBe("1");
    const sent = Number(first.attributes.SentTimestamp);
    expect(sent).toBeGreaterThanOrEqual(before);
    expect(sent).toBeLessThanOrEqual(after);
    expect(first.attributes.MessageDeduplicationId).toBe(
      createHash("sha256").update("é", "utf8").digest("hex"),
    );
    expect(first.md5OfBody).toBe(createHash("md5").update("é", "utf8").digest("hex"));
    expect(first.eventSourceARN).toBe(LOCAL_QUEUE_ARN);
    expect(first.awsRegion).toBe("local");
  });

  it("names no region for a source that is not an ARN", () => {
    expect(sqsRecord({ body, groupId: "g", eventSourceARN: "queue" }).awsRegion).toBe("");
  });
});

describe("sqsEvent", () => {
  it("holds the records in order", () => {
    const event = sqsEvent([
      { body: "a", groupId: "g", messageId: "1" },
      { body: "b", groupId: "g", messageId: "2" },
    ]);
    expect(event.Records.map((record) => [record.messageId, record.body])).toEqual([
      ["1", "a"],
      ["2", "b"],
    ]);
  });
});
