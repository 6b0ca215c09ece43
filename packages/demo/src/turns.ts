import type { Message } from "@context-cleaner/assembler";

/** One user turn of a thread: `[start, end)` indices into its messages. */
export interface Turn {
  start: number;
  end: number;
}

/**
 * Splits a thread into user turns. A turn opens with a user message and runs up to the next
 * one: the agent's tool calls, their results and its closing reply. Whatever precedes the
 * first user message (the system prompt) belongs to the first turn. A thread with no user
 * message is one turn.
 */
export function splitTurns(messages: readonly Message[]): Turn[] {
  const starts: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "user") starts.push(index);
  });
  if (starts.length === 0) return messages.length === 0 ? [] : [{ start: 0, end: messages.length }];
  starts[0] = 0;
  return starts.map((start, index) => ({ start, end: starts[index + 1] ?? messages.length }));
}
