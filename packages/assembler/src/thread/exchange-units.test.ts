import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import type { Message } from "../types";
import { indexUnits, UnitIndex } from "./exchange-units";

/** The units of `messages` as their member lists, checked against unitOf, isUnit and lastMember. */
function unitsOf(messages: readonly Message[]): number[][] {
  const units = indexUnits(messages);
  expect(units.length).toBe(messages.length);
  const roots = messages.map((_, index) => index).filter((index) => units.isUnit(index));
  const lists = roots.map((root) => [...units.members(root)]);
  for (const [at, root] of roots.entries()) {
    const members = lists[at] as number[];
    expect(members[0]).toBe(root);
    expect(units.lastMember(root)).toBe(members.at(-1));
    for (const member of members) expect(units.unitOf(member)).toBe(root);
  }
  expect(lists.flat().sort((a, b) => a - b)).toEqual(messages.map((_, index) => index));
  return lists;
}

describe("UnitIndex", () => {
  it("keeps interleaved exchanges apart: A(b1,b2) b1 A'(a1) a1 b2 is {A, b1, b2} and {A', a1}", () => {
    const messages = [
      assistantCalling(toolCall("b1", "read"), toolCall("b2", "read")),
      toolResult("b1", "read", "one"),
      assistantCalling(toolCall("a1", "read")),
      toolResult("a1", "read", "two"),
      toolResult("b2", "read", "three"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 1, 4],
      [2, 3],
    ]);
  });

  it("puts every message that is no call or result alone", () => {
    const messages = [userMessage("a"), userMessage("b"), assistantCalling(toolCall("c", "read"))];
    expect(unitsOf(messages)).toEqual([[0], [1], [2]]);
  });

  it("joins a result to the nearest earlier call with its id", () => {
    const messages = [
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "one"),
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "two"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it("joins a result with no earlier call to the first later call with its id", () => {
    const messages = [
      userMessage("start"),
      toolResult("x", "read", "early"),
      assistantText("thinking"),
      toolResult("x", "read", "early too"),
      assistantCalling(toolCall("x", "read")),
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "late"),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 3, 4], [2], [5, 6]]);
  });

  it("leaves a result no call answers alone", () => {
    const messages = [toolResult("x", "read", "orphan"), assistantCalling(toolCall("y", "read"))];
    expect(unitsOf(messages)).toEqual([[0], [1]]);
  });

  it("merges chains of calls and results into one unit led by its first member", () => {
    const messages = [
      assistantCalling(toolCall("a", "read"), toolCall("b", "read")),
      assistantCalling(toolCall("c", "read"), toolCall("d", "read")),
      toolResult("c", "read", "c"),
      assistantCalling(toolCall("e", "read")),
      toolResult("e", "read", "e"),
      toolResult("a", "read", "a"),
      toolResult("b", "read", "b"),
      toolResult("d", "read", "d"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 5, 6],
      [1, 2, 7],
      [3, 4],
    ]);
  });

  it("joins early results to their own later calls, and later results to the nearest call", () => {
    const messages = [
      userMessage("start"),
      toolResult("p", "read", "p"),
      toolResult("q", "read", "q"),
      assistantCalling(toolCall("q", "read")),
      assistantCalling(toolCall("p", "read")),
      assistantCalling(toolCall("r", "read")),
      toolResult("q", "read", "q again"),
      toolResult("p", "read", "p again"),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 4, 7], [2, 3, 6], [5]]);
  });

  it("joins one assistant's calls into one unit, in order, across results that came before it", () => {
    const messages = [
      toolResult("m", "read", "m"),
      userMessage("between"),
      toolResult("n", "read", "n"),
      assistantCalling(toolCall("m", "read"), toolCall("n", "read")),
    ];
    expect(unitsOf(messages)).toEqual([[0, 2, 3], [1]]);
  });

  it("finds every member's root after a long chain of merges", () => {
    const messages: Message[] = [];
    for (let step = 0; step < 6; step++) messages.push(toolResult(`c${step}`, "read", `${step}`));
    messages.push(
      assistantCalling(...Array.from({ length: 6 }, (_, step) => toolCall(`c${5 - step}`, "read"))),
    );
    expect(unitsOf(messages)).toEqual([[0, 1, 2, 3, 4, 5, 6]]);
  });

  it("grows message by message with the same units as indexing the whole thread", () => {
    const messages = [
      toolResult("x", "read", "early"),
      assistantCalling(toolCall("y", "read")),
      assistantCalling(toolCall("x", "read")),
      toolResult("y", "read", "y"),
    ];
    const units = new UnitIndex();
    for (const message of messages) units.append(message);
    expect(units.unitOf(3)).toBe(1);
    expect(units.members(0)).toEqual([0, 2]);
    expect(units.members(1)).toEqual([1, 3]);
    expect(units.isUnit(2)).toBe(false);
    expect(units.lastMember(1)).toBe(3);
  });

  it("joins a server tool call and its result, in one message or over a paused turn's two", () => {
    const messages: Message[] = [
      userMessage("Is assignment allowed?"),
      assistantText([{ type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "x" } }]),
      {
        role: "assistant",
        content: [{ type: "web_search_tool_result", tool_use_id: "srv_1", content: [] }],
        toolCalls: [toolCall("c1", "read")],
      },
      toolResult("c1", "read", "page"),
      assistantText([
        { type: "server_tool_use", id: "srv_2", name: "code_execution", input: {} },
        { type: "code_execution_tool_result", tool_use_id: "srv_2", content: {} },
      ]),
      // A LangChain AIMessage's standard blocks pair the same way.
      assistantText([{ type: "server_tool_call", id: "srv_3", name: "web_search", args: {} }]),
      assistantText([
        { type: "server_tool_call_result", toolCallId: "srv_3", status: "success", output: {} },
      ]),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 2, 3], [4], [5, 6]]);
  });

  it("joins a server result that comes after the tool results of a call it made", () => {
    const messages: Message[] = [
      {
        role: "assistant",
        content: [{ type: "server_tool_use", id: "srv_1", name: "code_execution", input: {} }],
        toolCalls: [toolCall("c1", "read")],
      },
      toolResult("c1", "read", "page"),
      assistantText([{ type: "code_execution_tool_result", tool_use_id: "srv_1", content: {} }]),
      userMessage("Thanks."),
    ];
    expect(unitsOf(messages)).toEqual([[0, 1, 2], [3]]);
  });

  it("joins a code-execution run: the client calls it issues, their results and every message up to its result", () => {
    const issued = (id: string) => ({ ...toolCall(id, "read"), issuedBy: "srv_1" });
    const messages: Message[] = [
      userMessage("Sum the rents."),
      {
        role: "assistant",
        content: [{ type: "server_tool_use", id: "srv_1", name: "code_execution", input: {} }],
        toolCalls: [issued("c1")],
      },
      toolResult("c1", "read", "page a"),
      // A later call of the same run, in a message of its own.
      { role: "assistant", content: "", toolCalls: [issued("c2")] },
      toolResult("c2", "read", "page b"),
      assistantText([
        { type: "code_execution_tool_result", tool_use_id: "srv_1", content: {} },
        { type: "text", text: "3" },
      ]),
      userMessage("Thanks."),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 2, 3, 4, 5], [6]]);
    // A run still under way, its result not in the thread yet: its calls join it all the same.
    expect(unitsOf(messages.slice(0, 5))).toEqual([[0], [1, 2, 3, 4]]);
    // Calls whose server call the thread lacks stay together.
    expect(unitsOf([userMessage("Go on."), ...messages.slice(3, 5), assistantCalling(issued("c3"))])).toEqual(
      [[0], [1, 2, 3]],
    );
  });

  it("keeps every message between a server call and its result in their unit", () => {
    const messages: Message[] = [
      userMessage("Is assignment allowed?"),
      assistantText([{ type: "server_tool_use", id: "srv_1", name: "web_search", input: { query: "x" } }]),
      { role: "system", content: "Still searching." },
      assistantText("Searching the registry too."),
      assistantText([{ type: "web_search_tool_result", tool_use_id: "srv_1", content: [] }]),
      userMessage("Thanks."),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 2, 3, 4], [5]]);
  });

  it("joins a tool approval's request, its call and its response", () => {
    const messages: Message[] = [
      userMessage("Delete the draft."),
      {
        role: "assistant",
        content: [{ type: "tool-approval-request", approvalId: "ap_1", toolCallId: "c1" }],
        toolCalls: [toolCall("c1", "delete")],
      },
      { role: "system", content: [{ type: "tool-approval-response", approvalId: "ap_1", approved: true }] },
      toolResult("c1", "delete", "deleted"),
      assistantText("Deleted."),
      // The request in a later message than its call still joins it.
      assistantCalling(toolCall("c2", "delete")),
      assistantText([{ type: "tool-approval-request", approvalId: "ap_2", toolCallId: "c2" }]),
      { role: "system", content: [{ type: "tool-approval-response", approvalId: "ap_2", approved: false }] },
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 2, 3], [4], [5, 6, 7]]);
  });

  it("joins an approval response whose request the thread lacks to the latest assistant message", () => {
    const messages: Message[] = [
      userMessage("Search the registry."),
      assistantText([
        { type: "tool-call", toolCallId: "mcp_1", toolName: "registry", input: {}, providerExecuted: true },
      ]),
      { role: "system", content: [{ type: "tool-approval-response", approvalId: "mcpr_1", approved: true }] },
      userMessage("Go on."),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 2], [3]]);
  });

  it("reads no pairing from a block without a string type", () => {
    const odd = [{ text: "no type" }, { type: 7, tool_use_id: "srv_1" }] as unknown as Message["content"];
    const messages: Message[] = [
      assistantText(odd),
      assistantText([{ type: "web_search_tool_result", tool_use_id: "srv_1", content: [] }]),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1]]);
  });

  it("joins an MCP tool call and its result, and an AI SDK provider-executed call and result, with what lies between", () => {
    const messages: Message[] = [
      assistantText([{ type: "mcp_tool_use", id: "mcp_1", name: "registry", server_name: "r", input: {} }]),
      userMessage("Between."),
      assistantText([{ type: "mcp_tool_result", tool_use_id: "mcp_1", content: [] }]),
      assistantText([
        { type: "tool-call", toolCallId: "px_1", toolName: "search", input: {}, providerExecuted: true },
      ]),
      userMessage("Between again."),
      assistantText([{ type: "tool-result", toolCallId: "px_1", toolName: "search", output: {} }]),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 1, 2],
      [3, 4, 5],
    ]);
  });

  it("joins an approval request to a provider-executed call it is for", () => {
    const messages: Message[] = [
      userMessage("Search the registry."),
      assistantText([
        { type: "tool-call", toolCallId: "px_1", toolName: "registry", input: {}, providerExecuted: true },
      ]),
      userMessage("Between."),
      assistantText([{ type: "tool-approval-request", approvalId: "ap_1", toolCallId: "px_1" }]),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 3], [2]]);
  });

  it("joins an approval response whose request the thread lacks to an assistant message at the start, and to none before any", () => {
    const response = (approvalId: string): Message => ({
      role: "system",
      content: [{ type: "tool-approval-response", approvalId, approved: true }],
    });
    expect(unitsOf([assistantText("Searching."), response("ap_1")])).toEqual([[0, 1]]);
    expect(unitsOf([userMessage("Search."), response("ap_1"), assistantText("Done.")])).toEqual([
      [0],
      [1],
      [2],
    ]);
  });

  it("pairs nothing by a block that lacks the id its type pairs by", () => {
    const messages: Message[] = [
      assistantText([{ type: "server_tool_use", name: "web_search", input: {} }]),
      assistantText([{ type: "server_tool_use", name: "web_search", input: {} }]),
      assistantText([{ type: "tool-call", toolName: "search", input: {} }]),
      assistantText([{ type: "tool-result", toolName: "search", output: {} }]),
      assistantText([{ type: "web_search_tool_result", content: [] }]),
      assistantText([{ type: "web_search_tool_result", content: [] }]),
      assistantText([{ type: "tool-approval-request", toolCallId: "nothing" }]),
      assistantText([{ type: "tool-approval-request", toolCallId: "nothing" }]),
      userMessage("Go on."),
      { role: "system", content: [{ type: "tool-approval-response", approved: true }] },
    ];
    expect(unitsOf(messages)).toEqual(messages.map((_, index) => [index]));
  });

  it("names the latest assistant message before the latest user message, or the latest with no user message", () => {
    const units = new UnitIndex();
    expect(units.turnOpeningAssistant).toBe(-1);
    units.append(assistantText("a"));
    units.append(toolResult("x", "read", "b"));
    expect(units.turnOpeningAssistant).toBe(0);
    units.append(userMessage("c"));
    units.append(assistantText("d"));
    units.append(userMessage("e"));
    expect(units.turnOpeningAssistant).toBe(3);
    // Later assistant messages of the turn are in the wall: the one the turn follows on stays named.
    units.append(assistantCalling(toolCall("y", "read")));
    expect(units.turnOpeningAssistant).toBe(3);
  });

  it("gives an empty thread no units", () => {
    expect(indexUnits([]).length).toBe(0);
  });
});
