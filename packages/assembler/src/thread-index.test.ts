import { describe, expect, it } from "vitest";
import { assistantCalling, toolCall, toolResult, userMessage } from "./test-support/thread-builder";
import { indexThread } from "./thread-index";

describe("indexThread", () => {
  const first = toolCall("c1", "read_document", { file_id: "f", offset: 0 });
  const repeated = toolCall("c1", "read_document", { file_id: "f", offset: 9 });
  const index = indexThread([
    userMessage("go"),
    assistantCalling(first, toolCall("c2", "search", { q: "x" })),
    assistantCalling(repeated, toolCall("", "search", {})),
  ]);

  it("finds the call a result answers", () => {
    expect(index.callFor(toolResult("c1", "read_document", ""))).toBe(first);
    expect(index.callFor(toolResult("c2", "search", ""))?.args).toEqual({ q: "x" });
  });

  it("returns undefined for unknown and empty tool call ids", () => {
    expect(index.callFor(toolResult("nope", "search", ""))).toBeUndefined();
    expect(index.callFor(toolResult("", "search", ""))).toBeUndefined();
  });
});
