import { describe, expect, it } from "vitest";
import { assembleModelView } from "./assemble";
import { createToolPolicy } from "./policy";
import type { DigestMap, Message } from "./types";

const page = `Document cd_9f2, page 1 (rev 1). ${"Section 8.2 governs assignment; consent not unreasonably withheld. ".repeat(4)}`;

describe("assembling an assembled view", () => {
  it("leaves a duplicate stub in the latest answer's exchange as it is, under any budget", () => {
    // The same page read twice, either side of the latest user message; the wall starts at
    // that message, and the exchange before it is kept as the latest assistant message's.
    const messages: Message[] = [
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_0", name: "read_document", args: { file_id: "cd_9f2", offset: 0 } }],
      },
      {
        role: "tool",
        toolCallId: "call_0",
        toolName: "read_document",
        content: [{ type: "text", text: page }],
      },
      { role: "user", content: [{ type: "text", text: "Summarize the lease." }] },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "read_document", args: { file_id: "cd_9f2", offset: 0 } }],
      },
      {
        role: "tool",
        toolCallId: "call_1",
        toolName: "read_document",
        content: [{ type: "text", text: page }],
      },
    ];
    const digests: DigestMap = new Map();
    const options = { recencyKeepExchanges: 0, historyBudgetChars: 1, policy: createToolPolicy() };
    const first = assembleModelView(messages, digests, options);
    expect(first.report.stubs.duplicate).toBe(1);
    const second = assembleModelView(first.messages, digests, options);
    expect(second.messages).toEqual(first.messages);
    second.messages.forEach((message, index) => {
      expect(message).toBe(first.messages[index]);
    });
    expect(second.report.compaction.fired).toBe(false);
  });
});
