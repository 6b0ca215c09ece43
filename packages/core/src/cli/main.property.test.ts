import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AIMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  ToolMessage,
} from "@langchain/core/messages";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { main } from "./main";

/**
 * A fuzz target over the CLI's input: whatever bytes a thread file holds, `clean` answers
 * with exit code 0 (and nothing on stderr) or 2 (one line on stderr naming the problem),
 * never a stack, never a hang. main() runs in-process on the in-memory store.
 *
 * Runs per property: `PROPERTY_RUNS` when set; otherwise 200 locally and 1,000 in CI (`CI`
 * set). CI never runs fewer than 1,000.
 */
const NUM_RUNS = (() => {
  const fromEnvironment = Number(process.env.PROPERTY_RUNS);
  const requested = Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : undefined;
  return process.env.CI ? Math.max(1_000, requested ?? 1_000) : (requested ?? 200);
})();

/** One run may take this long before it counts as a hang. */
const RUN_TIMEOUT_MS = 10_000;

let directory: string;
let runs = 0;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cc-fuzz-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** A small thread the worker digests: three consumed pages, a search, an error, plain turns. */
function neutralSeed(): unknown {
  const thread = threadBuilder();
  thread.system("You review leases.");
  for (let page = 0; page < 3; page++) {
    thread.user("Read the next page.");
    thread.call(
      `c${page}`,
      "read_document",
      { file_id: "cd_9f2", offset: page * 3_000 },
      filler(`p${page}`, 3_000),
    );
  }
  thread.user("Search again.");
  thread.call("s1", "search", { query: "rent" }, '{"id": "cd_5b3", "score": 0.9}');
  thread.call("e1", "read_document", { file_id: "cd_7a1", offset: 0 }, "Error: timeout", "error");
  for (const question of ["What is the rent?", "And the term?"]) {
    thread.user(question);
    thread.assistant("It is in the document.");
  }
  return { messages: thread.messages };
}

function langChainSeed(): unknown {
  return mapChatMessagesToStoredMessages([
    new HumanMessage("Read cd_9f2."),
    new AIMessage({
      content: "",
      tool_calls: [{ id: "c1", name: "read_document", args: { file_id: "cd_9f2" } }],
    }),
    new ToolMessage({ content: filler("page", 3_000), tool_call_id: "c1", name: "read_document" }),
    new HumanMessage("Thanks."),
  ]);
}

const SEEDS = [neutralSeed(), langChainSeed(), (neutralSeed() as { messages: unknown[] }).messages];

/** Every (container, key) of a JSON value, in a fixed order. */
function slots(value: unknown, found: [Record<string | number, unknown>, string | number][] = []) {
  if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value)) {
      const container = value as Record<string | number, unknown>;
      found.push([container, Array.isArray(value) ? Number(key) : key]);
      slots(container[key], found);
    }
  }
  return found;
}

/** Values a thread should never crash on. */
const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }),
  fc.constantFrom("", " ", "\u0000", "\ud800", "x".repeat(600), -1, 2 ** 31, 1e308, -0, [], {}, null),
);

const edit = fc.record({
  at: fc.nat(),
  op: fc.constantFrom("replace", "delete", "duplicate"),
  value: oddValue,
});

/** A valid thread with a few fields replaced, deleted or duplicated, then maybe a few bytes changed. */
const mutatedThread = fc
  .record({
    seed: fc.nat({ max: SEEDS.length - 1 }),
    edits: fc.array(edit, { minLength: 1, maxLength: 4 }),
    bytes: fc.option(
      fc.record({ at: fc.nat(), insert: fc.uint8Array({ maxLength: 4 }), drop: fc.nat({ max: 4 }) }),
    ),
  })
  .map(({ seed, edits, bytes }) => {
    const thread = structuredClone(SEEDS[seed]);
    for (const { at, op, value } of edits) {
      const all = slots(thread);
      const slot = all[at % Math.max(1, all.length)];
      if (!slot) continue;
      const [container, key] = slot;
      if (op === "replace") container[key] = value;
      else if (op === "duplicate" && Array.isArray(container))
        container.splice(Number(key), 0, container[key]);
      else if (Array.isArray(container)) container.splice(Number(key), 1);
      else delete container[key];
    }
    const text = Buffer.from(JSON.stringify(thread), "utf8");
    if (!bytes) return text;
    const at = bytes.at % (text.length + 1);
    return Buffer.concat([text.subarray(0, at), bytes.insert, text.subarray(at + bytes.drop)]);
  });

/** Strings the storage refuses or alters, or that sit at the edge of a rule. */
const oddString = fc.oneof(
  fc.string({ unit: "binary", maxLength: 20 }),
  fc.constantFrom(
    "",
    " ",
    " c1 ",
    "\u0000",
    "c\u00001",
    "\ud800",
    "c\udc00",
    "x".repeat(600),
    "\u007f",
    "é".repeat(300),
  ),
);

/** The neutral seed with a few string fields (ids, tool names, args, content) replaced: still a valid thread. */
const oddStringThread = fc
  .record({ edits: fc.array(fc.tuple(fc.nat(), oddString), { minLength: 1, maxLength: 4 }) })
  .map(({ edits }) => {
    const thread = structuredClone(SEEDS[0]);
    const strings = slots(thread).filter(
      ([container, key]) => typeof container[key] === "string" && key !== "role" && key !== "status",
    );
    for (const [at, value] of edits) {
      const slot = strings[at % strings.length];
      if (slot) slot[0][slot[1]] = value;
    }
    return Buffer.from(JSON.stringify(thread), "utf8");
  });

const randomJson = fc
  .oneof(
    fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }),
    fc.record({ messages: fc.jsonValue({ maxDepth: 4 }) }),
    fc.array(
      fc.dictionary(fc.constantFrom("role", "content", "type", "data", "toolCalls", "toolCallId"), oddValue),
    ),
  )
  .map((value) => Buffer.from(JSON.stringify(value) ?? "null", "utf8"));

async function cleanFile(bytes: Uint8Array, json: boolean) {
  runs += 1;
  const path = join(directory, `thread-${runs}.json`);
  await writeFile(path, bytes);
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => err.push(text),
    environment: {},
  };
  const code = await main(["clean", path, ...(json ? ["--json"] : [])], io);
  await rm(path, { force: true });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** What every run must hold, whatever the input. */
function expectCleanAnswer(result: { code: number; stdout: string; stderr: string }): void {
  expect([0, 2]).toContain(result.code);
  if (result.code === 0) {
    expect(result.stderr).toBe("");
    return;
  }
  expect(result.stderr).toMatch(/^context-cleaner: [^\n]*\n$/);
  expect(result.stderr).not.toContain("    at ");
}

const property = (inputs: fc.Arbitrary<Uint8Array>) =>
  fc.assert(
    fc.asyncProperty(inputs, fc.boolean(), async (bytes, json) => {
      expectCleanAnswer(await cleanFile(bytes, json));
    }),
    { numRuns: NUM_RUNS, plugins: [fc.timeout(RUN_TIMEOUT_MS)] },
  );

describe("context-cleaner clean: fuzzed thread files", { timeout: NUM_RUNS * RUN_TIMEOUT_MS }, () => {
  it("random bytes", async () => {
    await property(
      fc.oneof(
        fc.uint8Array({ maxLength: 2_048 }),
        fc.string({ unit: "binary" }).map((text) => Buffer.from(text)),
      ),
    );
  });

  it("random JSON", async () => {
    await property(randomJson);
  });

  it("mutated valid threads (neutral, wrapped and bare, and LangChain stored messages)", async () => {
    await property(mutatedThread);
  });

  it("valid threads whose ids, tool names, args or content hold odd strings (NUL, lone surrogates, long) clean with exit code 0", async () => {
    await fc.assert(
      fc.asyncProperty(oddStringThread, fc.boolean(), async (bytes, json) => {
        expect(await cleanFile(bytes, json)).toMatchObject({ code: 0, stderr: "" });
      }),
      { numRuns: NUM_RUNS, plugins: [fc.timeout(RUN_TIMEOUT_MS)] },
    );
  });

  it("the seeds themselves clean with exit code 0", async () => {
    for (const seed of SEEDS) {
      const result = await cleanFile(Buffer.from(JSON.stringify(seed)), true);
      expect(result).toMatchObject({ code: 0, stderr: "" });
      // The neutral seed is one the worker digests: the fuzz reaches the digest path.
      if (seed === SEEDS[0])
        expect(JSON.parse(result.stdout).report.digest.digestsWritten).toBeGreaterThan(0);
    }
  });
});
