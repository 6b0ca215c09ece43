import { generateText, type ModelMessage, stepCountIs, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { earlierTurn, page, pageDigests, readDocument } from "#test/assembler/fixtures/ai-sdk-reader-model";
import { handleIn } from "#test/assembler/fixtures/scripted-agent";
import { contextCleanerMiddleware } from "./middleware";
import { answerAiSdkReadOriginal, readOriginalToolSet } from "./read-original-tool";

const USAGE = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

type PromptMessage = { role: string; content: unknown };
type Part = { type: string; toolCallId?: string; output?: { type: string; value: unknown } };

function partsOf(message: PromptMessage): Part[] {
  return Array.isArray(message.content) ? (message.content as Part[]) : [];
}

/**
 * A provider that, after "Recall <id>", follows the handle the prompt (the cleaned view)
 * shows in the result of <id>, then answers with the text the tool gave back.
 */
function recallModel(prompts: PromptMessage[][]) {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt as PromptMessage[]);
      const lastUser = prompt.findLastIndex((message) => message.role === "user");
      const request = partsOf(prompt[lastUser] as PromptMessage)
        .map((part) => (part as { text?: string }).text ?? "")
        .join("");
      // The id comes reversed, so the request names no document (which would keep its pages raw).
      const target = [...request.replace(/^Recall /, "")].reverse().join("");
      const answered = prompt.slice(lastUser + 1).flatMap((message) => partsOf(message as PromptMessage));
      const back = answered.find((part) => part.type === "tool-result");
      if (back) {
        return {
          content: [{ type: "text", text: `${back.output?.type}|${String(back.output?.value)}` }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: USAGE,
          warnings: [],
        };
      }
      const shown = prompt
        .flatMap((message) => partsOf(message as PromptMessage))
        .find((part) => part.type === "tool-result" && part.toolCallId === target);
      const handle = shown ? handleIn(String(shown.output?.value)) : undefined;
      return {
        content: handle
          ? [
              {
                type: "tool-call",
                toolCallId: `recall_${target}`,
                toolName: handle.name,
                input: JSON.stringify(handle.args),
              },
            ]
          : [{ type: "text", text: "No handle in view." }],
        finishReason: handle ? { unified: "tool-calls", raw: "tool_use" } : { unified: "stop", raw: "stop" },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

async function recall(target: string, readOriginal: boolean) {
  const messages: ModelMessage[] = [
    ...earlierTurn("lease_445", 3),
    ...earlierTurn("nda_3", 3),
    { role: "user", content: `Recall ${[...target].reverse().join("")}` },
  ];
  const prompts: PromptMessage[][] = [];
  const model = wrapLanguageModel({
    model: recallModel(prompts),
    middleware: contextCleanerMiddleware({
      digests: pageDigests("lease_445", 3),
      options: { recencyKeepExchanges: 2, readOriginal },
    }),
  });
  const result = await generateText({
    model,
    messages,
    tools: { read_document: readDocument, ...(readOriginal ? readOriginalToolSet() : {}) },
    stopWhen: stepCountIs(4),
  });
  return { text: result.text, prompts };
}

describe("read_original with the AI SDK middleware", () => {
  it("is a tool for generateText whose answer to a followed handle is the exact raw page", async () => {
    const { text, prompts } = await recall("lease_445_p1", true);
    const shown = (prompts[0] ?? [])
      .flatMap(partsOf)
      .find((part) => part.type === "tool-result" && part.toolCallId === "lease_445_p1");
    expect(String(shown?.output?.value)).toContain('read_original(tool_call_id="lease_445_p1")');
    const [type, answer] = [text.slice(0, text.indexOf("|")), text.slice(text.indexOf("|") + 1)];
    expect(type).toBe("text");
    expect(answer.slice(answer.indexOf("\n") + 1)).toBe(page("lease_445", 1));
  });

  it("offers no handle when the option is off", async () => {
    const { text } = await recall("lease_445_p1", false);
    expect(text).toBe("No handle in view.");
  });
});

describe("answerAiSdkReadOriginal", () => {
  const messages = earlierTurn("lease_445", 2);

  it("reads the caller's ModelMessages", () => {
    const answer = answerAiSdkReadOriginal(messages, { tool_call_id: "lease_445_p0", limit: 10 });
    expect(answer.ok).toBe(true);
    expect(answer.text.split("\n").slice(1).join("\n")).toBe(page("lease_445", 0).slice(0, 10));
  });

  it("answers an unknown or empty id, a bad window or unreadable messages with a tool error, never a throw", () => {
    for (const [thread, input] of [
      [messages, { tool_call_id: "nope" }],
      [messages, { tool_call_id: "" }],
      [messages, { tool_call_id: "lease_445_p0", offset: "x" }],
      [undefined, { tool_call_id: "lease_445_p0" }],
      [[{ role: "nobody" }], { tool_call_id: "lease_445_p0" }],
    ] as const) {
      const answer = answerAiSdkReadOriginal(thread, input);
      expect(answer.ok).toBe(false);
      expect(answer.text).toMatch(/^\[read_original error: /);
    }
  });

  it("sends a tool error to the model as error-text", async () => {
    const tool = readOriginalToolSet({ toolName: "raw_result" }).raw_result;
    const output = await tool?.execute?.({ tool_call_id: "nope" }, { toolCallId: "c", messages } as never);
    expect(
      tool?.toModelOutput?.({ toolCallId: "c", input: { tool_call_id: "nope" }, output } as never),
    ).toEqual({
      type: "error-text",
      value: '[read_original error: no result of tool call "nope" in this conversation]',
    });
  });
});
