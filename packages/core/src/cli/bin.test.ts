import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { serializeThread } from "../thread-file/thread-file";

// The real `context-cleaner` command in a child process: what only a process shows
// (which modules it loads, how it ends on a closed pipe).
const BIN = join(import.meta.dirname, "../../../../bin/context-cleaner.js");
const RECORD_MODULES = join(import.meta.dirname, "../../test/fixtures/record-modules.mjs");

let directory: string;
let threadPath: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cc-bin-"));
  // 20 messages: five turns each reading a page (three of one contract, then two of
  // another, which the recency window keeps), then two turns of plain talk.
  const thread = threadBuilder();
  thread.system("You review leases.");
  for (let page = 0; page < 5; page++) {
    const fileId = page < 3 ? "cd_9f2" : "cd_7a1";
    thread.user("Read the next page.");
    thread.call(
      `c${page}`,
      "read_document",
      { file_id: fileId, offset: (page % 3) * 3_000 },
      filler(`page ${page}`, 3_000),
    );
  }
  for (const question of ["What is the rent?", "And the term?"]) {
    thread.user(question);
    thread.assistant("It is in the document.");
  }
  threadPath = join(directory, "thread.json");
  await writeFile(threadPath, serializeThread(thread.messages));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runBin(args: readonly string[], environment: Record<string, string> = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", RECORD_MODULES, BIN, ...args], {
      env: { ...process.env, ...environment },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function loadedModules(args: readonly string[]): Promise<{ run: Finished; modules: string[] }> {
  const file = join(directory, `modules-${Math.random().toString(36).slice(2)}.txt`);
  const run = await runBin(args, { RECORD_MODULES_FILE: file });
  const modules = (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean);
  return { run, modules };
}

describe("context-cleaner clean: where the digests live", () => {
  it("a one-shot clean keeps its digests in memory: no database package is loaded", async () => {
    const { run, modules } = await loadedModules(["clean", threadPath, "--json"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).report.digest.digestsWritten).toBeGreaterThan(0);
    expect(modules.some((url) => url.includes("/packages/core/"))).toBe(true);
    expect(modules.filter((url) => /@electric-sql\/pglite|\/packages\/db\/|drizzle-orm/.test(url))).toEqual(
      [],
    );
  });

  it("--database <url> runs the same clean on that database (embedded PGlite here)", async () => {
    const { run, modules } = await loadedModules(["clean", threadPath, "--json", "--database", "pglite://"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).report.digest.digestsWritten).toBeGreaterThan(0);
    expect(modules.some((url) => url.includes("@electric-sql/pglite"))).toBe(true);
  });
});

describe("context-cleaner clean | a reader that goes away", () => {
  it("ends quietly, exit code 0, when stdout is closed early (EPIPE, as with `| head -c 10`)", async () => {
    const finished = await new Promise<Finished>((resolve) => {
      const child = spawn(process.execPath, [BIN, "clean", threadPath, "--json"]);
      // The reader closes its end before the command writes: every write then fails with EPIPE.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      child.on("close", (code) => resolve({ code, stdout: "", stderr }));
    });
    expect(finished.stderr).toBe("");
    expect(finished.code).toBe(0);
  });
});
