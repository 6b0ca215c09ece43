import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-cleaner/assembler";
import { beforeAll, describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { main } from "./main";

const fixture = buildHeavyThread({
  name: "formats",
  seed: 7,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 80_000,
  pageChars: 16_000,
});
const conversation = fixture.messages.filter((message) => message.role !== "system");

/** The thread as Anthropic Messages `MessageParam`s: tool results are blocks in user messages. */
function asAnthropic(messages: readonly Message[]): unknown[] {
  return messages.map((message) => {
    if (message.role === "assistant") {
      const calls = (message.toolCalls ?? []).map((call) => ({
        type: "tool_use",
        id: call.id,
        name: call.name,
        input: call.args,
      }));
      const text = String(message.content);
      return { role: "assistant", content: [...(text ? [{ type: "text", text }] : []), ...calls] };
    }
    if (message.role === "tool") {
      const block = {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: String(message.content),
      };
      return { role: "user", content: [message.status === "error" ? { ...block, is_error: true } : block] };
    }
    return { role: "user", content: String(message.content) };
  });
}

/** The thread as OpenAI Chat Completions messages. */
function asOpenAI(messages: readonly Message[]): unknown[] {
  return messages.map((message) => {
    if (message.role === "assistant") {
      const calls = (message.toolCalls ?? []).map((call) => ({
        id: call.id,
        type: "function",
        function: { name: call.name, arguments: JSON.stringify(call.args) },
      }));
      return {
        role: "assistant",
        content: String(message.content) || null,
        ...(calls.length ? { tool_calls: calls } : {}),
      };
    }
    if (message.role === "tool")
      return { role: "tool", tool_call_id: message.toolCallId, content: String(message.content) };
    return { role: message.role, content: String(message.content) };
  });
}

/** The thread as the AI SDK's `ModelMessage[]`: tool-call parts, tool messages of tool-result parts. */
function asAiSdk(messages: readonly Message[]): unknown[] {
  return messages.map((message) => {
    if (message.role === "assistant") {
      const calls = (message.toolCalls ?? []).map((call) => ({
        type: "tool-call",
        toolCallId: call.id,
        toolName: call.name,
        input: call.args,
      }));
      const text = String(message.content);
      return { role: "assistant", content: [...(text ? [{ type: "text", text }] : []), ...calls] };
    }
    if (message.role === "tool") {
      const output = {
        type: message.status === "error" ? "error-text" : "text",
        value: String(message.content),
      };
      return {
        role: "tool",
        content: [
          { type: "tool-result", toolCallId: message.toolCallId, toolName: message.toolName, output },
        ],
      };
    }
    return { role: message.role, content: String(message.content) };
  });
}

function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: {
      stdout: (text: string) => out.push(text),
      stderr: (text: string) => err.push(text),
      environment: {},
    },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

let directory: string;
const paths: Record<string, string> = {};
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "context-cleaner-formats-"));
  for (const [name, messages] of [
    ["anthropic", asAnthropic(conversation)],
    ["openai", asOpenAI(fixture.messages)],
    ["ai-sdk", asAiSdk(fixture.messages)],
  ] as const) {
    paths[name] = join(directory, `${name}.json`);
    await writeFile(paths[name], JSON.stringify({ messages }));
  }
});

describe("context-cleaner clean on provider formats", () => {
  it.each(["anthropic", "openai"])(
    "detects a %s thread and answers in the same format: untouched messages as given, pages condensed",
    async (format) => {
      const run = capture();
      expect(await main(["clean", paths[format] as string, "--json"], run.io)).toBe(0);
      const output = JSON.parse(run.stdout()) as { messages: unknown[]; report: { substitutions: number } };
      const input = format === "anthropic" ? asAnthropic(conversation) : asOpenAI(fixture.messages);
      expect(output.messages).toHaveLength(input.length);
      expect(output.report.substitutions).toBeGreaterThan(0);
      let condensed = 0;
      output.messages.forEach((message, index) => {
        if (JSON.stringify(message) === JSON.stringify(input[index])) return;
        // Only tool results change, and only to the cleaner's bracketed digests and stubs.
        const result = message as { role: string; tool_call_id?: string; content: unknown };
        const content =
          result.role === "tool"
            ? String(result.content)
            : String((result.content as { content?: unknown }[])[0]?.content ?? "");
        expect(content.startsWith("[")).toBe(true);
        if (content.startsWith("[Condensed by context-cleaner")) condensed++;
      });
      expect(condensed).toBe(output.report.substitutions);
      // The provider's own shapes stay: no neutral fields leak into the messages (the
      // report's ledger names results by tool call id).
      expect(JSON.stringify(output.messages)).not.toContain('"toolCallId"');
    },
  );

  it("detects an AI SDK thread (ModelMessage[]) and answers in it: only tool-result outputs change", async () => {
    const run = capture();
    expect(await main(["clean", paths["ai-sdk"] as string, "--json"], run.io), run.stderr()).toBe(0);
    const output = JSON.parse(run.stdout()) as { messages: unknown[]; report: { substitutions: number } };
    const input = asAiSdk(fixture.messages);
    expect(output.messages).toHaveLength(input.length);
    expect(output.report.substitutions).toBeGreaterThan(0);
    let condensed = 0;
    output.messages.forEach((message, index) => {
      if (JSON.stringify(message) === JSON.stringify(input[index])) return;
      const parts = (message as { role: string; content: { output: { value: string } }[] }).content;
      expect((message as { role: string }).role).toBe("tool");
      const value = String(parts[0]?.output.value);
      expect(value.startsWith("[")).toBe(true);
      if (value.startsWith("[Condensed by context-cleaner")) condensed++;
    });
    expect(condensed).toBe(output.report.substitutions);
    expect(JSON.stringify(output.messages)).not.toContain('"toolCalls"');
  });

  it("takes --format, and refuses a format the file is not in with one line (exit 2)", async () => {
    const forced = capture();
    expect(
      await main(["clean", paths.openai as string, "--json", "--format", "openai"], forced.io),
      forced.stderr(),
    ).toBe(0);
    const wrong = capture();
    expect(await main(["clean", paths.anthropic as string, "--format", "langchain"], wrong.io)).toBe(2);
    expect(wrong.stderr().trim().split("\n")).toHaveLength(1);
    const bogus = capture();
    expect(await main(["clean", paths.openai as string, "--format", "xml"], bogus.io)).toBe(2);
    expect(bogus.stderr()).toMatch(/--format must be one of neutral, langchain, anthropic, openai, ai-sdk/);
  });
});
