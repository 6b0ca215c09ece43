/**
 * A bounded load run of the worker path at thousands of threads: the runtime's publisher →
 * the in-process SQS FIFO queue → the digest function's handler (the Lambda's own code,
 * run by the polling loop `context-cleaner worker` runs, several loops as concurrent
 * invocations) → the job with the extractive digester → the digest store on embedded
 * PGlite (real Postgres semantics, row-level security, one process). Every thread ends
 * several turns; all events are published first, then the worker starts and drains the queue. Reports
 * events/s through the handler, the time per record (`RecordDuration`, p50 and p99 over
 * every record the handler started and by outcome, the skipped ones included) and the
 * committed passes' `JobDuration` (p50, p99, max). Not a test: nothing here asserts a figure.
 *
 *   npm run bench:load
 *   LOAD_BENCH_THREADS=500 LOAD_BENCH_TURNS=2 LOAD_BENCH_CONCURRENCY=8 npm run bench:load
 *   LOAD_BENCH_TIME_LIMIT_S=300 bounds the drain (default 180 s); a run cut short says so.
 *
 * Everything here is in memory, so a batch runs as one chain of promise callbacks and a
 * timer cannot interrupt it: the bound is checked as each job finishes. Several loops
 * (LOAD_BENCH_CONCURRENCY, default 1) share this one thread and one PGlite, so they add no
 * throughput and stretch each record's time: the deployed function runs one batch per
 * process.
 */
import { cpus, loadavg } from "node:os";
import { createTurnEventPublisher } from "@context-cleaner/assembler/events";
import { contentText } from "@context-cleaner/assembler/internal";
import {
  createExtractiveDigester,
  createInMemoryCheckpointReader,
  type Metric,
  systemClock,
} from "@context-cleaner/core";
import { createInProcessDigestQueue } from "@context-cleaner/core/queue";
import { inProcessSqsClient, startLocalWorker } from "@context-cleaner/core/worker";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { buildHeavyThread } from "../../packages/core/test/fixtures/heavy-thread";

const THREADS = Number(process.env.LOAD_BENCH_THREADS ?? 2_000);
const TURNS = Number(process.env.LOAD_BENCH_TURNS ?? 3);
const CONCURRENCY = Number(process.env.LOAD_BENCH_CONCURRENCY ?? 1);
const TIME_LIMIT_S = Number(process.env.LOAD_BENCH_TIME_LIMIT_S ?? 180);

// One contract read in five pages: a thread's first pass digests them, its later turns add
// nothing new (the coalescing the deployed queue sees). The thread is smaller than a busy
// agent's (60,000 chars of tool output), so the trigger is lowered to match it: the run
// measures the path's overhead per event, not the digester on long documents.
const TRIGGER_CHARS = 40_000;
const fixture = buildHeavyThread({
  name: "bench-load",
  seed: 47,
  titles: ["Ground Lease"],
  documentChars: 60_000,
  pageChars: 12_000,
  probesPerDocument: 4,
});
const raw = fixture.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? contentText(message.content).length : 0),
  0,
);
const threadIds = Array.from({ length: THREADS }, (_, index) => `thread-${index}`);
const threads = new Map(threadIds.map((threadId) => [threadId, fixture.messages]));

const database = await createDatabase("pglite://");
await database.migrate();
const store = createDigestRepository(database);
const queue = createInProcessDigestQueue({ visibilityTimeoutSeconds: 900 });

const jobDurations: number[] = [];
/** Each record's `RecordDuration`, by its `outcome` dimension. */
const recordDurations = new Map<string, number[]>();
const counts = new Map<string, number>();
const statuses = new Map<string, number>();
const silent = { info: () => {}, warn: () => {}, error: () => {} };
const events = createTurnEventPublisher({
  queueUrl: "in-process",
  sqs: inProcessSqsClient(queue),
  triggerChars: TRIGGER_CHARS,
});

const progress = (line: string) =>
  process.stderr.write(`[bench:load ${(performance.now() / 1000).toFixed(0)} s] ${line}\n`);
progress("database ready; publishing");
const started = performance.now();
let sent = 0;
const base = Date.now() - 3_600_000;
for (let turn = 0; turn < TURNS; turn++) {
  for (const threadId of threadIds) {
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
const cpuAtStart = process.cpuUsage();
const deadline = published + TIME_LIMIT_S * 1000;
let cutShort: (drained: false) => void = () => {};
const bounded = new Promise<false>((resolve) => {
  cutShort = resolve;
});
progress(`${sent} events queued; draining`);
// The worker starts once every event is queued: publishing and draining share one thread here.
const worker = startLocalWorker({
  queue,
  pollIntervalMs: 5,
  concurrency: CONCURRENCY,
  dependencies: {
    ports: {
      checkpoints: createInMemoryCheckpointReader(threads),
      store,
      digester: createExtractiveDigester(),
      clock: systemClock,
    },
    logger: silent,
    metrics: {
      record(metric: Metric) {
        if (metric.name === "JobDuration") jobDurations.push(metric.value);
        if (metric.name === "RecordDuration") {
          const outcome = metric.dimensions?.outcome ?? "unknown";
          const values = recordDurations.get(outcome) ?? [];
          values.push(metric.value);
          recordDurations.set(outcome, values);
        }
        counts.set(metric.name, (counts.get(metric.name) ?? 0) + metric.value);
      },
      flush() {},
    },
    issues: () => {},
    jobOptions: { maxCallsPerJob: 100, triggerChars: TRIGGER_CHARS },
    onJobFinished: (outcome) => {
      const key = outcome.reason ? `${outcome.status}/${outcome.reason}` : outcome.status;
      statuses.set(key, (statuses.get(key) ?? 0) + 1);
      if (performance.now() > deadline) cutShort(false);
    },
  },
  onError: (error) => console.error("worker:", error),
});
const drained = await Promise.race([worker.idle().then(() => true), bounded]);
const ended = performance.now();
const cpu = process.cpuUsage(cpuAtStart);
// Counted at the bound: the batch in progress then finishes, uncounted.
const handled = [...statuses.values()].reduce((sum, count) => sum + count, 0);
const durations = [...jobDurations];
const perRecord = [...recordDurations].map(([outcome, values]) => [outcome, [...values]] as const);
const outcomes = [...statuses];
await worker.stop();
await database.close();

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const seconds = (ended - published) / 1000;
console.log(
  `load run: ${THREADS.toLocaleString("en-US")} threads × ${TURNS} turns = ${sent.toLocaleString("en-US")} events of ${raw.toLocaleString("en-US")} raw tool chars; ${CONCURRENCY} polling loop${CONCURRENCY === 1 ? "" : "s"}, PGlite store, extractive digester`,
);
console.log(
  `  publish: ${((published - started) / 1000).toFixed(1)} s → ${(sent / ((published - started) / 1000)).toFixed(0)} events/s into the queue`,
);
console.log(
  `  handler: ${handled.toLocaleString("en-US")} jobs in ${seconds.toFixed(1)} s → ${(handled / seconds).toFixed(1)} events/s${drained ? "" : ` (cut at the ${TIME_LIMIT_S} s bound: ${sent - handled} left)`}`,
);
const timing = (values: readonly number[]) =>
  `p50 ${percentile(values, 50).toFixed(0)} ms, p99 ${percentile(values, 99).toFixed(0)} ms`;
const allRecords = perRecord.flatMap(([, values]) => values);
console.log(
  `  time per record (RecordDuration) over ${allRecords.length.toLocaleString("en-US")} records: ${timing(allRecords)}`,
);
for (const [outcome, values] of perRecord.sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`    ${outcome}: ${values.length.toLocaleString("en-US")} records, ${timing(values)}`);
}
console.log(
  `  JobDuration over ${durations.length.toLocaleString("en-US")} passes: p50 ${percentile(durations, 50).toFixed(0)} ms, p99 ${percentile(durations, 99).toFixed(0)} ms, max ${Math.max(...durations).toFixed(0)} ms`,
);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;
console.log(
  `  CPU: ${cpuSeconds.toFixed(1)} s of this process's CPU time over the drain → ${(handled / cpuSeconds).toFixed(1)} events per CPU-second (the figure a shared machine's load does not skew)`,
);
console.log(
  `  machine: ${cpus().length} cores, load average ${loadavg()
    .map((value) => value.toFixed(1))
    .join(" / ")} (1/5/15 min) at the end`,
);
console.log(`  outcomes: ${outcomes.map(([key, count]) => `${key} ${count}`).join(", ")}`);
console.log(
  `  handler invocations: ${worker.invocations}; digests written: ${counts.get("DigestsWritten") ?? 0}`,
);
