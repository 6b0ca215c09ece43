import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { InvalidThreadError } from "../errors";
import { createToolPolicy } from "../policy";
import type { Message } from "../types";
import { indexedThreadOf, threadFactsOf } from "./thread-state";

function exchange(id: string, fileId: string, offset: number): Message[] {
  return [
    assistantCalling(toolCall(id, "read_document", { file_id: fileId, offset })),
    toolResult(id, "read_document", `page of ${fileId} at ${offset}`),
  ];
}

describe("indexedThreadOf", () => {
  it("extends the index it kept for a thread that grew, taking in the new messages only", () => {
    const thread = [systemMessage(), userMessage("Read the lease."), ...exchange("c1", "lease", 0)];
    const first = indexedThreadOf(thread);
    const grown = [...thread, ...exchange("c2", "lease", 1000)];
    const second = indexedThreadOf(grown);
    expect(second).toBe(first);
    expect(second.length).toBe(grown.length);
    expect(second.messages).toEqual(grown);
    expect(indexedThreadOf(grown)).toBe(first);
  });

  it("builds a new index when a message it took in was changed in place since", () => {
    const thread = [systemMessage(), userMessage("Read the lease."), ...exchange("c1", "lease", 0)];
    const first = indexedThreadOf(thread);
    (thread[3] as { content: string }).content = "the page, read again";
    const second = indexedThreadOf(thread);
    expect(second).not.toBe(first);
    expect(second.chars[3]).toBe("the page, read again".length);
  });

  it("builds a new index when a call's issuer was set in place since", () => {
    const call = toolCall("c2", "read_document", { file_id: "lease", offset: 1 });
    const thread: Message[] = [
      systemMessage(),
      userMessage("Read the lease."),
      {
        role: "assistant",
        content: [{ type: "server_tool_use", id: "srv_1", name: "code_execution", input: {} }],
        toolCalls: [{ ...toolCall("c1", "read_document"), issuedBy: "srv_1" }],
      },
      toolResult("c1", "read_document", "page"),
      assistantCalling(call),
      toolResult("c2", "read_document", "page"),
    ];
    const first = indexedThreadOf(thread);
    expect(first.units.unitOf(4)).toBe(4);
    call.issuedBy = "srv_1";
    const second = indexedThreadOf(thread);
    expect(second).not.toBe(first);
    expect(second.units.unitOf(4)).toBe(2);
  });

  it("keeps the indexes of threads sharing their first message object (a constant system prompt)", () => {
    const system = systemMessage();
    const one = [system, userMessage("Thread one."), ...exchange("c1", "lease", 0)];
    const two = [system, userMessage("Thread two."), ...exchange("c1", "nda", 0)];
    const indexOne = indexedThreadOf(one);
    const indexTwo = indexedThreadOf(two);
    expect(indexTwo).not.toBe(indexOne);
    expect(indexedThreadOf([...one, ...exchange("c2", "lease", 1000)])).toBe(indexOne);
    expect(indexedThreadOf([...two, ...exchange("c2", "nda", 1000)])).toBe(indexTwo);
  });

  it("keeps the indexes of threads sharing their first two message objects", () => {
    const [system, ask] = [systemMessage(), userMessage("Read the file.")];
    const one = [system, ask, ...exchange("c1", "lease", 0)];
    const two = [system, ask, ...exchange("c1", "nda", 0)];
    const indexOne = indexedThreadOf(one);
    const indexTwo = indexedThreadOf(two);
    expect(indexTwo).not.toBe(indexOne);
    expect(indexedThreadOf(one)).toBe(indexOne);
    expect(indexedThreadOf(two)).toBe(indexTwo);
  });

  it("gives a shorter thread its own index and keeps the longer one", () => {
    const thread = [
      systemMessage(),
      userMessage("Read."),
      ...exchange("c1", "lease", 0),
      ...exchange("c2", "lease", 1),
    ];
    const whole = indexedThreadOf(thread);
    const shorter = indexedThreadOf(thread.slice(0, 3));
    expect(shorter).not.toBe(whole);
    expect(shorter.length).toBe(3);
    expect(indexedThreadOf(thread)).toBe(whole);
  });

  it("validates each new message, keeping the valid ones before a bad one", () => {
    const thread = [systemMessage(), userMessage("Read."), ...exchange("c1", "lease", 0)];
    const index = indexedThreadOf(thread);
    const bad = { role: "tool", toolCallId: "c2", content: "no tool name" } as unknown as Message;
    expect(() => indexedThreadOf([...thread, bad])).toThrow(InvalidThreadError);
    expect(indexedThreadOf(thread)).toBe(index);
    expect(index.length).toBe(thread.length);
  });
});

describe("threadFactsOf", () => {
  const policy = createToolPolicy();

  it("reuses the facts of a grown thread under the same policy, and keeps others apart", () => {
    const thread = [systemMessage(), userMessage("Read."), ...exchange("c1", "lease", 0)];
    const index = indexedThreadOf(thread);
    const facts = threadFactsOf(index, policy);
    const grown = indexedThreadOf([...thread, ...exchange("c2", "lease", 1000)]);
    expect(threadFactsOf(grown, policy)).toBe(facts);
    expect(facts.results).toEqual([3, 5]);
    const other = createToolPolicy({ tools: { read_document: { kind: "keep" } } });
    expect(threadFactsOf(grown, other)).not.toBe(facts);
    expect(threadFactsOf(grown, other).at(3)?.reason).toBe("policy-keep");
    expect(threadFactsOf(grown, policy).at(3)?.reason).toBeUndefined();
  });

  it("reads a result's facts again when a later message brings the call it answers", () => {
    // The result comes before any call of its id: it pairs with the latest call of its id.
    const early = toolResult("c9", "read_document", "a page");
    const thread = [systemMessage(), userMessage("Read."), early];
    const facts = threadFactsOf(indexedThreadOf(thread), policy);
    expect(facts.at(2)?.source).toBeUndefined();
    const grown = indexedThreadOf([...thread, ...exchange("c9", "lease", 0)]);
    const again = threadFactsOf(grown, policy);
    expect(again).not.toBe(facts);
    expect(again.at(2)?.source).toBe("read_document\u0000lease");
  });
});
