/**
 * The embedded queue's throughput: post-turn events through the runtime's publisher → the
 * in-process SQS FIFO queue → the digest function's handler (the Lambda's own code, driven
 * by the local worker) → the job with the extractive digester, on the in-memory store.
 * Not a test: it measures and prints; nothing here asserts.
 *
 *   npm run bench:worker        (runs after the worker concurrency benchmark)
 *   QUEUE_BENCH_THREADS=40 QUEUE_BENCH_TURNS=5 to change the load
 */
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import {
  createExtractiveDigester,
  createInMemoryCheckpointReader,
  createInMemoryDigestStore,
  systemClock,
} from "@context-cleaner/core";
import { createInProcessDigestQueue } from "@context-cleaner/core/queue";
import { inProcessSqsClient, startLocalWorker } from "@context-cleaner/core/worker";
import { recordingLogger, recordingMetrics } from "../../packages/core/test/fakes/recorders";
import { heavyThread, rawToolChars } from "../../packages/core/test/fixtures/threads";

const THREADS = Number(process.env.QUEUE_BENCH_THREADS ?? 20);
const TURNS = Number(process.env.QUEUE_BENCH_TURNS ?? 5);

const fixture = heavyThread();
const threads = new Map(Array.from({ length: THREADS }, (_, index) => [`thread-${index}`, fixture.messages]));
const queue = createInProcessDigestQueue();
const metrics = recordingMetrics();
const worker = startLocalWorker({
  queue,
  pollIntervalMs: 1,
  dependencies: {
    ports: {
      checkpoints: createInMemoryCheckpointReader(threads),
      store: createInMemoryDigestStore(),
      digester: createExtractiveDigester(),
      clock: systemClock,
    },
    logger: recordingLogger(),
    metrics,
    jobOptions: { maxCallsPerJob: 100 },
  },
});
const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
const raw = rawToolChars(fixture.messages);

const started = performance.now();
let sent = 0;
const base = Date.now() - 3_600_000;
for (let turn = 0; turn < TURNS; turn++) {
  for (const threadId of threads.keys()) {
    const outcome = await events.publishTurnEnded({
      orgId: "bench",
      threadId,
      rawToolChars: raw,
      turnEndedAt: new Date(base + turn * 60_000),
    });
    if (outcome.status === "sent") sent++;
  }
}
const published = performance.now();
await worker.idle();
const drained = performance.now();
await worker.stop();

const seconds = (drained - started) / 1000;
console.log(
  `in-process queue: ${sent} events (${THREADS} threads × ${TURNS} turns of ${raw.toLocaleString("en-US")} raw tool chars)`,
);
console.log(`  publish: ${(published - started).toFixed(0)} ms for all events`);
console.log(
  `  publisher → queue → handler → job, drained: ${seconds.toFixed(2)} s → ${(sent / seconds).toFixed(1)} events/s`,
);
console.log(
  `  handler invocations: ${worker.invocations}; digests written: ${metrics.count("DigestsWritten")}`,
);
