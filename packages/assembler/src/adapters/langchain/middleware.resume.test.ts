import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware, FakeToolCallingModel, toolStrategy } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  digestsForThread,
  digestText,
  readDocument,
  readRequest,
  resultOf,
  ScriptedReaderModel,
} from "#test/assembler/fixtures/scripted-agent";
import type { DigestMap } from "../../types";
import { contextCleanerMiddleware } from "./middleware";

const THREAD = { configurable: { thread_id: "thread-1", org_id: "org-1" } };
const CLOCK = new Date("2026-03-01T12:00:00.000Z");

/** The scripted reader, with a thinking block (bound to what it was called with) on every answer. */
class ThinkingReaderModel extends ScriptedReaderModel {
  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const result = await super._generate(messages);
    const answer = result.generations[0]?.message as AIMessage;
    const text = typeof answer.content === "string" ? answer.content : "";
    const message = new AIMessage({
      content: [
        { type: "thinking", thinking: `Step ${this.calls.length}.`, signature: `sig-${this.calls.length}` },
        ...(text === "" ? [] : [{ type: "text", text }]),
      ],
      tool_calls: answer.tool_calls ?? [],
    });
    return { generations: [{ text, message }] };
  }
}

/** What the provider checks of a message list: each message's type, content and tool calls. */
function sentForm(messages: readonly BaseMessage[]): unknown[] {
  return messages.map((message) => ({
    type: message.getType(),
    content: message.content,
    toolCalls: AIMessage.isInstance(message) ? message.tool_calls : undefined,
  }));
}

describe("contextCleanerMiddleware across processes", () => {
  it("resumes a tool loop in a new process with the view its earlier calls sent", async () => {
    const checkpointer = new MemorySaver();
    let digests: DigestMap = new Map();
    // One process: its middleware (and registry), its model; the checkpoint is shared.
    const process = () => {
      const model = new ThinkingReaderModel({});
      const middleware = contextCleanerMiddleware({
        loadDigests: async () => digests,
        now: () => CLOCK,
        options: { disabled: false },
      });
      return {
        model,
        agent: createAgent({ model, tools: [readDocument], checkpointer, middleware: [middleware] }),
      };
    };
    const first = process();
    await first.agent.invoke({ messages: [{ role: "user", content: readRequest("lease_445", 5) }] }, THREAD);
    const saved = await checkpointer.getTuple(THREAD);
    if (!saved) throw new Error("no checkpoint for the thread");
    digests = digestsForThread((saved.checkpoint.channel_values as { messages: BaseMessage[] }).messages);
    // The checkpoint carries the last call's record beside the messages.
    expect(saved.checkpoint.channel_values).toMatchObject({
      contextCleanerLastCall: { atMs: CLOCK.getTime(), sent: expect.any(Array) },
    });
    // Turn 2: two model calls go through, the third fails (the process dies mid-loop).
    first.model.failOnCall = first.model.calls.length + 3;
    await expect(
      first.agent.invoke({ messages: [{ role: "user", content: readRequest("nda_3", 4) }] }, THREAD),
    ).rejects.toThrow();
    const lastSent = first.model.calls.at(-2) as BaseMessage[];
    // Turn 1's pages went out condensed on turn 2's calls.
    expect(resultOf(lastSent, "lease_445_p2")?.content).toBe(digestText("lease_445_p2"));

    // Another process resumes the loop from the checkpoint.
    const second = process();
    await second.agent.invoke(null as never, THREAD);
    const resumed = second.model.calls[0] as BaseMessage[];
    // What the loop's earlier call sent, word for word, and the turn appended after it: the
    // latest thinking block is still bound to its prefix.
    expect(sentForm(resumed.slice(0, lastSent.length))).toEqual(sentForm(lastSent));
    expect(resultOf(resumed, "lease_445_p2")?.content).toBe(digestText("lease_445_p2"));
  });

  it("leaves a structured response as the agent made it", async () => {
    const format = toolStrategy(z.object({ answer: z.string() }));
    const name = (format[0] as { tool: { function: { name: string } } }).tool.function.name;
    const agent = createAgent({
      model: new FakeToolCallingModel({ toolCalls: [[{ name, args: { answer: "42" }, id: "so_1" }]] }),
      tools: [],
      responseFormat: format,
      checkpointer: new MemorySaver(),
      middleware: [contextCleanerMiddleware({ loadDigests: async () => new Map(), now: () => CLOCK })],
    });
    const result = await agent.invoke({ messages: [{ role: "user", content: "What is it?" }] }, THREAD);
    expect(result.structuredResponse).toEqual({ answer: "42" });
  });

  it("keeps the latest record when a middleware around it calls the model twice in one step", async () => {
    const twice = createMiddleware({
      name: "AskTwice",
      wrapModelCall: async (request, handler) => {
        await handler(request);
        return handler(request);
      },
    });
    const model = new ThinkingReaderModel({});
    const checkpointer = new MemorySaver();
    const agent = createAgent({
      model,
      tools: [readDocument],
      checkpointer,
      middleware: [twice, contextCleanerMiddleware({ loadDigests: async () => new Map(), now: () => CLOCK })],
    });
    await agent.invoke({ messages: [{ role: "user", content: readRequest("lease_445", 2) }] }, THREAD);
    const saved = await checkpointer.getTuple(THREAD);
    const values = saved?.checkpoint.channel_values as {
      messages: BaseMessage[];
      contextCleanerLastCall?: unknown;
    };
    expect(values.contextCleanerLastCall).toMatchObject({ atMs: CLOCK.getTime() });
    expect(values.messages.at(-1)?.getType()).toBe("ai");
  });
});
