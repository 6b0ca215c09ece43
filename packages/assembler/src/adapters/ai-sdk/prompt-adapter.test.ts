import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  digestPickArbitrary,
  digestsFor,
  renderAiSdk,
  threadSpecArbitrary,
} from "#test/assembler/fixtures/provider-thread";
import { COMPACTION_NOTE_PREFIX, renderErrorRetryStub } from "../../contract/stubs";
import { InvalidThreadError } from "../../errors";
import { type AiSdkMessageLike, aiSdkToNeutral, assembleAiSdkPrompt } from "./prompt-adapter";

const NUM_RUNS = process.env.CI ? 500 : 150;

type Part = Record<string, unknown> & { type: string };

function parts(message: AiSdkMessageLike | undefined): Part[] {
  return Array.isArray(message?.content) ? (message.content as Part[]) : [];
}

describe("aiSdkToNeutral", () => {
  it("maps tool-call parts to calls and each tool-result part to a tool message", () => {
    const neutral = aiSdkToNeutral([
      { role: "system", content: "Be brief." },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "need two pages" },
          { type: "tool-call", toolCallId: "a", toolName: "read_document", input: { file_id: "x" } },
          { type: "tool-call", toolCallId: "b", toolName: "web_search", input: {}, providerExecuted: true },
          { type: "tool-call", toolCallId: "c", toolName: "lookup", input: { q: 1 } },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "a",
            toolName: "read_document",
            output: { type: "text", value: "page" },
          },
          {
            type: "tool-result",
            toolCallId: "c",
            toolName: "lookup",
            output: { type: "error-json", value: { code: 5 } },
          },
          { type: "tool-approval-response", approvalId: "p", approved: true },
        ],
      },
    ]);
    expect(neutral).toEqual([
      { role: "system", content: "Be brief." },
      {
        role: "assistant",
        content: [
          { type: "reasoning", text: "need two pages" },
          { type: "tool-call", toolCallId: "b", toolName: "web_search", input: {}, providerExecuted: true },
        ],
        toolCalls: [
          { id: "a", name: "read_document", args: { file_id: "x" } },
          { id: "c", name: "lookup", args: { q: 1 } },
        ],
      },
      { role: "tool", toolCallId: "a", toolName: "read_document", content: "page" },
      { role: "tool", toolCallId: "c", toolName: "lookup", content: '{"code":5}', status: "error" },
      { role: "system", content: [{ type: "tool-approval-response", approvalId: "p", approved: true }] },
    ]);
  });

  it.each([
    [[{ role: "critic", content: "x" }], 0, "role"],
    [[{ role: "tool", content: "x" }], 0, "content"],
    [
      [
        { role: "user", content: "x" },
        { role: "tool", content: [{ type: "tool-result", toolName: "t" }] },
      ],
      1,
      "content[0].toolCallId",
    ],
    [
      [{ role: "tool", content: [{ type: "tool-result", toolCallId: "a", toolName: "t", output: "x" }] }],
      0,
      "content[0].output",
    ],
  ])("names the message index and field at fault (%#)", (messages, index, field) => {
    let caught: unknown;
    try {
      assembleAiSdkPrompt(messages as AiSdkMessageLike[]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidThreadError);
    expect(caught).toMatchObject({ index, field });
  });
});

describe("assembleAiSdkPrompt properties", () => {
  it("without cleaning, answers with the very same message objects", () => {
    fc.assert(
      fc.property(threadSpecArbitrary, (spec) => {
        const prompt = renderAiSdk(spec) as unknown as AiSdkMessageLike[];
        const { messages } = assembleAiSdkPrompt(prompt, null, { inline: false, disabled: false });
        expect(messages).toHaveLength(prompt.length);
        messages.forEach((message, index) => {
          expect(message).toBe(prompt[index]);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("keeps pairing and untouched parts; a replaced result keeps its ids and error flag", () => {
    let replaced = 0;
    fc.assert(
      fc.property(
        threadSpecArbitrary,
        digestPickArbitrary,
        fc.integer({ min: 300, max: 9_000 }),
        (spec, pick, budget) => {
          const prompt = renderAiSdk(spec) as unknown as AiSdkMessageLike[];
          const digests = digestsFor(aiSdkToNeutral(prompt), pick);
          const { messages } = assembleAiSdkPrompt(prompt, digests, {
            historyBudgetChars: budget,
            disabled: false,
          });
          const inputParts = new Set(prompt.flatMap(parts));
          messages.forEach((message, index) => {
            const calls = parts(message)
              .filter((part) => part.type === "tool-call")
              .map((part) => part.toolCallId);
            if (message.role === "assistant" && calls.length > 0) {
              const results = parts(messages[index + 1]).map((part) => part.toolCallId);
              expect(results).toEqual(calls);
            }
            if (message.role === "user" && !prompt.includes(message)) {
              expect(String(parts(message)[0]?.text).startsWith(COMPACTION_NOTE_PREFIX)).toBe(true);
              return;
            }
            for (const part of parts(message)) {
              if (inputParts.has(part)) continue;
              replaced++;
              const source = [...inputParts].find(
                (candidate) => candidate.type === "tool-result" && candidate.toolCallId === part.toolCallId,
              ) as Part;
              expect(part).toMatchObject({ type: "tool-result", toolName: source.toolName });
              const wasError = String((source.output as Part).type).startsWith("error");
              expect((part.output as Part).type).toBe(wasError ? "error-text" : "text");
            }
          });
        },
      ),
      { numRuns: NUM_RUNS },
    );
    expect(replaced).toBeGreaterThan(0);
  });

  it("writes an error/retry stub as error-text", () => {
    const prompt = renderAiSdk([
      { kind: "user", text: "Start.", blocks: false },
      {
        kind: "exchange",
        text: "",
        note: null,
        calls: [{ tool: "search", args: { q: "a" }, result: "Error: timeout", error: true, blocks: false }],
      },
      {
        kind: "exchange",
        text: "",
        note: null,
        calls: [{ tool: "search", args: { q: "a" }, result: "id: x", error: false, blocks: false }],
      },
      { kind: "user", text: "Next.", blocks: false },
    ]) as unknown as AiSdkMessageLike[];
    const { messages } = assembleAiSdkPrompt(prompt, null, { recencyKeepExchanges: 0, disabled: false });
    expect(parts(messages[3])[0]).toEqual({
      type: "tool-result",
      toolCallId: "call_1",
      toolName: "search",
      output: { type: "error-text", value: renderErrorRetryStub("Error: timeout", `search(q="a")`) },
    });
  });
});
