import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { describe, expect, it } from "vitest";
import {
  digestsForThread,
  digestText,
  documentPage,
  langChainPairingProblems,
  PAGE_CHARS,
  readDocument,
  readRequest,
  resultOf,
  ScriptedReaderModel,
} from "#test/assembler/fixtures/scripted-agent";
import type { DigestMap } from "../../types";
import { contextCleanerPreModelHook, langChainTurnEndedEvent } from "./pre-model-hook";

const THREAD = { configurable: { thread_id: "thread-7" } };

describe("contextCleanerPreModelHook with createReactAgent", () => {
  it("calls the model with the condensed view while the checkpoint's messages stay raw", async () => {
    const model = new ScriptedReaderModel({});
    const checkpointer = new MemorySaver();
    let digests: DigestMap = new Map();
    const loads: string[] = [];
    const agent = createReactAgent({
      llm: model,
      tools: [readDocument],
      checkpointer,
      preModelHook: contextCleanerPreModelHook({
        loadDigests: async (threadId) => {
          loads.push(threadId);
          return digests;
        },
        options: { disabled: false },
      }),
    });
    const raw = async (): Promise<Record<string, unknown>> => {
      const saved = await checkpointer.getTuple(THREAD);
      if (!saved) throw new Error("no checkpoint for the thread");
      return saved.checkpoint.channel_values;
    };
    const turn = async (request: string) => {
      const first = model.calls.length;
      await agent.invoke({ messages: [{ role: "user", content: request }] }, THREAD);
      return model.calls.slice(first);
    };

    await turn(readRequest("lease_445", 5));
    digests = digestsForThread((await raw()).messages as BaseMessage[]);
    await turn(readRequest("nda_3", 4));
    digests = digestsForThread((await raw()).messages as BaseMessage[]);
    const turn3 = await turn(readRequest("memo_9", 2));

    expect(loads).toEqual(["thread-7", "thread-7", "thread-7"]);
    expect(turn3).toHaveLength(3);
    for (const messages of turn3) {
      expect(resultOf(messages, "lease_445_p1")?.content).toBe(digestText("lease_445_p1"));
      // The previous turn's pages too: the recency wall starts at the latest user message.
      expect(resultOf(messages, "nda_3_p3")?.content).toBe(digestText("nda_3_p3"));
      expect(langChainPairingProblems(messages)).toEqual([]);
    }

    const values = await raw();
    const messages = values.messages as BaseMessage[];
    expect(resultOf(messages, "lease_445_p1")?.content).toBe(documentPage("lease_445", PAGE_CHARS));
    expect(langChainPairingProblems(messages)).toEqual([]);
    // LangGraph keeps the hook's answer as a channel of its own: the last view, not the record.
    expect(resultOf(values.llmInputMessages as BaseMessage[], "lease_445_p1")?.content).toBe(
      digestText("lease_445_p1"),
    );
    // The event announces the turn as the checkpoint holds it: its message count and latest id.
    expect(messages.at(-1)?.id).toEqual(expect.any(String));
    expect(langChainTurnEndedEvent("thread-7", messages, new Date(0))).toEqual({
      threadId: "thread-7",
      rawToolChars: 11 * PAGE_CHARS,
      turnEndedAt: "1970-01-01T00:00:00.000Z",
      messageCount: messages.length,
      lastMessageId: messages.at(-1)?.id,
    });
  });

  it("assembles without digests when the run has no thread id", async () => {
    const model = new ScriptedReaderModel({});
    let loads = 0;
    const agent = createReactAgent({
      llm: model,
      tools: [readDocument],
      preModelHook: contextCleanerPreModelHook({
        loadDigests: async () => {
          loads++;
          return null;
        },
      }),
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: readRequest("a", 1) }] });
    expect(loads).toBe(0);
    expect(result.messages.at(-1)?.content).toBe("Done reading.");
  });
});
