import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { writeViewJson, writeViewText } from "./render-view";

const messages: Message[] = [
  { role: "system", content: "You review leases.\nCite sections." },
  { role: "user", id: "u1", content: [{ type: "text", text: 'Say "hi"' }] },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c1", name: "read_document", args: { file_id: "f" } }],
  },
  { role: "tool", toolCallId: "c1", toolName: "read_document", content: "page\n\ttext", status: "error" },
];
const report = { rawChars: 10, nested: { list: [1, 2], empty: [] } };

function written(write: (sink: (text: string) => void) => void): { text: string; writes: number } {
  const parts: string[] = [];
  write((text) => parts.push(text));
  return { text: parts.join(""), writes: parts.length };
}

describe("writeViewJson", () => {
  it.each([
    ["messages", messages],
    ["no messages", []],
  ])(
    "writes exactly JSON.stringify({ messages, report }, null, 2), a message at a time (%s)",
    (_label, view) => {
      const { text, writes } = written((sink) => writeViewJson(view, report, sink));
      expect(text).toBe(JSON.stringify({ messages: view, report }, null, 2));
      expect(writes).toBeGreaterThanOrEqual(view.length);
    },
  );
});

describe("writeViewText", () => {
  it("writes one block per message, with the tool call and result headings", () => {
    const { text, writes } = written((sink) => writeViewText(messages, sink));
    expect(writes).toBe(messages.length);
    expect(text.split("\n\n── ")).toHaveLength(messages.length);
    expect(text).toContain('[2] assistant → read_document({"file_id":"f"})');
    expect(text).toContain("[3] tool read_document (c1) error\npage\n\ttext");
  });
});
