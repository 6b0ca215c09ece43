import { connect } from "node:net";
import {
  ChangeMessageVisibilityCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQS_EMULATOR_HOST, type SqsEmulator, startSqsEmulator } from "./sqs-emulator";

let emulator: SqsEmulator;

beforeAll(async () => {
  emulator = await startSqsEmulator();
});

afterAll(async () => {
  await emulator?.stop();
});

/** Whether a TCP connection to host:port opens. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("the services tier's SQS emulator", () => {
  it("listens on 127.0.0.1 only", async () => {
    expect(emulator.endpoint).toBe(`http://127.0.0.1:${emulator.port}`);
    expect(await reachable(SQS_EMULATOR_HOST, emulator.port)).toBe(true);
    // 127.0.0.2 is loopback too, but a socket bound to 127.0.0.1 (not 0.0.0.0) refuses it.
    expect(await reachable("127.0.0.2", emulator.port)).toBe(false);
  });

  it("hands out queue URLs that name the address it listens on", async () => {
    const { queueUrl, queueArn } = await emulator.createQueue("urls.fifo", { FifoQueue: "true" });
    expect(queueUrl).toBe(`${emulator.endpoint}/000000000000/urls.fifo`);
    expect(queueArn).toBe("arn:aws:sqs:us-east-1:000000000000:urls.fifo");
  });

  it("serves a client with no endpoint, which sends each call to its queue URL's host", async () => {
    const { queueUrl } = await emulator.createQueue("no-endpoint.fifo", {
      FifoQueue: "true",
      VisibilityTimeout: "60",
    });
    // As the deployed functions build it: no endpoint, so the SDK routes by the queue URL.
    const sqs = new SQSClient({
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
      logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    });
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl,
          MessageBody: "turn",
          MessageGroupId: "thread",
          MessageDeduplicationId: "turn-1",
        }),
      );
      const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
      const received = first.Messages?.[0];
      expect(received?.Body).toBe("turn");
      await sqs.send(
        new ChangeMessageVisibilityCommand({
          QueueUrl: queueUrl,
          ReceiptHandle: received?.ReceiptHandle,
          VisibilityTimeout: 0,
        }),
      );
      // Visible again at once: received a second time, then deleted.
      const again = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MessageSystemAttributeNames: ["ApproximateReceiveCount"],
        }),
      );
      const redelivered = again.Messages?.[0];
      expect(redelivered?.Body).toBe("turn");
      expect(redelivered?.Attributes?.ApproximateReceiveCount).toBe("2");
      await sqs.send(
        new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: redelivered?.ReceiptHandle }),
      );
      const empty = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl }));
      expect(empty.Messages ?? []).toEqual([]);
    } finally {
      sqs.destroy();
    }
  });
});
