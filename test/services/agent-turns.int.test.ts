/**
 * Services tier: a LangChain `createAgent` with the context-cleaner middleware checkpoints
 * through LangGraph's real `PostgresSaver` with its default (async) durability and
 * publishes its turn-ended events to a FIFO queue with no delivery delay (the SQS
 * emulator); the digest worker polls that queue and reads the checkpoint as a SELECT-only
 * role. LangGraph queues each step's checkpoint write and goes on, so the middleware's
 * event (published in `afterAgent`) reaches the worker before the checkpoint holding its
 * turn: the worker must wait for the turn the event announces. Turn 2's first model call
 * then shows turn 1's consumed pages condensed, and the nightly sweep finds the thread
 * neither lost nor left behind, though each turn's last checkpoint follows its event.
 */
import { randomUUID } from "node:crypto";
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import { withOrgMetadata } from "@context-cleaner/assembler/langchain";
import { contextCleanerMiddleware } from "@context-cleaner/assembler/langchain/middleware";
import { createExtractiveDigester, type DigestJobOutcome, systemClock } from "@context-cleaner/core";
import { createPostgresCheckpointReader } from "@context-cleaner/core/langgraph";
import { createSqsDigestQueue } from "@context-cleaner/core/sqs";
import { runSweep } from "@context-cleaner/core/sweep";
import { createPostgresThreadDirectory } from "@context-cleaner/core/thread-directory";
import { type LocalWorker, startLocalWorker } from "@context-cleaner/core/worker";
import { createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import type { BaseMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  documentPage,
  PAGE_CHARS,
  readDocument,
  readRequest,
  resultOf,
  ScriptedReaderModel,
} from "#test/assembler/fixtures/scripted-agent";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { type FunctionServices, startFunctionServices } from "../../functions/test/services";

let services: FunctionServices;
let repository: DigestRepository;
let admin: pg.Pool;
let worker: LocalWorker | undefined;
const finished: DigestJobOutcome[] = [];
const metrics = recordingMetrics();

beforeAll(async () => {
  services = await startFunctionServices("agentturns");
  repository = createDigestRepository(services.database);
  admin = new pg.Pool({ connectionString: services.databaseUrl, max: 4 });
});

afterAll(async () => {
  await worker?.stop();
  await admin?.end();
  await services?.close();
});

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("an agent's turns digested through a queue with no delivery delay", () => {
  it("condenses turn 1's consumed pages in turn 2's first model call, and the sweep finds nothing lost", async () => {
    const orgId = `org-${randomUUID()}`;
    const threadId = `thread-${randomUUID()}`;
    const run = { configurable: { thread_id: threadId, org_id: orgId }, recursionLimit: 100 };

    // The worker: the digest handler over the queue, reading the checkpoint read-only.
    const queue = createSqsDigestQueue({
      client: services.sqs,
      queueUrl: services.queueUrl,
      dlqUrl: services.dlqUrl,
    });
    const checkpoints = createPostgresCheckpointReader({
      connectionString: services.checkpointReaderUrl,
      schema: services.checkpointSchema,
    });
    worker = startLocalWorker({
      queue,
      waitTimeSeconds: 1,
      pollIntervalMs: 50,
      dependencies: {
        ports: { checkpoints, store: repository, digester: createExtractiveDigester(), clock: systemClock },
        logger: recordingLogger(),
        metrics,
        onJobFinished: (outcome) => finished.push(outcome),
      },
    });

    // The runtime: createAgent with the middleware, its digests from the repository, its
    // events to the queue, its checkpoints through PostgresSaver with the org stamped in.
    const publisher = createTurnEventPublisher({ queueUrl: services.queueUrl, sqs: services.sqs });
    const published: { lastMessageId?: string; turnEndedAt: string }[] = [];
    const model = new ScriptedReaderModel({});
    const saver = withOrgMetadata(new PostgresSaver(admin, undefined, { schema: services.checkpointSchema }));
    const agent = createAgent({
      model,
      tools: [readDocument],
      checkpointer: saver,
      middleware: [
        contextCleanerMiddleware({
          // The turn-ended path alone: no mid-turn event (turn 1 reads past its threshold).
          midTurnEventChars: false,
          loadDigests: (thread) => repository.loadThreadDigests(orgId, thread),
          publishTurnEnded: async (event) => {
            const outcome = await publisher.publishTurnEnded({ orgId, ...event });
            expect(outcome.status).toBe("sent");
            published.push({
              ...(event.lastMessageId ? { lastMessageId: event.lastMessageId } : {}),
              turnEndedAt: event.turnEndedAt,
            });
          },
        }),
      ],
    });
    const savedIds = async () =>
      (((await saver.getTuple(run))?.checkpoint.channel_values.messages ?? []) as BaseMessage[]).map(
        (message) => message.id,
      );

    try {
      // Turn 1 reads 12 pages (144,000 chars, over the trigger).
      await agent.invoke({ messages: [{ role: "user", content: readRequest("lease_445", 12) }] }, run);
      expect(published).toHaveLength(1);
      const turn1 = await until("turn 1's pass", () => finished[0]);

      // Turn 2: its first model call sees every page turn 1 read condensed (the recency wall
      // starts at the latest user message).
      const firstCall = model.calls.length;
      await agent.invoke({ messages: [{ role: "user", content: readRequest("nda_3", 2) }] }, run);
      const view = model.calls[firstCall] as BaseMessage[];
      const raw = (page: number) => documentPage("lease_445", page * PAGE_CHARS);
      const condensed = Array.from({ length: 12 }, (_, page) => page).filter(
        (page) => resultOf(view, `lease_445_p${page}`)?.content !== raw(page),
      );
      expect(condensed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
      for (const page of condensed) {
        expect(String(resultOf(view, `lease_445_p${page}`)?.content).length).toBeLessThan(PAGE_CHARS / 2);
      }
      expect(turn1.status).toBe("done");
      // An event that came before its turn's checkpoint was handed back until the checkpoint
      // showed the announced message (how often depends on the race); none went on without it.
      expect(metrics.count("CheckpointWaitsCapped")).toBe(0);
      await until("turn 2's pass", () => finished[1]);
      expect((await savedIds()).at(-1)).toBe(published[1]?.lastMessageId);

      // The sweep, once both turns settled: the thread is healthy, though each turn's last
      // checkpoint was written after its event.
      const directory = createPostgresThreadDirectory({
        connectionString: services.checkpointReaderUrl,
        schema: services.checkpointSchema,
      });
      try {
        const active = await directory.listActiveThreads({ since: new Date(Date.now() - 3_600_000) });
        const thread = active.threads.find((found) => found.threadId === threadId);
        expect(thread?.orgId).toBe(orgId);
        expect(thread?.lastActivityAt.getTime()).toBeGreaterThan(Date.parse(published[1]?.turnEndedAt ?? ""));
        const report = await runSweep(
          {
            store: repository,
            directory,
            clock: { now: () => new Date(Date.now() + 16 * 60_000) },
          },
          { dryRun: true },
        );
        expect(report.threads.filter((swept) => swept.threadId === threadId)).toEqual([]);
      } finally {
        await directory.close();
      }
    } finally {
      await worker.stop();
      worker = undefined;
      await checkpoints.close();
    }
  });
});
