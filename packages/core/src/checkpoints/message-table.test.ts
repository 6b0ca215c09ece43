import { InvalidOptionError, type Message } from "@context-cleaner/assembler";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckpointReadError } from "../errors";
import { createMessageTableReader, type MessageTableReaderOptions } from "./message-table";

let pglite: PGlite;

const NEUTRAL: Message[] = [
  { role: "user", content: "What is the rent?" },
  {
    role: "assistant",
    content: "",
    toolCalls: [{ id: "c1", name: "read_document", args: { file_id: "f" } }],
  },
  { role: "tool", toolCallId: "c1", toolName: "read_document", content: "Rent: 2,400 EUR." },
  { role: "assistant", content: "2,400 EUR." },
];

const ANTHROPIC = [
  { role: "user", content: "What is the rent?" },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "c1", name: "read_document", input: { file_id: "f" } }],
  },
  { role: "user", content: [{ type: "tool_result", tool_use_id: "c1", content: "Rent: 2,400 EUR." }] },
  { role: "assistant", content: "2,400 EUR." },
];

const OPENAI = [
  { role: "user", content: "What is the rent?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "c1", type: "function", function: { name: "read_document", arguments: '{"file_id":"f"}' } },
    ],
  },
  { role: "tool", tool_call_id: "c1", content: "Rent: 2,400 EUR." },
  { role: "assistant", content: "2,400 EUR." },
];

/** The AI SDK's own form (`ModelMessage[]`, as `response.messages` gives it). */
const AI_SDK = [
  { role: "user", content: "What is the rent?" },
  {
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: "c1", toolName: "read_document", input: { file_id: "f" } }],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "read_document",
        output: { type: "text", value: "Rent: 2,400 EUR." },
      },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "2,400 EUR." }] },
];

const LANGCHAIN = [
  { type: "human", data: { content: "What is the rent?" } },
  {
    type: "ai",
    data: { content: "", tool_calls: [{ id: "c1", name: "read_document", args: { file_id: "f" } }] },
  },
  { type: "tool", data: { content: "Rent: 2,400 EUR.", tool_call_id: "c1", name: "read_document" } },
  { type: "ai", data: { content: "2,400 EUR." } },
];

async function row(
  table: string,
  threadId: string,
  messages: unknown,
  orgId: string | null = "acme",
  updatedAt = "2026-11-30T08:00:00Z",
): Promise<void> {
  await pglite.query(
    `insert into ${table} (thread_id, messages, org_id, updated_at) values ($1, $2, $3, $4)`,
    [threadId, messages === null ? null : JSON.stringify(messages), orgId, updatedAt],
  );
}

/** A message's text, whichever content form its adapter gives an empty assistant turn. */
function textOf(message: Message): string {
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => ("text" in part ? part.text : "")).join("");
}

function reader(options: Partial<MessageTableReaderOptions> = {}) {
  return createMessageTableReader({
    pool: pglite,
    table: "app.thread_messages",
    orgIdColumn: "org_id",
    updatedAtColumn: "updated_at",
    ...options,
  });
}

async function readError(promise: Promise<unknown>): Promise<CheckpointReadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CheckpointReadError);
  return error as CheckpointReadError;
}

beforeAll(async () => {
  pglite = await PGlite.create();
  await pglite.exec(`create schema app;
    create table app.thread_messages (thread_id text, messages jsonb, org_id text, updated_at timestamptz);
    create table app.text_messages (conversation text primary key, history text);
    create view app.latest as select thread_id as id, messages as body from app.thread_messages;
    create table app.text_stamped (thread_id text, messages jsonb, org_id text, updated_at text);`);
  await row("app.thread_messages", "t-neutral", { messages: NEUTRAL });
  await row("app.thread_messages", "t-bare", NEUTRAL, "globex", "2026-11-30T09:00:00Z");
  await row("app.thread_messages", "t-anthropic", ANTHROPIC);
  await row("app.thread_messages", "t-openai", OPENAI);
  await row("app.thread_messages", "t-langchain", LANGCHAIN);
  await row("app.thread_messages", "t-ai-sdk", { messages: AI_SDK });
  await row("app.thread_messages", "t-null", null, "acme", "2026-10-01T08:00:00Z");
  await row("app.thread_messages", "t-twice", NEUTRAL);
  await row("app.thread_messages", "t-twice", NEUTRAL, "globex");
  await row("app.thread_messages", "t-no-org", NEUTRAL, null);
  await row("app.thread_messages", "t-empty-org", NEUTRAL, "");
  await row("app.thread_messages", "t-bad-shape", { history: [] });
  await row("app.thread_messages", "t-bad-message", [{ role: "tool", content: "orphan" }]);
  // An app that keeps its updated-at as text: a row that does not read as a date-time is passed over.
  await row("app.text_stamped", "s-iso", NEUTRAL, "acme", "2026-11-30T08:00:00.000Z");
  await row("app.text_stamped", "s-space", NEUTRAL, "acme", "2026-11-30 09:30:00+01");
  await row("app.text_stamped", "s-naive", NEUTRAL, "globex", "2026-11-30T10:00:00");
  await row("app.text_stamped", "s-old", NEUTRAL, "acme", "2026-10-01T08:00:00Z");
  await row("app.text_stamped", "s-garbled", NEUTRAL, "acme", "last tuesday");
  await row("app.text_stamped", "s-no-day", NEUTRAL, "acme", "2026-02-30T08:00:00Z");
  await pglite.query(
    "insert into app.text_stamped (thread_id, messages, org_id) values ('s-unstamped', null, 'acme')",
  );
  await pglite.query("insert into app.text_messages values ($1, $2), ($3, $4)", [
    "c-1",
    JSON.stringify(OPENAI),
    "c-2",
    "{ not json",
  ]);
});

afterAll(async () => {
  await pglite?.close();
});

describe("createMessageTableReader: readThread", () => {
  it.each([
    ["t-neutral", "neutral wrapped in { messages }"],
    ["t-bare", "a bare neutral array"],
    ["t-anthropic", "Anthropic Messages"],
    ["t-openai", "OpenAI Chat Completions"],
    ["t-langchain", "LangChain stored messages"],
    ["t-ai-sdk", "AI SDK ModelMessage[]"],
  ])("reads %s (%s) as the same neutral thread", async (threadId) => {
    const messages = await reader().readThread(threadId);
    expect(messages?.map((message) => [message.role, textOf(message)])).toEqual(
      NEUTRAL.map((message) => [message.role, textOf(message)]),
    );
    const tool = messages?.find((message) => message.role === "tool");
    expect(tool).toMatchObject({ toolCallId: "c1", content: "Rent: 2,400 EUR." });
    const call = messages?.find((message) => message.role === "assistant" && message.toolCalls);
    expect(call).toMatchObject({ toolCalls: [{ id: "c1", name: "read_document", args: { file_id: "f" } }] });
  });

  it("reads a thread with no row as null and a row whose messages are NULL as []", async () => {
    expect(await reader().readThread("t-missing")).toBeNull();
    expect(await reader().readThread("t-null")).toEqual([]);
  });

  it("reads a text column of JSON and other column names, and refuses text that is not JSON", async () => {
    const text = reader({
      table: "app.text_messages",
      threadIdColumn: "conversation",
      messagesColumn: "history",
      orgIdColumn: undefined,
      updatedAtColumn: undefined,
    });
    expect((await text.readThread("c-1"))?.at(-1)).toEqual({ role: "assistant", content: "2,400 EUR." });
    const error = await readError(text.readThread("c-2"));
    expect(error).toMatchObject({ reason: "invalid_channel", threadId: "c-2", retryable: false });
    expect(error.message).toMatch(/thread c-2: the messages column is not JSON/);
  });

  it("reads a view the app names", async () => {
    const view = reader({
      table: "app.latest",
      threadIdColumn: "id",
      messagesColumn: "body",
      orgIdColumn: undefined,
      updatedAtColumn: undefined,
    });
    expect(await view.readThread("t-openai")).toHaveLength(4);
    expect(view.threadOwner).toBeUndefined();
    expect(view.directory).toBeUndefined();
  });

  it("refuses a thread with two rows, a value that is no thread, and a message that does not convert", async () => {
    expect(await readError(reader().readThread("t-twice"))).toMatchObject({
      reason: "invalid_channel",
      message: expect.stringMatching(/more than one row in app\.thread_messages/),
    });
    expect(await readError(reader().readThread("t-bad-shape"))).toMatchObject({ reason: "invalid_channel" });
    const bad = await readError(reader().readThread("t-bad-message"));
    expect(bad).toMatchObject({ reason: "invalid_message", threadId: "t-bad-message" });
    expect(bad.message).toMatch(/^thread t-bad-message: invalid neutral thread/);
  });

  it("reads with a fixed format instead of detecting it", async () => {
    const fixed = reader({ format: "openai" });
    expect(await fixed.readThread("t-openai")).toHaveLength(4);
    expect(await reader({ format: "ai-sdk" }).readThread("t-ai-sdk")).toHaveLength(4);
    expect(await readError(fixed.readThread("t-langchain"))).toMatchObject({ reason: "invalid_message" });
  });

  it("fails as a retryable store failure when the table is not there", async () => {
    const error = await readError(reader({ table: "app.nowhere" }).readThread("t-neutral"));
    expect(error).toMatchObject({ reason: "store_failed", retryable: true });
    expect(error.message).toMatch(/reading thread t-neutral from app\.nowhere failed/);
  });
});

describe("createMessageTableReader: threadOwner", () => {
  it("names the org of the thread's row, unknown without a row or an org, conflicting for two", async () => {
    const owner = reader().threadOwner;
    expect(await owner?.ownerOf("t-neutral")).toEqual({ status: "owned", orgId: "acme" });
    expect(await owner?.ownerOf("t-bare")).toEqual({ status: "owned", orgId: "globex" });
    expect(await owner?.ownerOf("t-missing")).toEqual({ status: "unknown" });
    expect(await owner?.ownerOf("t-no-org")).toEqual({ status: "unknown" });
    expect(await owner?.ownerOf("t-empty-org")).toEqual({ status: "unknown" });
    expect(await owner?.ownerOf("t-twice")).toEqual({ status: "conflicting", orgIds: ["acme", "globex"] });
  });

  it("is there with the org column alone, and fails as a store failure on a missing column", async () => {
    const owner = reader({ updatedAtColumn: undefined });
    expect(owner.directory).toBeUndefined();
    expect(await owner.threadOwner?.ownerOf("t-neutral")).toEqual({ status: "owned", orgId: "acme" });
    const error = await readError(
      reader({ orgIdColumn: "tenant" }).threadOwner?.ownerOf("t-neutral") as Promise<unknown>,
    );
    expect(error).toMatchObject({ reason: "store_failed", threadId: "t-neutral" });
  });
});

describe("createMessageTableReader: directory", () => {
  it("lists the threads changed since an instant with one org, in pages by thread id", async () => {
    const directory = reader().directory;
    if (!directory) throw new Error("expected a directory");
    const since = new Date("2026-11-30T00:00:00Z");
    const first = await directory.listActiveThreads({ since, limit: 3 });
    expect(first.threads.map((thread) => thread.threadId)).toEqual([
      "t-ai-sdk",
      "t-anthropic",
      "t-bad-message",
    ]);
    expect(first.nextCursor).not.toBeNull();
    const rest = await directory.listActiveThreads({ since, limit: 100, cursor: first.nextCursor });
    expect(rest.threads).toEqual([
      { threadId: "t-bad-shape", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:00:00Z") },
      { threadId: "t-bare", orgId: "globex", lastActivityAt: new Date("2026-11-30T09:00:00Z") },
      { threadId: "t-langchain", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:00:00Z") },
      { threadId: "t-neutral", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:00:00Z") },
      { threadId: "t-openai", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:00:00Z") },
    ]);
    expect(rest.nextCursor).toBeNull();
  });

  it("passes over a row whose updated-at is not a date-time, and counts it, instead of failing every listing", async () => {
    const directory = reader({ table: "app.text_stamped" }).directory;
    if (!directory) throw new Error("expected a directory");
    const since = new Date("2026-11-30T00:00:00Z");
    const first = await directory.listActiveThreads({ since, limit: 2 });
    expect(first.threads).toEqual([
      { threadId: "s-iso", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:00:00Z") },
      { threadId: "s-naive", orgId: "globex", lastActivityAt: new Date("2026-11-30T10:00:00Z") },
    ]);
    // The first page counts the rows of the whole table whose updated-at could not be read.
    expect(first.unreadable).toBe(2);
    const rest = await directory.listActiveThreads({ since, cursor: first.nextCursor });
    expect(rest).toEqual({
      threads: [{ threadId: "s-space", orgId: "acme", lastActivityAt: new Date("2026-11-30T08:30:00Z") }],
      nextCursor: null,
    });
    // A timestamptz column cannot hold such a value: nothing is counted.
    expect((await reader().directory?.listActiveThreads({ since }))?.unreadable).toBeUndefined();
  });

  it("refuses a bad limit, since or cursor", async () => {
    const directory = reader().directory;
    const since = new Date("2026-11-30T00:00:00Z");
    await expect(directory?.listActiveThreads({ since, limit: 0 })).rejects.toThrow(InvalidOptionError);
    await expect(directory?.listActiveThreads({ since: new Date(Number.NaN) })).rejects.toThrow(/since/);
    await expect(directory?.listActiveThreads({ since, cursor: "nope" })).rejects.toThrow(/cursor/);
  });
});

describe("createMessageTableReader: options", () => {
  it.each([
    [{ table: "" }, "table"],
    [{ table: "a.b.c" }, "table"],
    [{ table: 'app."x"' }, "table"],
    [{ threadIdColumn: "thread id" }, "threadIdColumn"],
    [{ messagesColumn: "m;drop" }, "messagesColumn"],
    [{ orgIdColumn: "1org" }, "orgIdColumn"],
    [{ updatedAtColumn: "" }, "updatedAtColumn"],
    [{ format: "yaml" as never }, "format"],
  ])("refuses %j naming %s", (options, option) => {
    expect(() => reader(options)).toThrow(
      expect.objectContaining({ name: "InvalidOptionError", field: option }),
    );
  });

  it("needs exactly one of pool and connectionString", () => {
    expect(() => createMessageTableReader({ table: "t" })).toThrow(/exactly one of pool or connectionString/);
    expect(() =>
      createMessageTableReader({ table: "t", pool: pglite, connectionString: "postgres://x" }),
    ).toThrow(InvalidOptionError);
  });
});
