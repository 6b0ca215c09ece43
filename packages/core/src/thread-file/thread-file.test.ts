import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Message } from "@context-cleaner/assembler";
import {
  AIMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  ToolMessage,
} from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectLeaseThread, runLeaseTurn } from "#test/core/fixtures/lease-agent";
import { ThreadFileError } from "../errors";
import { jsonSyntaxErrorOffset, textPosition } from "./json-syntax";
import { parseThreadFile, readThreadFile, serializeThread, writeThreadFile } from "./thread-file";

let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cc-thread-file-"));
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function fileWith(name: string, text: string): Promise<string> {
  const path = join(directory, name);
  await writeFile(path, text, "utf8");
  return path;
}

async function readError(path: string): Promise<ThreadFileError> {
  const error = await readThreadFile(path).catch((caught: unknown) => caught);
  expect(error).toBeInstanceOf(ThreadFileError);
  return error as ThreadFileError;
}

const NEUTRAL: Message[] = [
  { role: "system", content: "You review leases." },
  { role: "user", id: "u1", content: "Read cd_9f2." },
  {
    role: "assistant",
    content: [{ type: "text", text: "Reading." }],
    toolCalls: [{ id: "call_1", name: "read_document", args: { file_id: "cd_9f2", offset: 0 } }],
  },
  {
    role: "tool",
    content: "Error: timeout",
    toolCallId: "call_1",
    toolName: "read_document",
    status: "error",
  },
  { role: "tool", content: "", toolCallId: "", toolName: "ask_user" },
  { role: "assistant", content: "Base rent $1,250,000." },
];

describe("readThreadFile: formats", () => {
  test("neutral { messages } round-trips through writeThreadFile", async () => {
    const path = join(directory, "neutral.json");
    await writeThreadFile(path, NEUTRAL);
    expect(await readThreadFile(path)).toEqual({ format: "neutral", messages: NEUTRAL });
  });

  test("a bare array of neutral messages and an empty neutral thread are neutral", async () => {
    expect((await parseThreadFile(JSON.stringify(NEUTRAL))).format).toBe("neutral");
    expect(await parseThreadFile('{ "messages": [] }')).toEqual({ format: "neutral", messages: [] });
  });

  test("LangChain stored messages, bare or wrapped, become neutral messages", async () => {
    const stored = mapChatMessagesToStoredMessages([
      new HumanMessage("Read cd_9f2."),
      new AIMessage({
        content: "",
        tool_calls: [{ id: "c1", name: "read_document", args: { file_id: "cd_9f2" } }],
      }),
      new ToolMessage({ content: "page", tool_call_id: "c1", name: "read_document", status: "error" }),
    ]);
    const expected = [
      { role: "user", content: "Read cd_9f2." },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "read_document", args: { file_id: "cd_9f2" } }],
      },
      { role: "tool", content: "page", toolCallId: "c1", toolName: "read_document", status: "error" },
    ];
    const bare = await readThreadFile(await fileWith("stored.json", JSON.stringify(stored)));
    const wrapped = await readThreadFile(
      await fileWith("wrapped.json", JSON.stringify({ messages: stored })),
    );
    for (const file of [bare, wrapped]) {
      expect(file.format).toBe("langchain");
      expect(file.messages).toMatchObject(expected);
    }
  });

  test("toJSON() forms of a real LangGraph agent's state read back as the agent's thread", async () => {
    const state = await runLeaseTurn(new MemorySaver(), "file-thread");
    const path = await fileWith("agent.json", JSON.stringify({ messages: state.messages }));
    const file = await readThreadFile(path);
    expect(file.format).toBe("langchain");
    expectLeaseThread(file.messages);
  });

  test("a leading byte order mark is accepted", async () => {
    expect((await parseThreadFile(`\uFEFF${serializeThread(NEUTRAL)}`)).messages).toEqual(NEUTRAL);
  });
});

describe("readThreadFile: errors", () => {
  test("not_found", async () => {
    const path = join(directory, "missing.json");
    const error = await readError(path);
    expect(error).toMatchObject({ name: "ThreadFileError", reason: "not_found", path });
    expect(error.message).toBe(`${path}: no such file`);
    expect((error.cause as { code: string }).code).toBe("ENOENT");
  });

  test("unreadable (a directory)", async () => {
    const path = join(directory, "a-directory.json");
    await mkdir(path);
    expect(await readError(path)).toMatchObject({ reason: "unreadable", path });
  });

  test.each([
    ['{ "messages": [\n  { "role": "user", "content": "hi" },\n  }\n]}', 3, 3],
    ['{ "messages": [\n  { "role": "user" "content": "hi" }\n] }', 2, 20],
    ['{ "messages": [', 1, 16],
    ["", 1, 1],
    ['{ "messages": [] } trailing', 1, 20],
    ['{ "messages": [\r\n{ "role": "user", "content": "a\tb" }] }', 2, 32],
    ['{ "messages": [ { "role": "user", "content": "\\x" } ] }', 1, 47],
  ])("invalid_json with line and column (%#)", async (text, line, column) => {
    const error = await readError(await fileWith("bad.json", text));
    expect(error).toMatchObject({ reason: "invalid_json", line, column });
    expect(error.message).toContain(`invalid JSON at line ${line}, column ${column}`);
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  test.each([
    ['{ "thread": [] }', undefined],
    ["42", undefined],
    ['[{ "speaker": "user", "text": "hi" }]', 0],
    ['{ "messages": ["hello"] }', 0],
  ])("unknown_format (%s)", async (text, index) => {
    const error = await readError(await fileWith("unknown.json", text));
    expect(error).toMatchObject({ reason: "unknown_format", index });
    expect(error.message).toContain("unknown thread format");
  });

  test.each([
    [
      {
        messages: [
          { role: "user", content: "a" },
          { role: "tool", content: "x", toolName: "t" },
        ],
      },
      1,
      "toolCallId",
    ],
    [{ messages: [{ role: "robot", content: "a" }] }, 0, "role"],
    [
      { messages: [{ role: "assistant", content: "", toolCalls: [{ id: "c", name: "n", args: [] }] }] },
      0,
      "toolCalls[0].args",
    ],
    [{ messages: [{ role: "tool", content: 7, toolCallId: "c", toolName: "t" }] }, 0, "content"],
    [
      { messages: [{ role: "tool", content: "", toolCallId: "c", toolName: "t", status: "failed" }] },
      0,
      "status",
    ],
    [{ messages: "none" }, undefined, "messages"],
  ])("invalid_field names messages[i].field (%#)", async (thread, index, field) => {
    const error = await readError(await fileWith("invalid.json", JSON.stringify(thread)));
    expect(error).toMatchObject({ reason: "invalid_field", index, field });
    expect(error.message).toContain(index === undefined ? field : `messages[${index}].${field}`);
  });

  test("invalid_field for a LangChain file with a broken message, naming its index", async () => {
    const stored = mapChatMessagesToStoredMessages([new HumanMessage("a")]);
    const broken = [
      ...stored,
      { lc: 1, type: "constructor", id: ["langchain_core", "messages", "Robot"], kwargs: {} },
    ];
    const error = await readError(await fileWith("broken.json", JSON.stringify(broken)));
    expect(error).toMatchObject({ reason: "invalid_field", index: 1 });
    expect(error.message).toContain("messages[1]");
  });

  test.each([
    ["a Latin-1 é", [0xe9, 0x20, 0x61], 0],
    ["a lone continuation byte", [0x61, 0x80], 1],
    ["an overlong slash", [0xc0, 0xaf], 0],
    ["an encoded surrogate", [0xed, 0xa0, 0x80], 0],
    ["0xFF", [0xff], 0],
  ])("invalid_encoding for %s, naming the byte offset", async (_label, bytes, at) => {
    const head = Buffer.from('{ "messages": [{ "role": "user", "content": "caf', "utf8");
    const path = join(directory, "latin1.json");
    await writeFile(path, Buffer.concat([head, Buffer.from(bytes), Buffer.from('" }] }', "utf8")]));
    const error = await readError(path);
    expect(error).toMatchObject({ reason: "invalid_encoding", byteOffset: head.length + at });
    expect(error.message).toBe(
      `${path}: not UTF-8: invalid byte sequence at byte offset ${head.length + at}`,
    );
  });

  test("invalid_encoding past the first chunk, and a sequence cut at the end of the file", async () => {
    const body = `{ "messages": [{ "role": "user", "content": "${"é".repeat(50_000)}`;
    const head = Buffer.from(body, "utf8");
    const path = join(directory, "late.json");
    await writeFile(path, Buffer.concat([head, Buffer.from([0xe2, 0x28, 0xa1]), Buffer.from('" }] }')]));
    expect(await readError(path)).toMatchObject({ reason: "invalid_encoding", byteOffset: head.length });
    const cut = join(directory, "cut.json");
    await writeFile(cut, Buffer.concat([Buffer.from('"caf'), Buffer.from([0xe2, 0x82])]));
    expect(await readError(cut)).toMatchObject({ reason: "invalid_encoding", byteOffset: 4 });
  });

  test("errors from a string (no path) carry no file name", async () => {
    const error = await parseThreadFile("{").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ reason: "invalid_json", path: undefined, line: 1, column: 2 });
    expect((error as Error).message.startsWith("invalid JSON")).toBe(true);
  });
});

describe("serializeThread", () => {
  test("is deterministic, ordered, newline-terminated and drops undefined fields", async () => {
    const text = serializeThread([{ id: undefined, content: "hi", role: "user" } as Message]);
    expect(text).toBe(
      '{\n  "messages": [\n    {\n      "role": "user",\n      "content": "hi"\n    }\n  ]\n}\n',
    );
    expect(serializeThread(NEUTRAL)).toBe(serializeThread(structuredClone(NEUTRAL)));
  });

  test("round-trips through parseThreadFile", async () => {
    expect((await parseThreadFile(serializeThread(NEUTRAL))).messages).toEqual(NEUTRAL);
    const written = join(directory, "round-trip.json");
    await writeThreadFile(written, NEUTRAL);
    expect(await readFile(written, "utf8")).toBe(serializeThread(NEUTRAL));
  });

  test("refuses args JSON cannot hold (a cycle, a BigInt), naming the message and field", () => {
    const looped: Record<string, unknown> = { file_id: "cd_9f2" };
    looped.self = looped;
    const thread = (args: Record<string, unknown>) =>
      [
        { role: "assistant", content: "", toolCalls: [{ id: "c", name: "read_document", args }] },
      ] as Message[];
    expect(() => serializeThread(thread(looped))).toThrowError(
      expect.objectContaining({ name: "InvalidThreadError", index: 0, field: "toolCalls[0].args.self" }),
    );
    expect(() => serializeThread(thread({ offset: 1n }))).toThrowError(
      expect.objectContaining({ name: "InvalidThreadError", field: "toolCalls[0].args.offset" }),
    );
  });

  test("refuses a malformed thread", () => {
    expect(() => serializeThread([{ role: "tool", content: "x" } as unknown as Message])).toThrowError(
      expect.objectContaining({ name: "InvalidThreadError", field: "toolCallId" }),
    );
  });
});

describe("jsonSyntaxErrorOffset", () => {
  test.each(["{}", "[]", '{"a":[1,-2.5e3,true,false,null,"\\u00e9\\n"]}', ' \n [ { "k" : { } } ] \n'])(
    "valid JSON has no error offset (%s)",
    (text) => {
      expect(jsonSyntaxErrorOffset(text)).toBe(-1);
    },
  );

  test("deep nesting does not overflow the stack", () => {
    const deep = `${"[".repeat(200_000)}1${"]".repeat(199_999)}`;
    expect(jsonSyntaxErrorOffset(deep)).toBe(deep.length);
  });

  test.each([
    ["01", 1],
    ['{"a" 1}', 5],
    ["[1,]", 3],
    ["tru", 0],
    ['"\\u12G4"', 1],
  ])("locates the first error (%s)", (text, offset) => {
    expect(jsonSyntaxErrorOffset(text)).toBe(offset);
  });

  test("textPosition counts lines after \\n, \\r\\n and \\r", () => {
    expect(textPosition("a\nb\r\nc\rd", 7)).toEqual({ line: 4, column: 1 });
    expect(textPosition("abc", 2)).toEqual({ line: 1, column: 3 });
  });
});
