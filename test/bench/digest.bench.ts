/**
 * Digest job benchmark: one pass over a ~1 M-char heavy thread with the
 * extractive digester on embedded PGlite. Reports the median seconds of a pass, digests
 * written, digest chars / original chars, and the share of source figures that made the
 * `figures verbatim` lines. Not a test: nothing here asserts a time.
 *
 *   npm run bench:digest
 */

import type { Message } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { contentText } from "@context-cleaner/assembler/internal";
import {
  createExtractiveDigester,
  createInMemoryCheckpointReader,
  runDigestJob,
  systemClock,
} from "@context-cleaner/core";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { buildHeavyThread } from "../../packages/core/test/fixtures/heavy-thread";

const SAMPLES = 3;

const fixture = buildHeavyThread({
  name: "bench-1m",
  seed: 21,
  titles: [
    "Ground Lease",
    "Senior Credit Agreement",
    "Purchase and Sale Agreement",
    "Master Services Agreement",
    "Completion Guaranty",
    "Intercreditor Agreement",
  ],
  documentChars: 160_000,
  pageChars: 40_000,
});
const rawToolChars = fixture.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? contentText(message.content).length : 0),
  0,
);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const database = await createDatabase("pglite://");
await database.migrate();
const repository = createDigestRepository(database);
const seconds: number[] = [];
let last: Awaited<ReturnType<typeof runDigestJob>> | undefined;
let threadId = "";
for (let sample = 0; sample < SAMPLES; sample++) {
  threadId = `bench-${sample}`;
  const started = performance.now();
  last = await runDigestJob(
    { orgId: `org-${sample}`, threadId, rawToolChars, turnEndedAt: new Date().toISOString() },
    {
      checkpoints: createInMemoryCheckpointReader(new Map([[threadId, fixture.messages]])),
      store: repository,
      digester: createExtractiveDigester(),
      clock: systemClock,
    },
    { maxCallsPerJob: 1_000 },
  );
  seconds.push((performance.now() - started) / 1000);
}
const digests = await repository.loadThreadDigests(`org-${SAMPLES - 1}`, threadId);
await database.close();

const byId = new Map(
  fixture.messages.flatMap((message: Message) =>
    message.role === "tool" ? [[message.toolCallId, contentText(message.content)]] : [],
  ),
);
let originalChars = 0;
let digestChars = 0;
let sourceFigures = 0;
let keptFigures = 0;
for (const [toolCallId, entry] of digests) {
  if (entry.kind !== "digest") continue;
  const source = byId.get(toolCallId) ?? "";
  originalChars += source.length;
  digestChars += entry.digest.length;
  const figures = extractFigures(source);
  const line = entry.digest.split("\n").find((text) => text.startsWith("figures verbatim: ")) ?? "";
  const listed = new Set(
    line
      .slice("figures verbatim: ".length)
      .replace(/ \[\+\d+ more figures left out; re-read for all\]$/, "")
      .split("; "),
  );
  sourceFigures += figures.length;
  keptFigures += figures.filter((figure) => listed.has(figure)).length;
}

console.log(`| thread | raw tool chars | messages | pass median (s) | digests written | digest/original chars | source figures in figures line |
|---|---|---|---|---|---|---|
| ${fixture.name} | ${rawToolChars.toLocaleString("en-US")} | ${fixture.messages.length} | ${median(seconds).toFixed(2)} (samples: ${seconds.map((value) => value.toFixed(2)).join(", ")}) | ${last?.digestsWritten} | ${(digestChars / originalChars).toFixed(3)} (${digestChars.toLocaleString("en-US")} / ${originalChars.toLocaleString("en-US")}) | ${((100 * keptFigures) / Math.max(1, sourceFigures)).toFixed(1)}% (${keptFigures} / ${sourceFigures}) |`);
