import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { InvalidThreadError } from "./errors";
import { validateThread } from "./validate";

function threadError(messages: unknown): InvalidThreadError {
  try {
    validateThread(messages);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidThreadError);
    return error as InvalidThreadError;
  }
  throw new Error("expected an InvalidThreadError");
}

const head = [
  systemMessage(),
  userMessage("Summarise the lease."),
  assistantCalling(toolCall("c1", "read_document", { file_id: "f1" })),
];

describe("validateThread rejects", () => {
  it.each([null, undefined, "messages", { messages: [] }])("a non-array (%j)", (value) => {
    const error = threadError(value);
    expect(error.field).toBe("messages");
    expect(error.index).toBeUndefined();
  });

  it("a message that is not an object, naming its index", () => {
    const error = threadError([userMessage("hi"), "hello"]);
    expect(error.index).toBe(1);
    expect(error.message).toContain("messages[1]");
  });

  it("a message without a role", () => {
    const error = threadError([userMessage("hi"), { content: "no role" }]);
    expect(error).toMatchObject({ index: 1, field: "role" });
    expect(error.message).toMatch(/^messages\[1\]\.role /);
  });

  it("an unknown role", () => {
    const error = threadError([{ role: "developer", content: "x" }]);
    expect(error).toMatchObject({ index: 0, field: "role" });
    expect(error.message).toContain('"developer"');
  });

  it.each([
    [{ text: "an object" }, "object"],
    [42, "number"],
    [null, "null"],
    [undefined, "undefined"],
  ])("a tool message whose content is %j", (content, described) => {
    const error = threadError([
      ...head,
      { role: "tool", toolCallId: "c1", toolName: "read_document", content },
    ]);
    expect(error).toMatchObject({ index: 3, field: "content" });
    expect(error.message).toMatch(/^messages\[3\]\.content must be a string or an array of content blocks/);
    expect(error.message).toContain(described);
  });

  it("a content block that is not an object", () => {
    const error = threadError([...head, toolResult("c1", "read_document", ["plain" as never])]);
    expect(error).toMatchObject({ index: 3, field: "content[0]" });
  });

  it("a tool message without toolCallId or toolName, or with a bad status", () => {
    expect(threadError([{ role: "tool", toolName: "x", content: "" }])).toMatchObject({
      index: 0,
      field: "toolCallId",
    });
    expect(threadError([{ role: "tool", toolCallId: "c", content: "" }])).toMatchObject({
      index: 0,
      field: "toolName",
    });
    expect(threadError([{ ...toolResult("c", "x", ""), status: "failed" }])).toMatchObject({
      index: 0,
      field: "status",
    });
  });

  it("malformed tool calls, naming the call and its field", () => {
    expect(threadError([{ role: "assistant", content: "", toolCalls: "read" }])).toMatchObject({
      field: "toolCalls",
    });
    expect(
      threadError([{ role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args: [] }] }]),
    ).toMatchObject({ index: 0, field: "toolCalls[0].args" });
    expect(
      threadError([{ role: "assistant", content: "", toolCalls: [{ id: 7, name: "x", args: {} }] }]),
    ).toMatchObject({ field: "toolCalls[0].id" });
    expect(
      threadError([
        { role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args: {}, issuedBy: 7 }] },
      ]),
    ).toMatchObject({ index: 0, field: "toolCalls[0].issuedBy" });
    expect(() =>
      validateThread([
        { role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args: {}, issuedBy: "srv_1" }] },
      ]),
    ).not.toThrow();
  });
});

describe("validateThread accepts odd but valid threads", () => {
  it("unknown tools, block content, empty content and empty tool call ids", () => {
    expect(() =>
      validateThread([
        systemMessage([{ type: "text", text: "policy" }]),
        userMessage(""),
        assistantCalling(toolCall("", "mystery_tool", {}), toolCall("", "mystery_tool", { a: 1 })),
        toolResult("", "mystery_tool", [], "error"),
        toolResult("", "mystery_tool", [{ type: "image", source: { data: "..." } }]),
        { role: "assistant", content: "done" },
      ]),
    ).not.toThrow();
  });

  it("an empty thread", () => {
    expect(() => validateThread([])).not.toThrow();
  });
});

describe("validateThread: args and content blocks are JSON data", () => {
  it.each([
    ["a BigInt", { offset: 10n }, "toolCalls[0].args.offset", /must be JSON data, got a bigint/],
    ["a function", { query: () => "x" }, "toolCalls[0].args.query", /must be JSON data, got a function/],
    ["a symbol", { page: [1, Symbol("p")] }, "toolCalls[0].args.page[1]", /must be JSON data, got a symbol/],
  ])("refuses %s in tool call args, naming the message and the path", (_label, args, field, problem) => {
    const error = threadError([
      userMessage("hi"),
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args }] },
    ]);
    expect(error).toMatchObject({ index: 1, field });
    expect(error.message).toMatch(new RegExp(`^messages\\[1\\]\\.${field.replace(/[.[\]]/g, "\\$&")} `));
    expect(error.message).toMatch(problem);
  });

  it("refuses a cycle in tool call args, naming where it loops", () => {
    const args: Record<string, unknown> = { file_id: "f1", nested: {} };
    (args.nested as Record<string, unknown>).back = args;
    const error = threadError([
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args }] },
    ]);
    expect(error).toMatchObject({ index: 0, field: "toolCalls[0].args.nested.back" });
    expect(error.message).toMatch(/refers back to an enclosing value \(a cycle\)/);
  });

  it("refuses a BigInt in a content block and nesting deeper than JSON tools handle", () => {
    const block = { type: "text", text: "x", tokens: 5n };
    expect(threadError([toolResult("c1", "read_document", [block as never])])).toMatchObject({
      index: 0,
      field: "content[0].tokens",
    });
    let deep: unknown = 1;
    for (let level = 0; level < 2_000; level++) deep = [deep];
    const error = threadError([
      { role: "assistant", content: "", toolCalls: [{ id: "c", name: "x", args: { deep } }] },
    ]);
    expect(error.message).toMatch(/nests deeper than 1000 levels/);
  });

  it("accepts shared (not cyclic) objects, undefined fields and non-finite numbers", () => {
    const shared = { a: 1 };
    expect(() =>
      validateThread([
        {
          role: "assistant",
          content: "",
          toolCalls: [
            { id: "c", name: "x", args: { one: shared, two: shared, none: undefined, n: Number.NaN } },
          ],
        },
      ]),
    ).not.toThrow();
  });
});

describe("validateThread: the JSON-data check of args and blocks", () => {
  /** The check as first written: every value visited with its path, iteratively. */
  function referenceProblem(value: unknown): string | undefined {
    const pending: { value: unknown; ancestors: readonly object[] }[] = [{ value, ancestors: [] }];
    while (pending.length > 0) {
      const { value: item, ancestors } = pending.pop() as (typeof pending)[number];
      if (item === null || ["string", "number", "boolean", "undefined"].includes(typeof item)) continue;
      if (typeof item !== "object") return "type";
      if (ancestors.includes(item)) return "cycle";
      if (ancestors.length >= 1_000) return "depth";
      const inside = [...ancestors, item];
      if (Array.isArray(item)) {
        item.forEach((entry) => {
          pending.push({ value: entry, ancestors: inside });
        });
      } else for (const entry of Object.values(item)) pending.push({ value: entry, ancestors: inside });
    }
    return undefined;
  }

  it("accepts and rejects exactly the values the path-building check does", () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
    });
    const values = fc.oneof(anything, fc.func(fc.integer()), fc.constant(Symbol("s")));
    fc.assert(
      fc.property(values, (value) => {
        const thread = [assistantCalling(toolCall("c1", "run", { value }))];
        const problem = referenceProblem({ value });
        if (problem === undefined) expect(() => validateThread(thread)).not.toThrow();
        else expect(() => validateThread(thread)).toThrow(InvalidThreadError);
      }),
      { numRuns: 2_000 },
    );
    const shared = { leaf: 1 };
    // The same object twice, side by side, is no cycle.
    expect(() =>
      validateThread([assistantCalling(toolCall("c1", "run", { a: shared, b: [shared] }))]),
    ).not.toThrow();
  });
});

describe("validateThread: messages name what they got", () => {
  it.each([
    [undefined, "got undefined"],
    [42, "got a number"],
    [{}, "got an object"],
    [[], "got an array"],
    [true, "got a boolean"],
  ])("%j", (toolCallId, wording) => {
    const error = threadError([{ role: "tool", toolName: "x", content: "", toolCallId }]);
    expect(error.message).toMatch(new RegExp(`${wording}$`));
  });
});
