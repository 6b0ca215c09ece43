import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { digestFor, documentPage } from "#test/assembler/fixtures/thread-builder";
import { DIGEST_HEADER, renderDuplicateStub, renderErrorRetryStub } from "../../contract/stubs";
import { InvalidThreadError } from "../../errors";
import { assembleLangChainView, fromLangChain, reviveLangChainMessages } from "./langchain-adapter";

function isBaseMessageLike(value: unknown): boolean {
  return typeof (value as { getType?: unknown }).getType === "function";
}

const SIDE_LETTER = "Side letter text: the tenant may assign to an affiliate without consent. ".repeat(6);

const PAGE_2 = documentPage("lease_445", 2);
const DIGEST = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - rent $1,250,000`;

function calling(id: string, name: string, args: Record<string, unknown>): AIMessage {
  return new AIMessage({ content: "", id: `ai_${id}`, tool_calls: [{ id, name, args, type: "tool_call" }] });
}

/** A LangGraph-shaped thread: a digested page, an error then retry, a duplicate read, three recent exchanges. */
function langChainThread(): BaseMessage[] {
  return [
    new SystemMessage({ content: "You are a careful legal assistant.", id: "sys" }),
    new HumanMessage({ content: "Review the lease.", id: "h1" }),
    calling("p2", "read_document", { file_id: "lease_445", offset: 5_000 }),
    new ToolMessage({
      content: PAGE_2,
      tool_call_id: "p2",
      name: "read_document",
      id: "tm_p2",
      status: "success",
      additional_kwargs: { source: "mcp" },
    }),
    calling("e1", "search", { q: "assignment" }),
    new ToolMessage({
      content: "Error: backend timeout\ntrace",
      tool_call_id: "e1",
      name: "search",
      id: "tm_e1",
      status: "error",
    }),
    calling("e2", "search", { q: "assignment" }),
    new ToolMessage({ content: "id: lease_445", tool_call_id: "e2", name: "search", id: "tm_e2" }),
    calling("d1", "read_document", { file_id: "side_77" }),
    new ToolMessage({ content: SIDE_LETTER, tool_call_id: "d1", name: "read_document", id: "tm_d1" }),
    calling("d2", "read_document", { file_id: "side_77" }),
    new ToolMessage({ content: SIDE_LETTER, tool_call_id: "d2", name: "read_document", id: "tm_d2" }),
    ...["w1", "w2", "w3"].flatMap((id) => [
      calling(id, "web_search", { q: id }),
      new ToolMessage({ content: `id: ${id}`, tool_call_id: id, name: "web_search", id: `tm_${id}` }),
    ]),
    new HumanMessage({ content: "Draft the memo.", id: "h2" }),
  ];
}

const digests = new Map([["p2", digestFor(PAGE_2, DIGEST)]]);

function findTool(messages: readonly BaseMessage[], toolCallId: string): ToolMessage {
  const found = messages.find(
    (message) => ToolMessage.isInstance(message) && message.tool_call_id === toolCallId,
  );
  if (!found) throw new Error(`fixture: no tool message ${toolCallId}`);
  return found as ToolMessage;
}

describe("assembleLangChainView", () => {
  const thread = langChainThread();
  const { messages: view, report } = assembleLangChainView(thread, digests);
  const replacedIds = new Set(["tm_p2", "tm_e1", "tm_d1"]);

  it("returns untouched messages as the same instances", () => {
    expect(view).toHaveLength(thread.length);
    view.forEach((message, index) => {
      if (replacedIds.has(thread[index]?.id ?? "")) expect(message).not.toBe(thread[index]);
      else expect(message).toBe(thread[index]);
    });
    expect(report).toMatchObject({ substitutions: 1, stubs: { duplicate: 1, errorRetry: 1 } });
  });

  it("returns replaced results as real ToolMessages keeping tool_call_id, name, id, status and kwargs", () => {
    const digested = findTool(view, "p2");
    expect(digested).toBeInstanceOf(ToolMessage);
    expect(digested).toMatchObject({
      content: DIGEST,
      tool_call_id: "p2",
      name: "read_document",
      id: "tm_p2",
      status: "success",
      additional_kwargs: { source: "mcp" },
    });
    const errorStub = findTool(view, "e1");
    expect(errorStub).toBeInstanceOf(ToolMessage);
    expect(errorStub).toMatchObject({
      content: renderErrorRetryStub("Error: backend timeout", 'search(q="assignment")'),
      id: "tm_e1",
      status: "error",
    });
    expect(findTool(view, "d1").content).toBe(
      renderDuplicateStub("read_document", "d2", 'read_document(file_id="side_77")'),
    );
  });

  it("does not mutate the input instances", () => {
    expect(findTool(thread, "p2").content).toBe(PAGE_2);
    expect(findTool(thread, "e1").content).toBe("Error: backend timeout\ntrace");
  });

  it.each([
    [
      "mapChatMessagesToStoredMessages output",
      (messages: BaseMessage[]) => mapChatMessagesToStoredMessages(messages),
    ],
    [
      "toJSON() output",
      (messages: BaseMessage[]) => messages.map((message) => JSON.parse(JSON.stringify(message.toJSON()))),
    ],
  ])("revives the stored form (%s), assembles the same view and answers in that form", (_label, store) => {
    const stored = store(langChainThread());
    const result = assembleLangChainView(stored as never[], digests);
    expect(result.report).toEqual(report);
    // Untouched messages are the caller's own stored objects; replaced ones share their form.
    result.messages.forEach((message, index) => {
      expect(isBaseMessageLike(message)).toBe(false);
      if (stored.includes(message)) return;
      expect(Object.keys(message).sort()).toEqual(Object.keys(stored[index] ?? stored[0]).sort());
    });
    const revived = reviveLangChainMessages(result.messages);
    revived.forEach((message, index) => {
      const expected = view[index] as BaseMessage;
      expect(message.getType()).toBe(expected.getType());
      expect(message.content).toEqual(expected.content);
      expect(message.id).toBe(expected.id);
    });
    const revivedTool = findTool(revived, "p2");
    expect(revivedTool).toBeInstanceOf(ToolMessage);
    expect(revivedTool).toMatchObject({ tool_call_id: "p2", name: "read_document", status: "success" });
    const revivedCall = revived[2] as AIMessage;
    expect(AIMessage.isInstance(revivedCall)).toBe(true);
    expect(revivedCall.tool_calls?.[0]).toMatchObject({
      id: "p2",
      args: { file_id: "lease_445", offset: 5_000 },
    });
  });

  it("keeps a successful result whose text opens like an error raw (status success is carried)", () => {
    const table = "Error codes table: E-17 means the landlord's consent is pending.\nE-18 means …";
    const messages = [
      new HumanMessage({ content: "list the error codes" }),
      new AIMessage({ content: "", tool_calls: [{ id: "k1", name: "lookup", args: { q: "codes" } }] }),
      new ToolMessage({ content: table, tool_call_id: "k1", name: "lookup", status: "success" }),
      new AIMessage({ content: "", tool_calls: [{ id: "k2", name: "lookup", args: { q: "more" } }] }),
      new ToolMessage({ content: "done", tool_call_id: "k2", name: "lookup", status: "success" }),
      new AIMessage({ content: "a" }),
      new AIMessage({ content: "b" }),
      new AIMessage({ content: "c" }),
      new HumanMessage({ content: "thanks" }),
    ];
    const { messages: view, report } = assembleLangChainView(messages, null);
    expect(report.stubs.errorRetry).toBe(0);
    expect(view[2]).toBe(messages[2]);
  });

  it("sees content replaced in place on an instance: the hash gate checks live content", () => {
    const mutable = langChainThread();
    expect(assembleLangChainView(mutable, digests).report.substitutions).toBe(1);
    findTool(mutable, "p2").content = `${PAGE_2} (amended)`;
    const again = assembleLangChainView(mutable, digests);
    expect(again.report).toMatchObject({ substitutions: 0, stale: 1 });
    expect(findTool(again.messages, "p2")).toBe(findTool(mutable, "p2"));
  });

  it("passes the kill switch through", () => {
    const off = assembleLangChainView(thread, digests, { disabled: true });
    off.messages.forEach((message, index) => {
      expect(message).toBe(thread[index]);
    });
  });
});

describe("fromLangChain", () => {
  it("maps roles, tool calls, tool call ids and error status to the neutral model", () => {
    const neutral = fromLangChain(langChainThread());
    expect(neutral[0]).toMatchObject({ role: "system", id: "sys" });
    expect(neutral[1]).toMatchObject({ role: "user", content: "Review the lease." });
    expect(neutral[2]).toMatchObject({
      role: "assistant",
      toolCalls: [{ id: "p2", name: "read_document", args: { file_id: "lease_445", offset: 5_000 } }],
    });
    expect(neutral[5]).toMatchObject({ role: "tool", toolCallId: "e1", toolName: "search", status: "error" });
  });

  it("keeps block content", () => {
    const blocks = [{ type: "text", text: "page" }];
    const [neutral] = fromLangChain([
      new ToolMessage({ content: blocks, tool_call_id: "c", name: "read_document" }),
    ]);
    expect(neutral?.content).toEqual(blocks);
  });
});

describe("reviveLangChainMessages errors", () => {
  it("names the index of a value that is not a message", () => {
    let caught: unknown;
    try {
      reviveLangChainMessages([new HumanMessage("hi"), 42]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidThreadError);
    expect((caught as InvalidThreadError).index).toBe(1);
    expect((caught as InvalidThreadError).message).toContain("messages[1]");
  });

  it("names the index and field of an unsupported serialized class", () => {
    const value = {
      lc: 1,
      type: "constructor",
      id: ["langchain_core", "messages", "FancyMessage"],
      kwargs: {},
    };
    expect(() => reviveLangChainMessages([value])).toThrow(InvalidThreadError);
    try {
      reviveLangChainMessages([new HumanMessage("hi"), value]);
    } catch (error) {
      expect(error).toMatchObject({ index: 1, field: "id" });
    }
  });

  it.each([
    ["a stored remove marker", { type: "remove", data: { content: "", id: "m1" } }, "Got unexpected type"],
    ["a stored tool message without tool_call_id", { type: "tool", data: { content: "x" } }, "Tool call ID"],
    [
      "a stored generic message without a role",
      { type: "generic", data: { content: "x" } },
      "Role must be defined",
    ],
  ])("wraps LangChain's own error for %s in an InvalidThreadError naming the index", (_, value, reason) => {
    let caught: unknown;
    try {
      reviveLangChainMessages([new HumanMessage("hi"), value]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidThreadError);
    expect(caught).toMatchObject({ index: 1 });
    expect((caught as InvalidThreadError).message).toContain("messages[1]");
    expect((caught as InvalidThreadError).message).toContain(reason);
    expect((caught as InvalidThreadError).cause).toBeInstanceOf(Error);
  });

  function thrownBy(run: () => unknown): InvalidThreadError {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidThreadError);
      return error as InvalidThreadError;
    }
    throw new Error("expected an InvalidThreadError");
  }

  it("names the index and field of tool_calls that are not an array", () => {
    const broken = new AIMessage({ content: "", tool_calls: { id: "x" } as never });
    const error = thrownBy(() => assembleLangChainView([new HumanMessage("hi"), broken]));
    expect(error).toMatchObject({ index: 1, field: "tool_calls" });
    expect(error.message).toContain("messages[1].tool_calls");
    const stored = { type: "ai", data: { content: "", tool_calls: { id: "c" } } };
    expect(thrownBy(() => fromLangChain([stored as never]))).toMatchObject({ index: 0, field: "tool_calls" });
  });

  it("names the index and field of a tool call that is not an object", () => {
    const broken = new AIMessage({ content: "" });
    (broken as { tool_calls: unknown }).tool_calls = [null];
    expect(thrownBy(() => assembleLangChainView([broken]))).toMatchObject({
      index: 0,
      field: "tool_calls[0]",
    });
  });

  it("names the index and field of content that is neither a string nor an array", () => {
    const numeric = new ToolMessage({ content: 42 as never, tool_call_id: "c", name: "t" });
    const error = thrownBy(() => assembleLangChainView([new HumanMessage("hi"), numeric]));
    expect(error).toMatchObject({ index: 1, field: "content" });
    expect(error.message).toContain("messages[1].content");
    const stored = { type: "tool", data: { content: { a: 1 }, tool_call_id: "c", name: "t" } };
    expect(thrownBy(() => assembleLangChainView([stored as never]))).toMatchObject({
      index: 0,
      field: "content",
    });
  });

  it("rejects invalid input through assembleLangChainView too", () => {
    expect(() => assembleLangChainView([null as never])).toThrow(InvalidThreadError);
  });
});
