/**
 * Services tier: the digest function on the real protocol. Turn events published by the
 * runtime's publisher into the SQS emulator through the real SQS client, received and
 * handed to the handler as Lambda would (SQSRecord factories, a Lambda Context), digests
 * written to a real Postgres (node-postgres, and the Neon driver through its relay), the
 * checkpoint read through LangGraph's PostgresSaver as a SELECT-only role. Then each fault.
 */
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { assembleModelView } from "@context-cleaner/assembler";
import { createTurnEventPublisher, holdTurnLock, turnEventGroupId } from "@context-cleaner/assembler/events";
import {
  createAnthropicDigester,
  createExtractiveDigester,
  createInMemoryCheckpointReader,
  type DigestModel,
  type DigestStore,
  systemClock,
  type TurnLock,
  withFallback,
} from "@context-cleaner/core";
import { createSqsDigestQueue } from "@context-cleaner/core/sqs";
import { createUpstashTurnLock } from "@context-cleaner/core/upstash";
import {
  createDigestDependencies,
  createDigestHandler,
  type DigestHandler,
  deliverOnce,
  lambdaContext,
  sqsEvent,
} from "@context-cleaner/core/worker";
import { createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { Redis } from "@upstash/redis";
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { type FakeMessagesApi, startFakeMessagesApi } from "../packages/core/test/fakes/anthropic-messages";
import { recordingLogger, recordingMetrics } from "../packages/core/test/fakes/recorders";
import { heavyThread, probeRetention, rawToolChars, viewChars } from "../packages/core/test/fixtures/threads";
import { requireRedisUrl, startUpstashRelay, type UpstashRelay } from "../test/services/upstash-relay";
import { type FunctionServices, startFunctionServices, writeCheckpoint } from "./test/services";

const THREAD = "ground-lease";
let services: FunctionServices;
let repository: DigestRepository;
let upstash: UpstashRelay;
let anthropic: FakeMessagesApi;

beforeAll(async () => {
  services = await startFunctionServices("digest");
  repository = createDigestRepository(services.database);
  upstash = await startUpstashRelay(requireRedisUrl());
  anthropic = await startFakeMessagesApi();
});

afterAll(async () => {
  await anthropic?.close();
  await upstash?.close();
  await services?.close();
});

beforeEach(async () => {
  anthropic.mode = "ok";
  // Each test starts from an empty queue.
  const queue = createSqsDigestQueue({ client: services.sqs, queueUrl: services.queueUrl });
  for (let batch = await queue.receive(10); batch.length > 0; batch = await queue.receive(10)) {
    for (const message of batch) await queue.delete(message.receiptHandle);
  }
});

function queue() {
  return createSqsDigestQueue({ client: services.sqs, queueUrl: services.queueUrl, dlqUrl: services.dlqUrl });
}

function publisher(sqs: SQSClient = services.sqs) {
  return createTurnEventPublisher({ queueUrl: services.queueUrl, sqs, logger: { warn: () => {} } });
}

/** A fresh org's heavy thread, published as the runtime does when its turn ends. */
async function publishTurn(turnEndedAt = new Date("2026-11-30T10:00:00Z"), threadId = THREAD) {
  const orgId = `org-${randomUUID()}`;
  const outcome = await publisher().publishTurnEnded({
    orgId,
    threadId,
    rawToolChars: rawToolChars(heavyThread().messages),
    turnEndedAt,
  });
  expect(outcome.status).toBe("sent");
  return { orgId, turnEndedAt };
}

/** The handler over the node-postgres repository and an in-memory copy of the checkpoint. */
function directHandler(
  options: {
    store?: DigestStore;
    digester?: DigestModel;
    lock?: TurnLock;
    metrics?: ReturnType<typeof recordingMetrics>;
  } = {},
) {
  const logger = recordingLogger();
  const metrics = options.metrics ?? recordingMetrics();
  const handler = createDigestHandler({
    ports: {
      checkpoints: createInMemoryCheckpointReader(new Map([[THREAD, heavyThread().messages]])),
      store: options.store ?? repository,
      digester: options.digester ?? createExtractiveDigester(),
      clock: systemClock,
      ...(options.lock ? { lock: options.lock } : {}),
    },
    queue: queue(),
    logger,
    metrics,
    jobOptions: { maxCallsPerJob: 100 },
    // A failed job comes back after 1 s, not the production backoff's 30 s.
    retryBaseSeconds: 1,
  });
  return { handler, logger, metrics };
}

/** Delivers batches until the queue has nothing visible. */
async function drain(handler: DigestHandler): Promise<number> {
  let batches = 0;
  while (await deliverOnce(queue(), handler)) batches += 1;
  return batches;
}

async function rowsOf(orgId: string): Promise<Map<string, string>> {
  const digests = await repository.loadThreadDigests(orgId, THREAD);
  return new Map([...digests].map(([id, entry]) => [id, entry.digest]));
}

describe("the digest function end to end", () => {
  it("publishTurnEnded → SQS → handler wired as deployed (Neon driver, LangGraph checkpoint, Upstash, Anthropic) → rows; the next view is smaller and keeps its probes", async () => {
    const fixture = heavyThread();
    // A thread of its own: its first checkpoint names its org, which the deployed owner check reads.
    const threadId = `${THREAD}-${randomUUID()}`;
    const { orgId } = await publishTurn(undefined, threadId);
    await writeCheckpoint(services.saver, {
      orgId,
      threadId,
      messages: fixture.messages,
      at: new Date(),
    });
    const logger = recordingLogger();
    const metrics = recordingMetrics();
    const relayConnections = services.relay.connections();
    const dependencies = await createDigestDependencies({
      databaseUrl: services.databaseUrl,
      neon: services.neon,
      checkpointDatabaseUrl: services.checkpointReaderUrl,
      checkpointSchema: services.checkpointSchema,
      anthropicApiKey: "sk-test",
      anthropicBaseUrl: anthropic.baseURL,
      redis: { url: upstash.url, token: upstash.token },
      queueUrl: services.queueUrl,
      deadLetterQueueUrl: services.dlqUrl,
      sqs: services.sqs,
      logger,
      metrics,
      disabled: () => false,
      jobOptions: { maxCallsPerJob: 100 },
    });
    const handler = createDigestHandler(dependencies);
    onTestFinished(() => dependencies.close());

    const before = assembleModelView(fixture.messages, await repository.loadThreadDigests(orgId, threadId));
    expect(await drain(handler)).toBe(1);
    expect(services.relay.connections()).toBeGreaterThan(relayConnections);
    expect(anthropic.requests.length).toBeGreaterThan(0);

    const digests = await repository.loadThreadDigests(orgId, threadId);
    expect(digests.size).toBeGreaterThan(10);
    const after = assembleModelView(fixture.messages, digests);
    expect(viewChars(after.messages)).toBeLessThan(viewChars(before.messages) * 0.6);
    const probes = probeRetention(fixture, after.messages);
    expect(probes.lost).toEqual([]);
    expect(await repository.getPass(orgId, threadId)).toMatchObject({ status: "done" });
    expect(metrics.count("DigestCalls")).toBeGreaterThan(0);
    expect(logger.at("error")).toEqual([]);
  });

  it("writes the rows to Postgres through node-postgres too, from the record SQS delivered", async () => {
    const { orgId } = await publishTurn();
    const { handler, logger } = directHandler();
    const [message] = await queue().receive(10);
    expect(message).toBeDefined();
    const event = sqsEvent([
      {
        body: message?.body ?? "",
        groupId: message?.groupId ?? "",
        messageId: message?.messageId ?? "",
        receiptHandle: message?.receiptHandle ?? "",
        deduplicationId: message?.deduplicationId ?? "",
        receiveCount: message?.receiveCount ?? 1,
        eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:digest.fifo",
      },
    ]);
    expect(event.Records[0]?.attributes.MessageGroupId).toBe(turnEventGroupId(orgId, THREAD));
    const response = await handler(event, lambdaContext({ functionName: "digest", timeoutMs: 300_000 }));
    expect(response.batchItemFailures).toEqual([]);
    await queue().delete(message?.receiptHandle ?? "");
    expect((await rowsOf(orgId)).size).toBeGreaterThan(10);
    expect(logger.at("info").some((entry) => entry.message === "digest job finished")).toBe(true);
  });
});

describe("faults: nothing is lost", () => {
  it("redelivery of the same record writes the same rows and pays for nothing more", async () => {
    const { orgId } = await publishTurn();
    const metrics = recordingMetrics();
    const { handler } = directHandler({ metrics });
    // Processed, but the delete is lost (the function timed out after the job): redelivered.
    const [message] = await queue().receive(10, { visibilityTimeoutSeconds: 1 });
    await handler(
      sqsEvent([
        { body: message?.body ?? "", groupId: message?.groupId ?? "", receiptHandle: message?.receiptHandle },
      ]),
      lambdaContext({ functionName: "digest", timeoutMs: 300_000 }),
    );
    const first = await rowsOf(orgId);
    const calls = metrics.count("DigestCalls");
    await sleep(1_100);
    const redelivered = await deliverOnce(queue(), handler);
    expect(redelivered?.received[0]?.receiveCount).toBe(2);
    expect(redelivered?.failed).toEqual([]);
    expect(await rowsOf(orgId)).toEqual(first);
    expect(metrics.count("DigestCalls")).toBe(calls);
    expect(metrics.count("SkippedJobs", { reason: "nothing_new" })).toBe(1);
  });

  it("a duplicate publish of the same turn becomes one message and one job", async () => {
    const { orgId, turnEndedAt } = await publishTurn();
    const again = await publisher().publishTurnEnded({
      orgId,
      threadId: THREAD,
      rawToolChars: rawToolChars(heavyThread().messages),
      turnEndedAt,
    });
    expect(again.status).toBe("sent");
    const { handler, metrics } = directHandler();
    expect(await drain(handler)).toBe(1);
    expect(metrics.count("DigestsWritten")).toBeGreaterThan(0);
    expect(metrics.count("SkippedJobs")).toBe(0);
  });

  it("two events for one thread in one batch: one pass digests, the second finds nothing new to pay for", async () => {
    const first = await publishTurn(new Date("2026-11-30T10:00:00Z"));
    const laterEnd = new Date("2026-11-30T10:05:00Z");
    await publisher().publishTurnEnded({
      orgId: first.orgId,
      threadId: THREAD,
      rawToolChars: rawToolChars(heavyThread().messages),
      turnEndedAt: laterEnd,
    });
    // The emulator hands out one message per group per receive; SQS may deliver both in
    // one batch, in order. Build that batch from the published events.
    const bodies = [first.turnEndedAt, laterEnd].map((at) =>
      JSON.stringify({
        orgId: first.orgId,
        threadId: THREAD,
        rawToolChars: rawToolChars(heavyThread().messages),
        turnEndedAt: at.toISOString(),
      }),
    );
    const groupId = turnEventGroupId(first.orgId, THREAD);
    const { handler, metrics } = directHandler();
    const response = await handler(
      // Sent a second before the batch runs, as a real queue's records always are: a pass
      // covers only events sent strictly before it starts (millisecond stamps).
      sqsEvent(bodies.map((body) => ({ body, groupId, sentAt: new Date(Date.now() - 1_000) }))),
      lambdaContext({ functionName: "digest", timeoutMs: 300_000 }),
    );
    expect(response.batchItemFailures).toEqual([]);
    const rows = await rowsOf(first.orgId);
    const calls = metrics.count("DigestCalls");
    expect(calls).toBeGreaterThan(0);
    expect(metrics.metrics.filter((metric) => metric.name === "DigestCalls")).toHaveLength(1);
    // The second event was sent before the first pass started: that pass covers it.
    expect(metrics.count("SkippedJobs", { reason: "nothing_new" })).toBe(1);
    // A queued job's pass covers what the queue had accepted when it started: both turns.
    const covered = (await repository.getPass(first.orgId, THREAD))?.coveredTurnEndedAt;
    expect(covered?.getTime()).toBeGreaterThanOrEqual(laterEnd.getTime());
    // The queue's copies: the first is covered by then, the second too.
    expect(await drain(handler)).toBe(2);
    expect(await rowsOf(first.orgId)).toEqual(rows);
    expect(metrics.count("DigestCalls")).toBe(calls);
  });

  it("a poison record is sent to the dead-letter queue with its reason on its first receive, without holding other threads", async () => {
    await services.sqs.send(
      new SendMessageCommand({
        QueueUrl: services.queueUrl,
        MessageBody: JSON.stringify({
          orgId: "acme",
          threadId: "t",
          rawToolChars: -5,
          turnEndedAt: "yesterday",
        }),
        MessageGroupId: "poison",
        MessageDeduplicationId: randomUUID(),
      }),
    );
    const { orgId } = await publishTurn();
    const { handler, logger, metrics } = directHandler();
    expect(await drain(handler)).toBe(1);
    expect((await rowsOf(orgId)).size).toBeGreaterThan(0);
    const dead = await queue().deadLetters?.receive(10);
    expect(dead?.map((letter) => letter.groupId)).toEqual(["poison"]);
    expect(dead?.[0]?.deadLetterReason).toContain("rawToolChars");
    const reasons = logger.at("error").map((entry) => String(entry.attributes.reason));
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toContain("rawToolChars");
    expect(reasons[0]).toContain("turnEndedAt");
    expect(metrics.count("PoisonRecords")).toBe(1);
    for (const letter of dead ?? []) await queue().deadLetters?.delete(letter.receiptHandle);
  });

  it.each([
    ["rate-limited", "rate_limited"],
    ["server-error", "server_error"],
    ["slow", "timeout"],
  ] as const)(
    "Anthropic %s: the extractive digester stands in, counted as digest_fallback{%s}",
    async (mode, reason) => {
      anthropic.mode = mode;
      anthropic.slowMs = 2_000;
      const metrics = recordingMetrics();
      const digester = withFallback(
        createAnthropicDigester({
          apiKey: "sk-test",
          baseURL: anthropic.baseURL,
          maxRetries: 1,
          timeoutMs: 300,
        }),
        createExtractiveDigester(),
        { metrics },
      );
      const { orgId } = await publishTurn();
      const requestsBefore = anthropic.requests.length;
      const { handler, logger } = directHandler({ digester, metrics });
      expect(await drain(handler)).toBe(1);
      expect(anthropic.requests.length).toBeGreaterThan(requestsBefore);
      expect(metrics.count("digest_fallback", { reason })).toBeGreaterThan(0);
      expect((await rowsOf(orgId)).size).toBeGreaterThan(10);
      const finished = logger.at("info").find((entry) => entry.message === "digest job finished");
      expect(finished?.attributes).toMatchObject({ status: "done" });
      expect(Number(finished?.attributes.fallbacks)).toBeGreaterThan(0);
    },
  );

  it("a database error in the commit fails the record and writes no row; the retry leaves the same rows as a clean run", async () => {
    const control = await publishTurn();
    expect(await drain(directHandler().handler)).toBe(1);
    const clean = await rowsOf(control.orgId);

    let failures = 0;
    const flaky: DigestStore = {
      ...repository,
      async commitLeasedPass(orgId, threadId, commit) {
        if (failures === 0 && commit.rows.length > 0) {
          failures += 1;
          // The connection drops during the commit's transaction: none of its rows land.
          throw Object.assign(new Error("Connection terminated unexpectedly"), { code: "57P01" });
        }
        return repository.commitLeasedPass(orgId, threadId, commit);
      },
    };
    const { orgId } = await publishTurn();
    const { handler, logger, metrics } = directHandler({ store: flaky });
    const first = await deliverOnce(queue(), handler, { visibilityTimeoutSeconds: 1 });
    expect(first?.failed).toHaveLength(1);
    expect(metrics.count("FailedJobs")).toBe(1);
    expect(logger.at("error")[0]?.attributes).toMatchObject({ error: "Connection terminated unexpectedly" });
    expect((await rowsOf(orgId)).size).toBe(0);

    await sleep(1_100);
    const retry = await deliverOnce(queue(), handler);
    expect(retry?.received[0]?.receiveCount).toBe(2);
    expect(retry?.failed).toEqual([]);
    expect(await rowsOf(orgId)).toEqual(clean);
  });

  it("Redis unreachable: the turn-lock peek says not held, the failure is logged, and the job proceeds", async () => {
    const closed = await startUpstashRelay(requireRedisUrl());
    const url = closed.url;
    await closed.close();
    const logger = recordingLogger();
    const lock = createUpstashTurnLock(
      new Redis({ url, token: "t", enableTelemetry: false, retry: { retries: 0 } }),
      {
        onError: (error) => logger.warn("turn-lock peek failed: the job proceeds", { error: String(error) }),
      },
    );
    const { orgId } = await publishTurn();
    const { handler } = directHandler({ lock });
    expect(await drain(handler)).toBe(1);
    expect((await rowsOf(orgId)).size).toBeGreaterThan(10);
    expect(logger.at("warn")).toHaveLength(1);
  });

  it("a turn running (the runtime holds the lock in Redis): the record comes back later, not failed, not dead", async () => {
    const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });
    const { orgId } = await publishTurn();
    const { handler, logger, metrics } = directHandler({ lock: createUpstashTurnLock(redis) });
    await holdTurnLock(
      orgId,
      THREAD,
      async () => {
        const batch = await deliverOnce(queue(), handler);
        expect(batch?.failed).toHaveLength(1);
      },
      { redis },
    );
    // Handed back for 60 s: not visible now.
    expect(await queue().receive(10)).toEqual([]);
    expect(metrics.count("LockRequeues")).toBe(1);
    expect(logger.at("error")).toEqual([]);
    expect(await repository.getPass(orgId, THREAD)).toMatchObject({ status: "skipped", reason: "turn_lock" });
  });
});
