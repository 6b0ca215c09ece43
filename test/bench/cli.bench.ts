/**
 * CLI benchmark: wall time and peak RSS of `context-cleaner clean <file> --json` as a
 * child process (the real bin, output to /dev/null), on a 20-message thread and a ~50 MB
 * thread, with the default in-memory store and with embedded PGlite (`--database pglite://`).
 * Not a test: nothing here asserts a time.
 *
 *   npm run bench:cli                 # all cases
 *   npm run bench:cli -- small        # only the cases whose name contains "small"
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-cleaner/assembler";
import { serializeThread } from "@context-cleaner/core/cli";
import { buildHeavyThread } from "../../packages/core/test/fixtures/heavy-thread";

const BIN = join(import.meta.dirname, "../../bin/context-cleaner.js");
const PRELOAD = join(import.meta.dirname, "report-peak-rss.mjs");

/**
 * A tiny thread of 20 messages: five turns each reading a 3,000-char page (three of one
 * contract, two of another), then two turns of plain talk.
 */
function smallThread(): Message[] {
  const contract = buildHeavyThread({
    name: "bench-small",
    seed: 3,
    titles: ["Ground Lease"],
    documentChars: 15_000,
    pageChars: 3_000,
  }).documents[0] as { text: string };
  const messages: Message[] = [{ role: "system", content: "You review leases." }];
  for (let page = 0; page < 5; page++) {
    const id = `c${page}`;
    const args = { file_id: page < 3 ? "cd_9f2" : "cd_7a1", offset: (page % 3) * 3_000 };
    messages.push({ role: "user", content: "Read the next page." });
    messages.push({ role: "assistant", content: "", toolCalls: [{ id, name: "read_document", args }] });
    const content = contract.text.slice(page * 3_000, (page + 1) * 3_000);
    messages.push({ role: "tool", toolCallId: id, toolName: "read_document", content });
  }
  for (const question of ["What is the rent?", "And the term?"]) {
    messages.push({ role: "user", content: question });
    messages.push({ role: "assistant", content: "It is in the document." });
  }
  return messages;
}

/** A thread of about `megabytes` MB: many long contracts read page by page. */
function largeThread(megabytes: number): Message[] {
  const documentChars = 2_000_000;
  const titles = Array.from({ length: Math.ceil((megabytes * 1_000_000) / documentChars) }, (_, index) => {
    return `Agreement ${index + 1}`;
  });
  return buildHeavyThread({ name: "bench-large", seed: 9, titles, documentChars, pageChars: 40_000 })
    .messages;
}

interface Run {
  seconds: number;
  peakRssMb: number;
  exitCode: number | null;
  stderr: string;
}

async function runCli(args: readonly string[], directory: string): Promise<Run> {
  const rssFile = join(directory, "peak-rss");
  const started = performance.now();
  const child = spawn(process.execPath, ["--import", PRELOAD, BIN, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PEAK_RSS_FILE: rssFile },
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exitCode = await new Promise<number | null>((resolve) => child.on("close", resolve));
  const seconds = (performance.now() - started) / 1000;
  const peakRssMb = Number(await readFile(rssFile, "utf8").catch(() => "0")) / 1024;
  return { seconds, peakRssMb, exitCode, stderr };
}

const directory = await mkdtemp(join(tmpdir(), "cc-bench-cli-"));
const filter = process.argv[2] ?? "";
try {
  const files = {
    small: join(directory, "small.json"),
    large: join(directory, "large.json"),
  };
  const cases = [
    { name: "small, in-memory store", file: "small" as const, extra: [] as string[] },
    { name: "small, --database pglite://", file: "small" as const, extra: ["--database", "pglite://"] },
    { name: "large, in-memory store", file: "large" as const, extra: [] as string[] },
  ].filter((entry) => entry.name.includes(filter));
  const needed = new Set(cases.map((entry) => entry.file));
  if (needed.has("small")) await writeFile(files.small, serializeThread(smallThread()));
  if (needed.has("large")) await writeFile(files.large, serializeThread(largeThread(50)));

  console.log("case                              messages  file MB   seconds  peak RSS MB  exit");
  for (const entry of cases) {
    const text = await readFile(files[entry.file], "utf8");
    const messages = (JSON.parse(text) as { messages: unknown[] }).messages.length;
    const sizeMb = (await stat(files[entry.file])).size / 1_000_000;
    const run = await runCli(["clean", files[entry.file], "--json", ...entry.extra], directory);
    console.log(
      `${entry.name.padEnd(34)}${String(messages).padStart(8)}${sizeMb.toFixed(1).padStart(9)}${run.seconds.toFixed(2).padStart(10)}${run.peakRssMb.toFixed(0).padStart(13)}${String(run.exitCode).padStart(6)}`,
    );
    if (run.exitCode !== 0) console.log(`  stderr: ${run.stderr.split("\n")[0]}`);
  }
} finally {
  await rm(directory, { recursive: true, force: true });
}
