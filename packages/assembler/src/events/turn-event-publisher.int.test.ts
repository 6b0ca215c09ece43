import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { ReceiveMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SqsEmulator, startSqsEmulator } from "#test/repo/services/sqs-emulator";
import { turnEventDeduplicationId, turnEventGroupId } from "./message-ids";
import { createTurnEventPublisher } from "./turn-event-publisher";

// fauxqs on loopback.
let fauxqs: SqsEmulator;
let sqs: SQSClient;
let queues = 0;
const TURN = {
  orgId: "org_1",
  threadId: "thread_1",
  rawToolChars: 150_000,
  turnEndedAt: "2026-03-01T12:00:00Z",
};
const silent = { warn: () => {} };

function client(endpoint: string): SQSClient {
  return new SQSClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
}

async function fifoQueue(): Promise<string> {
  queues += 1;
  const { queueUrl } = await fauxqs.createQueue(`turns-${queues}.fifo`, {
    FifoQueue: "true",
    ContentBasedDeduplication: "false",
  });
  return queueUrl;
}

async function receiveAll(queueUrl: string) {
  const output = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ["MessageGroupId", "MessageDeduplicationId"],
    }),
  );
  return output.Messages ?? [];
}

beforeAll(async () => {
  fauxqs = await startSqsEmulator();
  sqs = client(fauxqs.endpoint);
});

afterAll(async () => {
  sqs?.destroy();
  await fauxqs?.stop();
});

describe("createTurnEventPublisher on SQS FIFO (fauxqs)", () => {
  it("enqueues the event in the thread's group under the turn's deduplication id", async () => {
    const queueUrl = await fifoQueue();
    const outcome = await createTurnEventPublisher({ queueUrl, sqs }).publishTurnEnded(TURN);

    const [message, ...rest] = await receiveAll(queueUrl);
    expect(rest).toEqual([]);
    expect(outcome).toEqual({ status: "sent", messageId: message?.MessageId });
    expect(message?.Attributes).toEqual({
      MessageGroupId: turnEventGroupId("org_1", "thread_1"),
      MessageDeduplicationId: turnEventDeduplicationId("org_1", "thread_1", TURN.turnEndedAt),
    });
    expect(JSON.parse(message?.Body ?? "")).toEqual({ ...TURN, turnEndedAt: "2026-03-01T12:00:00.000Z" });
  });

  it("collapses a repeated publish of the same turn into one message", async () => {
    const queueUrl = await fifoQueue();
    const publisher = createTurnEventPublisher({ queueUrl, sqs });
    const first = await publisher.publishTurnEnded(TURN);
    const again = await publisher.publishTurnEnded({ ...TURN, turnEndedAt: "2026-03-01T13:00:00+01:00" });
    const nextTurn = await publisher.publishTurnEnded({ ...TURN, turnEndedAt: "2026-03-01T12:05:00Z" });

    expect([first.status, again.status, nextTurn.status]).toEqual(["sent", "sent", "sent"]);
    // One group: the next turn waits behind the first while it is in flight.
    const batch = await receiveAll(queueUrl);
    expect(batch.map((message) => JSON.parse(message.Body ?? "").turnEndedAt)).toEqual([
      "2026-03-01T12:00:00.000Z",
    ]);
  });

  it("returns failed, without throwing, when SQS cannot be reached", async () => {
    const closed = await startSqsEmulator();
    const endpoint = `http://127.0.0.1:${closed.port}`;
    await closed.stop();
    const unreachable = client(endpoint);
    const outcome = await createTurnEventPublisher({
      queueUrl: `${endpoint}/000000000000/turns.fifo`,
      sqs: unreachable,
      logger: silent,
    }).publishTurnEnded(TURN);
    unreachable.destroy();
    expect(outcome).toMatchObject({ status: "failed", reason: "send_error" });
  });

  it("returns failed as a timeout when SQS accepts the connection but never answers, and aborts the request", async () => {
    // The server reads each request and never answers: only the client can close it.
    const seen: { target: string | undefined; body: Promise<string>; closed: Promise<void> }[] = [];
    const held: Server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on("data", (chunk: Buffer) => chunks.push(chunk));
      seen.push({
        target: request.headers["x-amz-target"]?.toString(),
        body: new Promise((resolve) => request.on("end", () => resolve(Buffer.concat(chunks).toString()))),
        closed: new Promise((resolve) => response.on("close", () => resolve())),
      });
    });
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const endpoint = `http://127.0.0.1:${(held.address() as AddressInfo).port}`;
    const silentSqs = client(endpoint);

    // A deadline long enough for the request to reach the server on a loaded machine.
    const outcome = await createTurnEventPublisher({
      queueUrl: `${endpoint}/000000000000/turns.fifo`,
      sqs: silentSqs,
      timeoutMs: 1_000,
      logger: silent,
    }).publishTurnEnded(TURN);

    expect(outcome).toMatchObject({ status: "failed", reason: "timeout" });
    expect(outcome.status === "failed" ? outcome.error : undefined).toMatchObject({
      name: "DeadlineExceededError",
      message: "SQS SendMessage did not finish within 1000 ms",
    });
    // The send reached the server, and the deadline's abort closed it from the client's side
    // (the server has not closed anything yet; without the abort this would never settle).
    const [request] = seen;
    expect(request?.target).toBe("AmazonSQS.SendMessage");
    expect(JSON.parse((await request?.body) ?? "{}")).toMatchObject({
      MessageGroupId: turnEventGroupId("org_1", "thread_1"),
    });
    await request?.closed;

    silentSqs.destroy();
    held.closeAllConnections();
    await new Promise<void>((resolve) => held.close(() => resolve()));
  });
});
