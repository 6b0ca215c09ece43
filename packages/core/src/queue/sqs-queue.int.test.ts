import { setTimeout as sleep } from "node:timers/promises";
import { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeDigestQueueConformance } from "#test/core/conformance/digest-queue-conformance";
import { type SqsEmulator, startSqsEmulator } from "#test/repo/services/sqs-emulator";
import { DigestQueueError } from "../errors";
import { createSqsDigestQueue } from "./sqs-queue";

// fauxqs on loopback.
let server: SqsEmulator;
let client: SQSClient;
let queues = 0;

function sqsClient(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 1,
  });
}

beforeAll(async () => {
  server = await startSqsEmulator();
  client = sqsClient(server.endpoint);
});

afterAll(async () => {
  client?.destroy();
  await server?.stop();
});

describeDigestQueueConformance(
  "SQS (fauxqs)",
  async (settings) => {
    queues += 1;
    const dlq = await server.createQueue(`digest-dlq-${queues}.fifo`, {
      FifoQueue: "true",
      ContentBasedDeduplication: "false",
    });
    const main = await server.createQueue(`digest-${queues}.fifo`, {
      FifoQueue: "true",
      ContentBasedDeduplication: "false",
      VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
      DelaySeconds: String(settings.delaySeconds),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: dlq.queueArn,
        maxReceiveCount: settings.maxReceiveCount,
      }),
    });
    return {
      queue: createSqsDigestQueue({ client, queueUrl: main.queueUrl, dlqUrl: dlq.queueUrl }),
      advance: (seconds) => sleep(seconds * 1000),
      now: () => new Date(),
      close: async () => {},
    };
  },
  // fauxqs hands out one message per group per receive; real SQS FIFO hands out several.
  { severalPerGroup: false },
);

describe("createSqsDigestQueue", () => {
  it("has no dead letters without a dead-letter queue URL", async () => {
    const { queueUrl } = await server.createQueue("no-dlq.fifo", { FifoQueue: "true" });
    expect(createSqsDigestQueue({ client, queueUrl }).deadLetters).toBeUndefined();
  });

  it("names the SQS error code of a refused request, not retryable", async () => {
    const queue = createSqsDigestQueue({
      client,
      queueUrl: `${server.endpoint}/000000000000/missing.fifo`,
    });
    const error = await queue
      .send({ body: "x", groupId: "g", deduplicationId: "d" })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(DigestQueueError);
    expect(error).toMatchObject({ operation: "send", retryable: false });
    expect(error.serviceCode).toMatch(/QueueDoesNotExist|NonExistentQueue/);
  });

  it("marks an unreachable endpoint retryable", async () => {
    const closed = await startSqsEmulator();
    const port = closed.port;
    await closed.stop();
    const unreachable = sqsClient(`http://127.0.0.1:${port}`);
    const queue = createSqsDigestQueue({
      client: unreachable,
      queueUrl: `http://127.0.0.1:${port}/000000000000/q.fifo`,
    });
    const error = await queue.receive(1).catch((caught) => caught);
    unreachable.destroy();
    expect(error).toBeInstanceOf(DigestQueueError);
    expect(error).toMatchObject({ operation: "receive", retryable: true });
  });
});
