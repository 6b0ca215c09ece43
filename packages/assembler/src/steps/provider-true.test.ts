import { describe, expect, it } from "vitest";
import { viewKey } from "../contract/view-keys";
import type { AssistantMessage, Message } from "../types";
import { continuesThinkingLoop, latestLoopAssistant, providerTrueView } from "./provider-true";

const THINKING = { type: "thinking", thinking: "", signature: "sig" };

function thinkingCall(id: string): AssistantMessage {
  return {
    role: "assistant",
    content: [THINKING, { type: "text", text: `calling ${id}` }],
    toolCalls: [{ id, name: "read_document", args: { file_id: id } }],
  };
}

function result(id: string, content = `page ${id}`): Message {
  return { role: "tool", toolCallId: id, toolName: "read_document", content };
}

/** user, three thinking calls with their results, an answer with thinking, the next user message. */
function thread(): Message[] {
  return [
    { role: "user", content: "Read them." },
    thinkingCall("a"),
    result("a"),
    thinkingCall("b"),
    result("b"),
    thinkingCall("c"),
    result("c"),
    { role: "assistant", content: [THINKING, { type: "text", text: "Done." }] },
    { role: "user", content: "Next." },
  ];
}

const keysOf = (messages: readonly Message[]) => messages.map((message) => viewKey(message));

describe("providerTrueView", () => {
  it("leaves thinking alone when the view only appends to what the previous call sent", () => {
    const messages = thread();
    const sent = keysOf(messages.slice(0, 5));
    const view = providerTrueView(messages, messages, sent);
    view.messages.forEach((message, index) => {
      expect(message).toBe(messages[index]);
    });
    expect(view.thinking).toEqual({
      removedBlocks: 0,
      newlyRemovedBlocks: 0,
      changedAt: undefined,
      latestInvalidated: false,
    });
    expect(view.sent).toEqual(keysOf(messages));
  });

  it("leaves out every thinking block after the first change, the message's other blocks kept", () => {
    const messages = thread();
    const sent = keysOf(messages);
    const changed = [...messages];
    changed[4] = result("b", "[condensed]");
    const view = providerTrueView(changed, messages, sent);
    expect(view.thinking).toEqual({
      removedBlocks: 2,
      newlyRemovedBlocks: 2,
      changedAt: 4,
      latestInvalidated: false,
    });
    expect(view.messages[1]).toBe(messages[1]);
    expect(view.messages[3]).toBe(messages[3]);
    expect(view.messages[5]).toEqual({
      ...thinkingCall("c"),
      content: [{ type: "text", text: "calling c" }],
    });
    expect(view.messages[7]).toEqual({ role: "assistant", content: [{ type: "text", text: "Done." }] });
  });

  it("keeps out what an earlier call left out, and keeps the thinking produced since", () => {
    const messages = thread();
    const changed = [...messages];
    changed[4] = result("b", "[condensed]");
    const first = providerTrueView(changed, messages, keysOf(messages));
    const grown = [...changed, thinkingCall("d"), result("d")];
    const next = providerTrueView(
      grown,
      [...messages, grown[9] as Message, grown[10] as Message],
      first.sent,
    );
    expect(next.thinking).toEqual({
      removedBlocks: 2,
      newlyRemovedBlocks: 0,
      changedAt: undefined,
      latestInvalidated: false,
    });
    expect(next.messages[5]).toEqual(first.messages[5]);
    expect(next.messages[9]).toBe(grown[9]);
  });

  it("sends the latest assistant message of a tool loop as it came, saying so when a change before it invalidates it", () => {
    const messages = thread().slice(0, 7);
    expect(latestLoopAssistant(messages)).toBe(5);
    expect(continuesThinkingLoop(messages)).toBe(true);
    const changed = [...messages];
    changed[2] = result("a", "[condensed]");
    const view = providerTrueView(changed, messages, keysOf(messages));
    expect(view.messages[5]).toBe(messages[5]);
    expect(view.messages[3]).not.toBe(messages[3]);
    expect(view.thinking).toMatchObject({ removedBlocks: 1, changedAt: 2, latestInvalidated: true });
  });

  it("records the latest assistant message it invalidated as sent without its thinking, so the next call leaves it out", () => {
    const messages = thread().slice(0, 7);
    const changed = [...messages];
    changed[2] = result("a", "[condensed]");
    const first = providerTrueView(changed, messages, keysOf(messages));
    expect(first.thinking.latestInvalidated).toBe(true);
    expect(first.messages[5]).toBe(messages[5]);
    const grown = [...changed, thinkingCall("d"), result("d")];
    const next = providerTrueView(grown, [...messages, grown[7] as Message, grown[8] as Message], first.sent);
    expect(next.thinking).toMatchObject({ changedAt: undefined, latestInvalidated: false });
    expect(next.messages[5]).toEqual({
      ...thinkingCall("c"),
      content: [{ type: "text", text: "calling c" }],
    });
    expect(next.messages[7]).toBe(grown[7]);
  });

  it("compares with the thread itself when no previous call is known", () => {
    const messages = thread();
    const changed = [...messages];
    changed[6] = result("c", "[condensed]");
    const view = providerTrueView(changed, messages, undefined);
    expect(view.thinking).toMatchObject({ removedBlocks: 1, changedAt: 6 });
    expect(view.messages[5]).toBe(messages[5]);
    expect(providerTrueView(messages, messages, undefined).thinking.changedAt).toBeUndefined();
  });

  it("treats a reasoning item beside the content as thinking", () => {
    const reasoning: AssistantMessage = { role: "assistant", content: "Done.", reasoning: { id: "rs_1" } };
    const messages: Message[] = [...thread().slice(0, 7), reasoning, { role: "user", content: "Next." }];
    const changed = [...messages];
    changed[2] = result("a", "[condensed]");
    const view = providerTrueView(changed, messages, keysOf(messages));
    expect(view.messages[7]).toEqual({ role: "assistant", content: "Done." });
    expect(view.thinking).toMatchObject({ removedBlocks: 3, latestInvalidated: false });
    expect(latestLoopAssistant(messages)).toBe(-1);
  });
});
