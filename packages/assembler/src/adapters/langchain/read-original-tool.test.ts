import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import {
  digestsForThread,
  documentPage,
  PAGE_CHARS,
  readDocument,
  readRequest,
  recallRequest,
  resultOf,
  ScriptedReaderModel,
} from "#test/assembler/fixtures/scripted-agent";
import type { DigestMap } from "../../types";
import { contextCleanerMiddleware } from "./middleware";
import { contextCleanerPreModelHook } from "./pre-model-hook";
import { answerLangChainReadOriginal, readOriginalLangChainTool } from "./read-original-tool";

const THREAD = { configurable: { thread_id: "thread-r", org_id: "org-1" } };

/** The header line the tool's answer opens with, then the raw text. */
function rawOf(answer: unknown): string {
  const text = String(answer);
  return text.slice(text.indexOf("\n") + 1);
}

/** An agent (built by `build`) that reads a lease, is digested, then recalls condensed pages by their handle. */
async function recallThroughAgent(
  build: (
    model: ScriptedReaderModel,
    checkpointer: MemorySaver,
    digests: () => DigestMap,
  ) => {
    invoke: (
      input: { messages: { role: string; content: string }[] },
      config: typeof THREAD,
    ) => Promise<unknown>;
  },
) {
  const model = new ScriptedReaderModel({});
  const checkpointer = new MemorySaver();
  let digests: DigestMap = new Map();
  const agent = build(model, checkpointer, () => digests);
  const raw = async () => {
    const saved = await checkpointer.getTuple(THREAD);
    if (!saved) throw new Error("no checkpoint for the thread");
    return (saved.checkpoint.channel_values as { messages: BaseMessage[] }).messages;
  };
  const turn = async (request: string) => {
    const first = model.calls.length;
    await agent.invoke({ messages: [{ role: "user", content: request }] }, THREAD);
    return model.calls.slice(first);
  };
  await turn(readRequest("lease_445", 5));
  digests = digestsForThread(await raw());
  await turn(readRequest("nda_3", 4));
  const recall = await turn(recallRequest("lease_445_p1"));
  return { recall, raw: await raw(), model };
}

describe("read_original in the createAgent middleware", () => {
  it("adds the tool to the agent and answers a followed handle with the exact raw page", async () => {
    const { recall, raw } = await recallThroughAgent((model, checkpointer, digests) =>
      createAgent({
        model,
        tools: [readDocument],
        checkpointer,
        middleware: [
          contextCleanerMiddleware({ loadDigests: async () => digests(), options: { readOriginal: true } }),
        ],
      }),
    );
    // The view the model got shows the page condensed, naming the handle.
    expect(String(resultOf(recall[0] as BaseMessage[], "lease_445_p1")?.content)).toContain(
      'read_original(tool_call_id="lease_445_p1")',
    );
    const answer = resultOf(raw, "recall_lease_445_p1");
    expect(answer?.status).toBe("success");
    expect(rawOf(answer?.content)).toBe(documentPage("lease_445", PAGE_CHARS));
    // The model's last words are the tool's answer: the page, exactly.
    expect(rawOf((raw.at(-1) as AIMessage).content)).toBe(documentPage("lease_445", PAGE_CHARS));
  });

  it("leaves the agent's tools and the view alone when the option is off", async () => {
    const { recall, raw } = await recallThroughAgent((model, checkpointer, digests) =>
      createAgent({
        model,
        tools: [readDocument],
        checkpointer,
        middleware: [contextCleanerMiddleware({ loadDigests: async () => digests() })],
      }),
    );
    expect(String(resultOf(recall[0] as BaseMessage[], "lease_445_p1")?.content)).not.toContain(
      "read_original",
    );
    expect(resultOf(raw, "recall_lease_445_p1")).toBeUndefined();
    expect(String((raw.at(-1) as AIMessage).content)).toBe("No handle in view.");
  });
});

describe("read_original with the LangGraph prebuilt agent", () => {
  it("is the tool to add beside the pre-model hook, reading the raw messages of the graph state", async () => {
    const { recall, raw } = await recallThroughAgent((model, checkpointer, digests) =>
      createReactAgent({
        llm: model,
        tools: [readDocument, readOriginalLangChainTool()],
        checkpointer,
        preModelHook: contextCleanerPreModelHook({
          loadDigests: async () => digests(),
          options: { readOriginal: true },
        }),
      }),
    );
    expect(String(resultOf(recall[0] as BaseMessage[], "lease_445_p1")?.content)).toContain(
      'read_original(tool_call_id="lease_445_p1")',
    );
    expect(rawOf(resultOf(raw, "recall_lease_445_p1")?.content)).toBe(documentPage("lease_445", PAGE_CHARS));
  });
});

describe("answerLangChainReadOriginal", () => {
  const messages: BaseMessage[] = [
    new HumanMessage("read"),
    new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "fetch", args: {}, type: "tool_call" }] }),
    new ToolMessage({ content: "raw text", tool_call_id: "c1", name: "fetch" }),
  ];

  it("answers a window of the result as a ToolMessage for the call", () => {
    const answer = answerLangChainReadOriginal(messages, { tool_call_id: "c1", offset: 4 }, "call_9");
    expect(answer).toMatchObject({ tool_call_id: "call_9", name: "read_original", status: "success" });
    expect(rawOf(answer.content)).toBe("text");
  });

  it("answers an unknown or empty id, a bad window or no conversation with an error ToolMessage, never a throw", () => {
    for (const [thread, args] of [
      [messages, { tool_call_id: "nope" }],
      [messages, { tool_call_id: "" }],
      [messages, { tool_call_id: "c1", limit: -1 }],
      [undefined, { tool_call_id: "c1" }],
      [[{ not: "a message" }], { tool_call_id: "c1" }],
    ] as const) {
      const answer = answerLangChainReadOriginal(thread, args, "call_9");
      expect(answer.status).toBe("error");
      expect(String(answer.content)).toMatch(/^\[read_original error: /);
    }
  });

  it("is the tool's answer when the tool is invoked directly with a state", async () => {
    const tool = readOriginalLangChainTool({ toolName: "raw_result" });
    expect(tool.name).toBe("raw_result");
    const answer = await tool.invoke(
      { id: "call_9", name: "raw_result", args: { tool_call_id: "c1" }, type: "tool_call" },
      { state: { messages }, toolCallId: "call_9" } as never,
    );
    expect(rawOf((answer as ToolMessage).content)).toBe("raw text");
  });
});
