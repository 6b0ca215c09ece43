/**
 * Worker benchmark: one digest pass over a heavy thread with the Anthropic digester (the
 * real SDK) against the local Messages API fake, which answers each call after a fixed
 * latency. Twelve calls (one page each), run with digestConcurrency 1 and then 4, on
 * embedded PGlite. Reports the pass's wall time and its ratio to one call's latency. Not a
 * test: nothing here asserts a time.
 *
 *   npm run bench:worker                              # 2,000 ms per call
 *   WORKER_BENCH_LATENCY_MS=300 npm run bench:worker  # shorter
 */
import { contentText } from "@context-cleaner/assembler/internal";
import {
  createAnthropicDigester,
  createInMemoryCheckpointReader,
  runDigestJob,
  systemClock,
} from "@context-cleaner/core";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { startFakeMessagesApi } from "../../packages/core/test/fakes/anthropic-messages";
import { buildHeavyThread } from "../../packages/core/test/fixtures/heavy-thread";

const LATENCY_MS = Number(process.env.WORKER_BENCH_LATENCY_MS ?? 2_000);
const CALLS = 12;
const CONCURRENCY = [1, 4];

const fixture = buildHeavyThread({
  name: "bench-worker",
  seed: 31,
  titles: ["Ground Lease", "Senior Credit Agreement", "Completion Guaranty"],
  documentChars: 130_000,
  pageChars: 20_000,
});
const rawToolChars = fixture.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? contentText(message.content).length : 0),
  0,
);

const [database, fake] = await Promise.all([createDatabase("pglite://"), startFakeMessagesApi("slow")]);
fake.slowMs = LATENCY_MS;
await database.migrate();
const repository = createDigestRepository(database);
const digester = createAnthropicDigester({ apiKey: "bench", baseURL: fake.baseURL, maxRetries: 0 });

const rows: string[] = [];
for (const digestConcurrency of CONCURRENCY) {
  const threadId = `bench-worker-${digestConcurrency}`;
  fake.requests.length = 0;
  const started = performance.now();
  const outcome = await runDigestJob(
    { orgId: `org-${digestConcurrency}`, threadId, rawToolChars, turnEndedAt: new Date().toISOString() },
    {
      checkpoints: createInMemoryCheckpointReader(new Map([[threadId, fixture.messages]])),
      store: repository,
      digester,
      clock: systemClock,
    },
    { maxPagesPerCall: 1, maxCallsPerJob: CALLS, digestConcurrency },
  );
  const wallMs = performance.now() - started;
  const refused = fake.requests.filter((request) => request.refusal || request.problems.length > 0).length;
  rows.push(
    `| ${digestConcurrency} | ${outcome.calls} | ${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ""} | ${outcome.digestsWritten} | ${refused} | ${(wallMs / 1000).toFixed(2)} | ${(wallMs / LATENCY_MS).toFixed(2)} |`,
  );
}
await Promise.all([database.close(), fake.close()]);

console.log(`Heavy thread: ${fixture.messages.length} messages, ${rawToolChars.toLocaleString("en-US")} raw tool chars; fake latency ${LATENCY_MS} ms per call.

| digestConcurrency | calls | outcome | digests written | requests refused | wall time (s) | wall time / one call's latency |
|---|---|---|---|---|---|---|
${rows.join("\n")}`);
