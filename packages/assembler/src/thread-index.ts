import type { Message, ToolCall, ToolMessage } from "./types";

/** Where each tool call of a thread was made, for looking up a result's args. */
export interface ThreadIndex {
  /** The call a tool result answers (by non-empty tool call id), if any. */
  callFor(message: ToolMessage): ToolCall | undefined;
}

/** Indexes the tool calls of a thread by id (the first call of an id wins). */
export function indexThread(messages: readonly Message[]): ThreadIndex {
  const calls = new Map<string, ToolCall>();
  for (const message of messages) {
    if (message.role !== "assistant" || !message.toolCalls) continue;
    for (const call of message.toolCalls) {
      if (call.id !== "" && !calls.has(call.id)) calls.set(call.id, call);
    }
  }
  return {
    callFor: (message) => (message.toolCallId === "" ? undefined : calls.get(message.toolCallId)),
  };
}
