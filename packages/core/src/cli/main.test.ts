import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeChatCompletionsApi,
  startFakeChatCompletionsApi,
} from "#test/core/fakes/openai-chat-completions";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { main } from "./main";

function capture(environment: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), environment },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

let directory: string;
let threadPath: string;
const fixture = buildHeavyThread({
  name: "cli",
  seed: 5,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 80_000,
  pageChars: 16_000,
});

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "context-cleaner-cli-"));
  threadPath = join(directory, "thread.json");
  await writeFile(threadPath, JSON.stringify({ messages: fixture.messages }));
});

describe("context-cleaner clean", () => {
  it("prints the assembled view and its report as JSON, keeping every tool result paired", async () => {
    const run = capture();
    expect(await main(["clean", threadPath, "--json"], run.io)).toBe(0);
    const output = JSON.parse(run.stdout()) as {
      messages: { role: string; toolCallId?: string; content: string }[];
      report: {
        rawChars: number;
        assembledChars: number;
        substitutions: number;
        digest: { digestsWritten: number };
      };
    };
    expect(output.report.assembledChars).toBeLessThan(output.report.rawChars);
    expect(output.report.substitutions).toBe(output.report.digest.digestsWritten);
    const ids = (messages: readonly { role: string; toolCallId?: string }[]) =>
      messages.filter((message) => message.role === "tool").map((message) => message.toolCallId);
    expect(ids(output.messages)).toEqual(ids(fixture.messages));
    expect(
      output.messages.some((message) => message.content.startsWith("[Condensed by context-cleaner")),
    ).toBe(true);
  });

  it("honours CONTEXT_CLEANER_DISABLED=1 in its environment: no digest written, the view is the raw thread", async () => {
    const run = capture({ CONTEXT_CLEANER_DISABLED: "1" });
    expect(await main(["clean", threadPath, "--json"], run.io)).toBe(0);
    const output = JSON.parse(run.stdout()) as {
      messages: unknown[];
      report: { substitutions: number; digest: { digestsWritten: number } };
    };
    expect(output.report.digest.digestsWritten).toBe(0);
    expect(output.report.substitutions).toBe(0);
    expect(output.messages).toEqual(JSON.parse(JSON.stringify(fixture.messages)));
    expect(run.stdout()).not.toContain("[Condensed");
  });

  it.each([
    [["clean", "/nonexistent/thread.json"], /not found|no such|cannot/i],
    [["clean"], /needs a thread file/],
    [["frobnicate"], /unknown command/],
    [["demo"], /unknown command "demo"/],
    [["clean", "x.json", "--model", "gpt"], /--model must be/],
    [["clean", "x.json", "--model", "anthropic"], /ANTHROPIC_API_KEY/],
    [
      ["clean", "x.json", "--model", "openai-compatible"],
      /OPENAI_COMPATIBLE_BASE_URL, OPENAI_COMPATIBLE_API_KEY, OPENAI_COMPATIBLE_MODEL in the environment/,
    ],
    [["clean", "--bogus"], /bogus/],
  ])("exits 2 with one line naming the problem: %j", async (argv, pattern) => {
    const run = capture();
    expect(await main(argv, run.io)).toBe(2);
    expect(run.stderr()).toMatch(pattern);
    expect(run.stderr().trim().split("\n")).toHaveLength(1);
  });

  it("with no arguments, prints the usage on stderr and exits 2", async () => {
    const run = capture();
    expect(await main([], run.io)).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr()).toMatch(/^Usage:/);
  });

  it.each([[["help"]], [["--help"]], [["-h"]], [["clean", "--help"]]])(
    "%j prints the usage on stdout and exits 0",
    async (argv) => {
      const run = capture();
      expect(await main(argv, run.io)).toBe(0);
      expect(run.stdout()).toMatch(/^Usage:/);
      expect(run.stderr()).toBe("");
    },
  );

  it.each([
    [["help", "clean"], /help takes no arguments, got "clean"/],
    [["help", "--json"], /help takes no options, got --json/],
    [["help", "--model", "anthropic"], /help takes no options, got --model/],
    [["clean", "a.json", "b.json"], /unexpected argument "b.json"/],
  ])("refuses an argument the command does not take, naming it: %j", async (argv, pattern) => {
    const run = capture();
    expect(await main(argv, run.io)).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr()).toMatch(pattern);
    expect(run.stderr().trim().split("\n")).toHaveLength(1);
  });

  it.each([
    ["an array", "[]", /must hold a JSON object.*got an array/],
    ["an array of policies", '[{ "tools": {} }]', /must hold a JSON object.*got an array/],
    ["null", "null", /must hold a JSON object.*got null/],
    ["a string", '"read_document"', /must hold a JSON object.*got a string/],
    ["tools as an array", '{ "tools": ["read_document"] }', /tools must be an object.*got an array/],
  ])("exits 2 on a --policy file holding %s, naming the problem", async (_label, text, pattern) => {
    const path = join(directory, "policy.json");
    await writeFile(path, text);
    const run = capture();
    expect(await main(["clean", threadPath, "--policy", path], run.io)).toBe(2);
    expect(run.stdout()).toBe("");
    expect(run.stderr()).toMatch(pattern);
    expect(run.stderr()).toContain(path);
    expect(run.stderr().trim().split("\n")).toHaveLength(1);
  });

  it.each(["thread", "policy"])(
    "exits 2 on a %s file that is not UTF-8, naming the byte offset",
    async (kind) => {
      const path = join(directory, `latin1-${kind}.json`);
      await writeFile(
        path,
        Buffer.concat([
          Buffer.from('{ "tools": {}, "messages": [], "x": "caf'),
          Buffer.from([0xe9, 0x22, 0x7d]),
        ]),
      );
      const run = capture();
      const argv = kind === "thread" ? ["clean", path] : ["clean", threadPath, "--policy", path];
      expect(await main(argv, run.io)).toBe(2);
      expect(run.stderr()).toMatch(/not UTF-8: invalid byte sequence at byte offset 40/);
      expect(run.stderr().trim().split("\n")).toHaveLength(1);
    },
  );

  it("exits 2 naming the scheme of a --database URL no driver serves", async () => {
    const run = capture();
    expect(await main(["clean", threadPath, "--database", "mysql://db.example/app"], run.io)).toBe(2);
    expect(run.stderr()).toMatch(/mysql/);
    expect(run.stderr().trim().split("\n")).toHaveLength(1);
  });

  it("exits 2 on invalid JSON, naming the position", async () => {
    const path = join(directory, "broken.json");
    await writeFile(path, '{ "messages": [ { "role": "user", } ] }');
    const run = capture();
    expect(await main(["clean", path], run.io)).toBe(2);
    expect(run.stderr()).toMatch(/line 1/i);
  });

  it("exits 2 on a wrong field type, naming the message and field", async () => {
    const path = join(directory, "wrong.json");
    await writeFile(
      path,
      JSON.stringify({
        messages: [
          { role: "user", content: "hi" },
          { role: "tool", toolCallId: "c1", toolName: "x", content: 42 },
        ],
      }),
    );
    const run = capture();
    expect(await main(["clean", path], run.io)).toBe(2);
    expect(run.stderr()).toMatch(/messages\[1\]\.content/);
  });
});

describe("context-cleaner clean --model openai-compatible", () => {
  let fake: FakeChatCompletionsApi;
  beforeAll(async () => {
    fake = await startFakeChatCompletionsApi();
  });
  afterAll(() => fake.close());
  const environment = () => ({
    OPENAI_COMPATIBLE_BASE_URL: fake.baseURL,
    OPENAI_COMPATIBLE_API_KEY: "test-key",
    OPENAI_COMPATIBLE_MODEL: "gpt-4.1-mini",
  });

  it("digests through the configured Chat Completions server, its answers checked like any model's", async () => {
    fake.requests.length = 0;
    fake.mode = "ok";
    const run = capture(environment());
    expect(await main(["clean", threadPath, "--json", "--model", "openai-compatible"], run.io)).toBe(0);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((request) => request.problems.length === 0 && !request.refusal)).toBe(true);
    expect(fake.requests[0]?.body.model).toBe("gpt-4.1-mini");
    const output = JSON.parse(run.stdout()) as {
      report: { digest: { digestsWritten: number; calls: number; fallbacks: number } };
    };
    expect(output.report.digest.digestsWritten).toBeGreaterThan(0);
    expect(output.report.digest.calls).toBe(fake.requests.length);
    expect(output.report.digest.fallbacks).toBe(0);
  });

  it("falls back to the extractive digests, counted, when the server keeps failing", async () => {
    fake.requests.length = 0;
    fake.mode = "truncated";
    const run = capture(environment());
    expect(await main(["clean", threadPath, "--json", "--model", "openai-compatible"], run.io)).toBe(0);
    const output = JSON.parse(run.stdout()) as {
      report: { digest: { digestsWritten: number; fallbacks: number } };
    };
    expect(output.report.digest.digestsWritten).toBeGreaterThan(0);
    expect(output.report.digest.fallbacks).toBeGreaterThan(0);
    fake.mode = "ok";
  });

  it("refuses a malformed output limit field with one line naming the setting", async () => {
    const run = capture({ ...environment(), OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "max_output_tokens" });
    expect(await main(["clean", threadPath, "--model", "openai-compatible"], run.io)).toBe(2);
    expect(run.stderr()).toMatch(
      /OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD must be max_tokens or max_completion_tokens/,
    );
    expect(run.stderr().trim().split("\n")).toHaveLength(1);
  });
});
