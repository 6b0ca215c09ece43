import { describe, expect, it } from "vitest";
import { assistantCalling, toolCall, toolResult, userMessage } from "#test/assembler/fixtures/thread-builder";
import { indexThread } from "./thread-index";

describe("indexThread", () => {
  const first = toolCall("c1", "read_document", { file_id: "f", offset: 0 });
  const search = toolCall("c2", "search", { q: "x" });
  const firstResult = toolResult("c1", "read_document", "page 1");
  const searchResult = toolResult("c2", "search", "");
  const index = indexThread([userMessage("go"), assistantCalling(first, search), firstResult, searchResult]);

  it("finds the call a result answers", () => {
    expect(index.callFor(firstResult)).toBe(first);
    expect(index.callFor(searchResult)?.args).toEqual({ q: "x" });
  });

  it("returns undefined for unknown and empty tool call ids", () => {
    expect(index.callFor(toolResult("nope", "search", ""))).toBeUndefined();
    expect(index.callFor(toolResult("", "search", ""))).toBeUndefined();
  });

  it("pairs each result with the nearest earlier call when a model reuses an id", () => {
    const readA = toolCall("call_0", "read_document", { file_id: "A", offset: 1000 });
    const readB = toolCall("call_0", "read_document", { file_id: "B", offset: 1000 });
    const resultA = toolResult("call_0", "read_document", "page of A");
    const resultB = toolResult("call_0", "read_document", "page of B");
    const reused = indexThread([
      userMessage("go"),
      assistantCalling(readA),
      resultA,
      assistantCalling(readB),
      resultB,
    ]);
    expect(reused.callFor(resultA)).toBe(readA);
    expect(reused.callFor(resultB)).toBe(readB);
  });

  it("pairs each position of one message object with its own nearest earlier call", () => {
    const readA = toolCall("call_0", "read_document", { file_id: "A", offset: 0 });
    const readB = toolCall("call_0", "read_document", { file_id: "B", offset: 0 });
    const shared = toolResult("call_0", "read_document", "the same object twice");
    const index = indexThread([
      userMessage("go"),
      assistantCalling(readA),
      shared,
      assistantCalling(readB),
      shared,
    ]);
    expect(index.callAt(2)).toBe(readA);
    expect(index.callAt(4)).toBe(readB);
    // By object, a result is found at its last position.
    expect(index.callFor(shared)).toBe(readB);
  });

  it("pairs a result no earlier call answers with the latest call of its id", () => {
    const early = toolResult("c1", "read_document", "before its call");
    const first = toolCall("c1", "read_document", { file_id: "A" });
    const second = toolCall("c1", "read_document", { file_id: "B" });
    const index = indexThread([early, assistantCalling(first), assistantCalling(second)]);
    expect(index.callAt(0)).toBe(second);
  });
});
