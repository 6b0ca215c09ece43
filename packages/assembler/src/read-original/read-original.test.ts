import { describe, expect, it } from "vitest";
import { toolExchange, userMessage } from "#test/assembler/fixtures/thread-builder";
import { BUDGET_DEFAULTS } from "../budget";
import { InvalidOptionError } from "../errors";
import type { Message } from "../types";
import {
  READ_ORIGINAL_DEFAULTS,
  readOriginal,
  readOriginalHandle,
  readOriginalTool,
  renderReadOriginalResult,
  resolveReadOriginal,
} from "./read-original";

const PAGE = "Ground lease page two: base rent $1,250,000/yr; escalator 2.5% from year 6.";
const thread: Message[] = [
  userMessage("Read the lease"),
  ...toolExchange("call_1", "read_document", { file_id: "cd_9f2", offset: 0 }, PAGE),
  ...toolExchange("call_2", "search", { q: "x" }, [
    { type: "text", text: "hit one" },
    { type: "image", source: "…" },
    { type: "text", text: "hit two" },
  ]),
  ...toolExchange("call_3", "run", {}, "exit 1: disk full", "error"),
];

describe("resolveReadOriginal", () => {
  it("is off by default and for false; true names the tool read_original", () => {
    expect(resolveReadOriginal(undefined)).toBeUndefined();
    expect(resolveReadOriginal(false)).toBeUndefined();
    expect(resolveReadOriginal(true)).toBe("read_original");
    expect(resolveReadOriginal({})).toBe("read_original");
    expect(resolveReadOriginal({ toolName: "fetch_raw" })).toBe("fetch_raw");
  });

  it("rejects a tool name no provider accepts, and options of another type", () => {
    for (const option of [
      { toolName: "" },
      { toolName: "has space" },
      { toolName: "x".repeat(65) },
      "yes",
      1,
    ])
      expect(() => resolveReadOriginal(option as never)).toThrow(InvalidOptionError);
  });
});

describe("readOriginalTool", () => {
  it("requires tool_call_id and allows non-negative integer offset and limit", () => {
    const tool = readOriginalTool();
    expect(tool.name).toBe("read_original");
    expect(tool.inputSchema.required).toEqual(["tool_call_id"]);
    expect(tool.inputSchema.properties.offset).toMatchObject({ type: "integer", minimum: 0 });
    expect(tool.inputSchema.properties.limit).toMatchObject({ type: "integer", minimum: 0 });
    expect(tool.description).toContain(readOriginalHandle("…"));
    expect(readOriginalTool("fetch_raw").name).toBe("fetch_raw");
  });

  it("renders the handle with the id quoted as JSON", () => {
    expect(readOriginalHandle("call_1")).toBe('read_original(tool_call_id="call_1")');
    expect(readOriginalHandle('a"b', "raw")).toBe('raw(tool_call_id="a\\"b")');
  });
});

describe("readOriginal", () => {
  it("returns the raw result of a call id of the thread, whole, with its length", () => {
    const result = readOriginal(thread, { tool_call_id: "call_1" });
    expect(result).toEqual({
      ok: true,
      tool_call_id: "call_1",
      tool_name: "read_document",
      error_result: false,
      offset: 0,
      returned_chars: PAGE.length,
      total_chars: PAGE.length,
      content: PAGE,
    });
  });

  it("returns a window and the next offset", () => {
    const result = readOriginal(thread, { tool_call_id: "call_1", offset: 5, limit: 10 });
    expect(result).toMatchObject({ ok: true, offset: 5, returned_chars: 10, next_offset: 15 });
    expect(result.ok && result.content).toBe(PAGE.slice(5, 15));
    const last = readOriginal(thread, { tool_call_id: "call_1", offset: PAGE.length - 3 });
    expect(last).toMatchObject({ ok: true, content: PAGE.slice(-3) });
    expect(last).not.toHaveProperty("next_offset");
  });

  it("reads a long result in windows of the default limit that join to the whole", () => {
    const long = "x".repeat(READ_ORIGINAL_DEFAULTS.limit * 2 + 7);
    const messages = [...toolExchange("big", "read_file", { path: "a" }, long)];
    let text = "";
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const result = readOriginal(messages, { tool_call_id: "big", offset });
      if (!result.ok) throw new Error(result.error);
      text += result.content;
      offset = result.next_offset;
    }
    expect(text).toBe(long);
  });

  it("caps a window at the per-result cap, whatever limit the call asks for", () => {
    expect(READ_ORIGINAL_DEFAULTS.limit).toBe(BUDGET_DEFAULTS.perResultCapChars);
    expect(readOriginalTool().inputSchema.properties.limit).toMatchObject({ maximum: 60_000 });
    const long = "y".repeat(READ_ORIGINAL_DEFAULTS.limit + 10_000);
    const messages = [...toolExchange("big", "read_file", { path: "a" }, long)];
    for (const limit of [READ_ORIGINAL_DEFAULTS.limit + 1, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      const result = readOriginal(messages, { tool_call_id: "big", limit });
      expect(result).toMatchObject({
        ok: true,
        returned_chars: READ_ORIGINAL_DEFAULTS.limit,
        total_chars: long.length,
        next_offset: READ_ORIGINAL_DEFAULTS.limit,
      });
    }
    const rest = readOriginal(messages, { tool_call_id: "big", offset: 60_000, limit: 1_000_000 });
    expect(rest).toMatchObject({ ok: true, returned_chars: 10_000 });
    expect(rest).not.toHaveProperty("next_offset");
  });

  it("refuses an id two results carry: which one is meant cannot be told", () => {
    const messages: Message[] = [
      ...toolExchange("dup", "read_file", { path: "a" }, "first file"),
      ...toolExchange("dup", "read_file", { path: "b" }, "second file"),
      ...toolExchange("own", "read_file", { path: "c" }, "third file"),
    ];
    expect(readOriginal(messages, { tool_call_id: "dup" })).toEqual({
      ok: false,
      error:
        '2 results of this conversation carry tool call id "dup", so which one is meant cannot be told (results that share an id are never condensed, so none of them stands condensed in the conversation)',
    });
    expect(readOriginal(messages, { tool_call_id: "own" })).toMatchObject({
      ok: true,
      content: "third file",
    });
  });

  it("never splits a surrogate pair at a window's end", () => {
    const messages = [...toolExchange("emoji", "read_file", {}, "a😀b")];
    const result = readOriginal(messages, { tool_call_id: "emoji", limit: 2 });
    expect(result).toMatchObject({ ok: true, content: "a", next_offset: 1 });
  });

  it("joins text blocks and marks a recorded error", () => {
    expect(readOriginal(thread, { tool_call_id: "call_2" })).toMatchObject({ content: "hit one\nhit two" });
    expect(readOriginal(thread, { tool_call_id: "call_3" })).toMatchObject({ ok: true, error_result: true });
  });

  it("answers an unknown, empty or missing id, a bad window or bad arguments with an error, never a throw", () => {
    const cases: unknown[] = [
      { tool_call_id: "nope" },
      { tool_call_id: "" },
      {},
      { tool_call_id: 7 },
      { tool_call_id: "call_1", offset: -1 },
      { tool_call_id: "call_1", offset: 1.5 },
      { tool_call_id: "call_1", limit: "10" },
      { tool_call_id: "call_1", offset: PAGE.length + 1 },
      null,
      "call_1",
      ["call_1"],
    ];
    for (const args of cases) {
      const result = readOriginal(thread, args);
      expect(result.ok, JSON.stringify(args)).toBe(false);
      expect(renderReadOriginalResult(result)).toMatch(/^\[read_original error: .+\]$/);
    }
    expect(readOriginal(thread, { tool_call_id: "nope" })).toEqual({
      ok: false,
      error: 'no result of tool call "nope" in this conversation',
    });
  });

  it("never answers with a result of a message that is not a tool result", () => {
    expect(readOriginal([userMessage("call_1")], { tool_call_id: "call_1" }).ok).toBe(false);
  });
});

describe("renderReadOriginalResult", () => {
  it("is one header line, then the raw window exactly", () => {
    const text = renderReadOriginalResult(readOriginal(thread, { tool_call_id: "call_1", limit: 20 }));
    const [header, ...rest] = text.split("\n");
    expect(header).toBe(
      `[Original result of tool call call_1 (read_document), as recorded at the time of the call: characters 0–20 of ${PAGE.length}; more from offset=20]`,
    );
    expect(rest.join("\n")).toBe(PAGE.slice(0, 20));
  });
});
