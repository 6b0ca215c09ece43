/**
 * Services tier: the nightly sweep on real services. The thread directory over checkpoint
 * tables a real LangGraph agent wrote through PostgresSaver, read as a SELECT-only role;
 * the sweep handler wired as deployed (Neon driver through its relay, SQS emulator); then
 * the digest function digests what it enqueued.
 */
import { randomUUID } from "node:crypto";
import { SQSClient } from "@aws-sdk/client-sqs";
import {
  createTurnEventPublisher,
  turnEventDeduplicationId,
  turnEventGroupId,
} from "@context-cleaner/assembler/events";
import { createSqsDigestQueue } from "@context-cleaner/core/sqs";
import { createPostgresThreadDirectory } from "@context-cleaner/core/thread-directory";
import {
  createDigestDependencies,
  createDigestHandler,
  createSweepDependencies,
  createSweepHandler,
  deliverOnce,
  lambdaContext,
} from "@context-cleaner/core/worker";
import { createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import type { ChannelVersions, Checkpoint, CheckpointMetadata } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { recordingLogger, recordingMetrics } from "../packages/core/test/fakes/recorders";
import { buildLeaseAgent, QUESTION } from "../packages/core/test/fixtures/lease-agent";
import { heavyThread, rawToolChars } from "../packages/core/test/fixtures/threads";
import { type FunctionServices, startFunctionServices, writeCheckpoint } from "./test/services";

/**
 * How a JS runtime stamps the org into checkpoint metadata (LangGraph's Python runtime
 * copies `configurable` keys there itself): the saver adds `configurable.org_id`.
 */
class OrgStampingSaver extends PostgresSaver {
  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const orgId = config.configurable?.org_id;
    return super.put(config, checkpoint, { ...metadata, ...(orgId ? { org_id: orgId } : {}) }, newVersions);
  }
}

let services: FunctionServices;
let repository: DigestRepository;
let admin: pg.Pool;

beforeAll(async () => {
  services = await startFunctionServices("sweep");
  repository = createDigestRepository(services.database);
  admin = new pg.Pool({ connectionString: services.databaseUrl, max: 2 });
});

afterAll(async () => {
  await admin?.end();
  await services?.close();
});

const context = () => lambdaContext({ functionName: "sweep", timeoutMs: 300_000 });

function sweepHandler(options: { settleMinutes?: number } = {}) {
  const logger = recordingLogger();
  const metrics = recordingMetrics();
  return {
    logger,
    metrics,
    build: async () => {
      const dependencies = await createSweepDependencies({
        databaseUrl: services.databaseUrl,
        neon: services.neon,
        checkpointDatabaseUrl: services.checkpointReaderUrl,
        checkpointSchema: services.checkpointSchema,
        queueUrl: services.queueUrl,
        sqs: services.sqs,
        logger,
        metrics,
        options,
      });
      onTestFinished(() => dependencies.close());
      return createSweepHandler(dependencies);
    },
  };
}

async function digestHandler() {
  const dependencies = await createDigestDependencies({
    databaseUrl: services.databaseUrl,
    neon: services.neon,
    checkpointDatabaseUrl: services.checkpointReaderUrl,
    checkpointSchema: services.checkpointSchema,
    queueUrl: services.queueUrl,
    deadLetterQueueUrl: services.dlqUrl,
    sqs: services.sqs,
    logger: recordingLogger(),
    metrics: recordingMetrics(),
    disabled: () => false,
    jobOptions: { maxCallsPerJob: 100 },
  });
  onTestFinished(() => dependencies.close());
  return createDigestHandler(dependencies);
}

async function drainDigests(): Promise<void> {
  const handler = await digestHandler();
  const queue = createSqsDigestQueue({ client: services.sqs, queueUrl: services.queueUrl });
  while (await deliverOnce(queue, handler)) {
    // each batch is deleted or handed back by deliverOnce
  }
}

describe("the thread directory over a real PostgresSaver", () => {
  it("lists the threads a LangGraph agent checkpointed, with the org from their metadata, as the SELECT-only role", async () => {
    const writer = new OrgStampingSaver(admin, undefined, { schema: services.checkpointSchema });
    const agent = buildLeaseAgent(writer);
    const started = new Date();
    for (const [threadId, orgId] of [
      ["lease-a", "acme"],
      ["lease-b", "globex"],
      ["lease-c", undefined],
    ] as const) {
      await agent.invoke(
        { messages: [new HumanMessage(QUESTION)] },
        { configurable: { thread_id: threadId, ...(orgId ? { org_id: orgId } : {}) }, recursionLimit: 50 },
      );
    }
    const directory = createPostgresThreadDirectory({
      connectionString: services.checkpointReaderUrl,
      schema: services.checkpointSchema,
    });
    try {
      const since = new Date(started.getTime() - 1_000);
      const page = await directory.listActiveThreads({ since });
      const leases = page.threads.filter((thread) => thread.threadId.startsWith("lease-"));
      expect(leases.map((thread) => `${thread.orgId}/${thread.threadId}`)).toEqual([
        "acme/lease-a",
        "globex/lease-b",
      ]);
      for (const thread of leases) {
        expect(thread.lastActivityAt.getTime()).toBeGreaterThanOrEqual(since.getTime());
        expect(thread.lastActivityAt.getTime()).toBeLessThanOrEqual(Date.now());
      }
      const first = await directory.listActiveThreads({ since, limit: 1 });
      const second = await directory.listActiveThreads({ since, limit: 1, cursor: first.nextCursor });
      expect([...first.threads, ...second.threads].map((thread) => thread.threadId)).toEqual([
        "lease-a",
        "lease-b",
      ]);
      expect((await directory.listActiveThreads({ since: new Date() })).threads).toEqual([]);
    } finally {
      await directory.close();
    }
  });
});

describe("the sweep recovers what the turn path lost", () => {
  it("SQS unreachable at publish: the turn is unaffected; the sweep finds the thread through the directory and the digest function digests it", async () => {
    const orgId = `org-${randomUUID()}`;
    const threadId = `lost-${randomUUID()}`;
    const fixture = heavyThread();
    // The turn ends: the agent's checkpoint is written, the publish fails.
    await writeCheckpoint(services.saver, {
      orgId,
      threadId,
      messages: fixture.messages,
      at: new Date(Date.now() - 3_600_000),
    });
    const unreachable = new SQSClient({
      endpoint: "http://127.0.0.1:1",
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    const warnings: unknown[] = [];
    const publisher = createTurnEventPublisher({
      queueUrl: services.queueUrl,
      sqs: unreachable,
      logger: { warn: (message, details) => warnings.push({ message, details }) },
    });
    const outcome = await publisher.publishTurnEnded({
      orgId,
      threadId,
      rawToolChars: rawToolChars(fixture.messages),
      turnEndedAt: new Date(),
    });
    unreachable.destroy();
    expect(outcome).toMatchObject({ status: "failed", reason: "send_error" });
    expect(warnings).toHaveLength(1);

    const sweep = sweepHandler();
    const summary = await (await sweep.build())({}, context());
    expect(summary.failed).toBe(0);
    expect(summary.byReason.lost_event).toBeGreaterThanOrEqual(1);
    expect(sweep.metrics.count("SweptThreads", { reason: "lost_event" })).toBe(summary.byReason.lost_event);

    await drainDigests();
    expect((await repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(10);
    expect(await repository.getPass(orgId, threadId)).toMatchObject({ status: "done" });

    // The thread has a pass record now: the next sweep leaves it alone.
    const again = sweepHandler();
    await (await again.build())({}, context());
    const queue = createSqsDigestQueue({ client: services.sqs, queueUrl: services.queueUrl });
    const requeued = await queue.receive(10);
    expect(requeued.map((message) => JSON.parse(message.body).threadId)).not.toContain(threadId);
    for (const message of requeued) await queue.delete(message.receiptHandle);
  });

  it("re-enqueues a thread its last pass left behind, with the publisher's ids for its latest turn", async () => {
    const orgId = `org-${randomUUID()}`;
    const threadId = `locked-${randomUUID()}`;
    const turnEndedAt = new Date(Date.now() - 2 * 3_600_000);
    await writeCheckpoint(services.saver, {
      orgId,
      threadId,
      messages: heavyThread().messages,
      at: turnEndedAt,
    });
    await repository.recordPass(orgId, threadId, {
      status: "skipped",
      reason: "turn_lock",
      turnEndedAt,
    });
    // The database stamps the record with its own now: make it an hour old, past the sweep's settle time.
    await admin.query(
      "update thread_pass set recorded_at = recorded_at - interval '1 hour' where org_id = $1 and thread_id = $2",
      [orgId, threadId],
    );

    const sweep = sweepHandler();
    const summary = await (await sweep.build())({}, context());
    expect(summary.byReason.turn_lock).toBeGreaterThanOrEqual(1);
    const queue = createSqsDigestQueue({ client: services.sqs, queueUrl: services.queueUrl });
    const received = await queue.receive(10);
    const ours = received.find((message) => JSON.parse(message.body).threadId === threadId);
    expect(ours?.groupId).toBe(turnEventGroupId(orgId, threadId));
    expect(ours?.deduplicationId).toBe(turnEventDeduplicationId(orgId, threadId, turnEndedAt));
    expect(JSON.parse(ours?.body ?? "{}")).toEqual({
      orgId,
      threadId,
      rawToolChars: 120_000,
      turnEndedAt: turnEndedAt.toISOString(),
    });
    for (const message of received) await queue.changeVisibility(message.receiptHandle, 0);

    await drainDigests();
    expect((await repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(10);
    const pass = await repository.getPass(orgId, threadId);
    expect(pass?.status).toBe("done");
    // Covered as of the pass's start, after the re-enqueued event was sent: the latest turn too.
    expect(pass?.coveredTurnEndedAt?.getTime()).toBeGreaterThanOrEqual(turnEndedAt.getTime());
  });
});
