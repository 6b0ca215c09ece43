// Runtime caps: each new tool result passes capToolResult before the thread records it. The budget
// counts what the view sends (digests refund it); past it a long result arrives condensed to its
// headings and figures (the default), with the call that re-reads it.
import { capToolResult, type DigestMap, effectiveToolChars, type Message } from "@context-cleaner/assembler";

export function recordToolResult(
  thread: Message[],
  digests: DigestMap,
  call: { id: string; name: string },
  result: string,
): Message {
  const spent = effectiveToolChars(thread, digests);
  const { content } = capToolResult(result, { usedChars: spent.effectiveChars, rawChars: spent.rawChars });
  const message: Message = { role: "tool", toolCallId: call.id, toolName: call.name, content };
  thread.push(message);
  return message;
}
