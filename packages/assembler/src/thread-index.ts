import type { Message, ToolCall, ToolMessage } from "./types";

/** Where each tool call of a thread was made, for looking up a result's args. */
export interface ThreadIndex {
  /** The call a tool result answers: the nearest earlier call with its (non-empty) id. */
  callFor(message: ToolMessage): ToolCall | undefined;
}

/**
 * Pairs each tool result with the nearest earlier call of the same id, so a thread whose
 * model reused an id still gets each result's own args (and a true re-read call).
 */
export function indexThread(messages: readonly Message[]): ThreadIndex {
  const latestById = new Map<string, ToolCall>();
  const callByResult = new Map<ToolMessage, ToolCall>();
  for (const message of messages) {
    if (message.role === "assistant" && message.toolCalls) {
      for (const call of message.toolCalls) if (call.id !== "") latestById.set(call.id, call);
    } else if (message.role === "tool" && message.toolCallId !== "") {
      const call = latestById.get(message.toolCallId);
      if (call) callByResult.set(message, call);
    }
  }
  return {
    callFor: (message) =>
      message.toolCallId === ""
        ? undefined
        : (callByResult.get(message) ?? latestById.get(message.toolCallId)),
  };
}
