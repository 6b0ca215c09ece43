// `npm run bench:db`: loadThreadDigests for a thread of 500 digest rows among 50,000 rows of
// other threads and orgs — median ms on PGlite, and on Postgres when TEST_POSTGRES_URL or
// DATABASE_URL is set (a scratch database is created next to it and dropped) — plus the plan.
// With the services tier: `bash test/services/run.sh npm run bench:db`.

import { contentSha256 } from "@context-cleaner/assembler/internal";
import type { DigestRowInput } from "@context-cleaner/db";
// The harnesses' handle types the transaction as the query builder's (the package's public
// type keeps it opaque), so the repository over it comes from the source too.
import type { Database } from "../../packages/db/src/database-types";
import { createDigestRepository } from "../../packages/db/src/digest-repository";
import type { ConformanceHarness } from "../../packages/db/test/conformance/conformance-harness";
import { createPgliteHarness } from "../../packages/db/test/conformance/pglite-harness";
import { createServerHarness } from "../../packages/db/test/conformance/server-harness";
import { createScratchDatabase } from "../services/postgres";

const DEFAULTS = {
  otherOrgs: 50,
  threadsPerOrg: 100,
  rowsPerThread: 10,
  targetRows: 500,
  digestChars: 1_200,
  warmupRuns: 5,
  measuredRuns: 40,
} as const;

const TARGET = { orgId: "org-bench-target", threadId: "thread-heavy" } as const;
const FILLER = "Article 8 (Assignment): consent required; base rent $1,250,000/yr; 2.5% escalator. ";

interface Result {
  engine: string;
  rows: number;
  loaded: number;
  medianMs: number;
  p95Ms: number;
  seedSeconds: number;
  plan: string[];
}

function row(threadId: string, index: number): DigestRowInput {
  const head = `[Condensed] ${threadId} #${index} `;
  const digest = (head + FILLER.repeat(Math.ceil(DEFAULTS.digestChars / FILLER.length))).slice(
    0,
    DEFAULTS.digestChars,
  );
  return {
    threadId,
    toolCallId: `call-${index}`,
    kind: "digest",
    toolName: "read_document",
    provenanceArgs: { file_id: `f-${index}`, offset: index * 58_000 },
    contentSha256: contentSha256(`${threadId}/${index}`),
    digest,
    originalChars: 58_000,
    digestChars: digest.length,
    model: "claude-haiku",
    inputTokens: 15_000,
    outputTokens: 600,
    costUsd: 0.0181,
  };
}

async function seed(database: Database): Promise<number> {
  const repository = createDigestRepository(database);
  let total = 0;
  for (let org = 0; org < DEFAULTS.otherOrgs; org += 1) {
    // The target org's other threads are part of the 50,000 too.
    const orgId = org === 0 ? TARGET.orgId : `org-bench-${org}`;
    const rows: DigestRowInput[] = [];
    for (let thread = 0; thread < DEFAULTS.threadsPerOrg; thread += 1) {
      for (let index = 0; index < DEFAULTS.rowsPerThread; index += 1) {
        rows.push(row(`thread-${thread}`, index));
      }
    }
    total += await repository.upsertDigests(orgId, rows);
  }
  const target = Array.from({ length: DEFAULTS.targetRows }, (_, index) => row(TARGET.threadId, index));
  total += await repository.upsertDigests(TARGET.orgId, target);
  return total;
}

async function measure(database: Database): Promise<{ loaded: number; medianMs: number; p95Ms: number }> {
  const repository = createDigestRepository(database);
  let loaded = 0;
  for (let run = 0; run < DEFAULTS.warmupRuns; run += 1) {
    loaded = (await repository.loadThreadDigests(TARGET.orgId, TARGET.threadId)).size;
  }
  const timings: number[] = [];
  for (let run = 0; run < DEFAULTS.measuredRuns; run += 1) {
    const started = performance.now();
    await repository.loadThreadDigests(TARGET.orgId, TARGET.threadId);
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  const at = (quantile: number) =>
    timings[Math.min(timings.length - 1, Math.floor(quantile * timings.length))] ?? 0;
  return { loaded, medianMs: at(0.5), p95Ms: at(0.95) };
}

// The exact query the repository runs, as the app role with the org set (RLS predicate included).
const EXPLAIN = [
  `select set_config('app.organization_id', '${TARGET.orgId}', true), set_config('role', 'app_user', true)`,
  `explain select tool_call_id, digest, content_sha256, digest_chars, kind from context_digest
    where org_id = '${TARGET.orgId}' and thread_id = '${TARGET.threadId}'`,
];

/** Seeds the harness's migrated database, then times the load and takes the plan as the owner. */
async function bench(engine: string, harness: ConformanceHarness): Promise<Result> {
  const started = performance.now();
  const rows = await seed(harness.database);
  const seedSeconds = (performance.now() - started) / 1000;
  await harness.ownerTransaction(["analyze context_digest"]);
  const timing = await measure(harness.database);
  const plan = (await harness.ownerTransaction(EXPLAIN)).map((line) => String(line["QUERY PLAN"]));
  return { engine, rows, ...timing, seedSeconds, plan };
}

async function benchPglite(): Promise<Result> {
  const harness = await createPgliteHarness();
  try {
    return await bench("PGlite 0.5 (in-memory)", harness);
  } finally {
    await harness.close();
  }
}

async function benchPostgres(adminUrl: string): Promise<Result> {
  const scratch = await createScratchDatabase(adminUrl, "cc_bench");
  try {
    const harness = await createServerHarness(scratch.url);
    try {
      const [settings] = await harness.ownerTransaction(["show server_version"]);
      return await bench(`PostgreSQL ${settings?.server_version ?? "?"} (node-postgres)`, harness);
    } finally {
      await harness.close();
    }
  } finally {
    await scratch.drop();
  }
}

const results: Result[] = [await benchPglite()];
const serverUrl = process.env.TEST_POSTGRES_URL || process.env.DATABASE_URL;
if (serverUrl) {
  results.push(await benchPostgres(serverUrl));
} else {
  console.log(
    "(no TEST_POSTGRES_URL / DATABASE_URL: Postgres skipped; try `bash test/services/run.sh npm run bench:db`)",
  );
}

console.log(
  `\nloadThreadDigests: ${DEFAULTS.targetRows} rows of ${DEFAULTS.digestChars} chars, ${DEFAULTS.measuredRuns} runs\n`,
);
console.log("| engine | rows in table | rows loaded | median ms | p95 ms | index used |");
console.log("|---|---:|---:|---:|---:|---|");
for (const result of results) {
  const index = result.plan.find((line) => /Index (Only )?Scan|Bitmap Index Scan/.test(line));
  console.log(
    `| ${result.engine} | ${result.rows.toLocaleString("en-US")} | ${result.loaded} | ${result.medianMs.toFixed(2)} | ${result.p95Ms.toFixed(2)} | ${index ? "yes" : "NO"} |`,
  );
}
for (const result of results) {
  console.log(`\nEXPLAIN on ${result.engine} (seeded in ${result.seedSeconds.toFixed(1)} s):`);
  for (const line of result.plan) {
    console.log(`  ${line}`);
  }
}
if (results.some((result) => result.loaded !== DEFAULTS.targetRows)) {
  process.exitCode = 1;
}
