/**
 * Services tier: an app's own message table on a real Postgres (one `jsonb` row per thread
 * in the Anthropic Messages and OpenAI Chat Completions forms, written by the app's role),
 * read back by the message-table reader logged in as a role with SELECT-only grants and
 * `default_transaction_read_only=on`; the table is left exactly as it was.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { requireTestPostgresUrl } from "#test/repo/services/postgres";
import { createMessageTableReader } from "./message-table";

const suffix = randomBytes(4).toString("hex");
const schema = `cc_app_${suffix}`;
const readerRole = `cc_message_reader_${suffix}`;
const readerPassword = randomBytes(12).toString("hex");
const table = `${schema}.thread_messages`;

const ANTHROPIC = [
  { role: "user", content: "What is the notice period?" },
  {
    role: "assistant",
    content: [{ type: "tool_use", id: "toolu_1", name: "read_document", input: { file_id: "lease" } }],
  },
  {
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "§9: three months' notice." }],
  },
  { role: "assistant", content: "Three months." },
];

const OPENAI = [
  { role: "user", content: "And the rent?" },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      {
        id: "call_1",
        type: "function",
        function: { name: "read_document", arguments: '{"file_id":"lease"}' },
      },
    ],
  },
  { role: "tool", tool_call_id: "call_1", content: "§4: 2,400 EUR a month." },
  { role: "assistant", content: "2,400 EUR." },
];

let admin: pg.Pool;
let readerUrl: string;

async function tableDigest(): Promise<string> {
  const { rows } = await admin.query(
    `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by thread_id), '')) as md5 from ${table} t`,
  );
  return `${rows[0].n}:${rows[0].md5}`;
}

beforeAll(async () => {
  const url = requireTestPostgresUrl();
  admin = new pg.Pool({ connectionString: url, max: 2 });
  await admin.query(`create schema ${schema}`);
  await admin.query(
    `create table ${table} (thread_id text primary key, org_id text not null, messages jsonb not null, updated_at timestamptz not null default now())`,
  );
  await admin.query(`insert into ${table} (thread_id, org_id, messages) values ($1, $2, $3), ($4, $5, $6)`, [
    "t-anthropic",
    "acme",
    JSON.stringify(ANTHROPIC),
    "t-openai",
    "globex",
    JSON.stringify(OPENAI),
  ]);
  await admin.query(`create role ${readerRole} login password '${readerPassword}'`);
  await admin.query(`alter role ${readerRole} set default_transaction_read_only = on`);
  await admin.query(`grant usage on schema ${schema} to ${readerRole}`);
  await admin.query(`grant select on ${table} to ${readerRole}`);
  const reader = new URL(url);
  reader.username = readerRole;
  reader.password = readerPassword;
  readerUrl = reader.toString();
});

afterAll(async () => {
  if (!admin) return;
  await admin.query(`drop schema if exists ${schema} cascade`);
  await admin.query(`drop owned by ${readerRole}`).catch(() => undefined);
  await admin.query(`drop role if exists ${readerRole}`);
  await admin.end();
});

describe("message-table reader (SELECT-only role, read-only sessions)", () => {
  test("reads each provider form as neutral messages, its owner and the active threads, and writes nothing", async () => {
    const before = await tableDigest();
    const reader = createMessageTableReader({
      connectionString: readerUrl,
      table,
      orgIdColumn: "org_id",
      updatedAtColumn: "updated_at",
    });
    try {
      const anthropic = await reader.readThread("t-anthropic");
      expect(anthropic?.find((message) => message.role === "tool")).toMatchObject({
        toolCallId: "toolu_1",
        toolName: "read_document",
        content: "§9: three months' notice.",
      });
      const openai = await reader.readThread("t-openai");
      expect(openai?.find((message) => message.role === "tool")).toMatchObject({
        toolCallId: "call_1",
        content: "§4: 2,400 EUR a month.",
      });
      expect(await reader.readThread("t-none")).toBeNull();
      expect(await reader.threadOwner?.ownerOf("t-openai")).toEqual({ status: "owned", orgId: "globex" });
      const page = await reader.directory?.listActiveThreads({ since: new Date(Date.now() - 3_600_000) });
      expect(page?.threads.map((thread) => [thread.threadId, thread.orgId])).toEqual([
        ["t-anthropic", "acme"],
        ["t-openai", "globex"],
      ]);
    } finally {
      await reader.close();
    }
    expect(await tableDigest()).toBe(before);
  });

  test("an updated-at kept as text: a row that is no date-time is passed over and counted, on the SELECT-only role", async () => {
    const stamped = `${schema}.text_stamped`;
    await admin.query(
      `create table ${stamped} (thread_id text, org_id text, messages jsonb, updated_at text)`,
    );
    await admin.query(`grant select on ${stamped} to ${readerRole}`);
    const recent = new Date(Date.now() - 60_000).toISOString();
    await admin.query(
      `insert into ${stamped} (thread_id, org_id, messages, updated_at) values
        ('s-good', 'acme', '[]', $1), ('s-garbled', 'acme', '[]', 'last tuesday'), ('s-no-day', 'acme', '[]', '2026-02-30T08:00:00Z')`,
      [recent],
    );
    const reader = createMessageTableReader({
      connectionString: readerUrl,
      table: stamped,
      orgIdColumn: "org_id",
      updatedAtColumn: "updated_at",
    });
    try {
      const page = await reader.directory?.listActiveThreads({ since: new Date(Date.now() - 3_600_000) });
      expect(page).toEqual({
        threads: [{ threadId: "s-good", orgId: "acme", lastActivityAt: new Date(recent) }],
        nextCursor: null,
        unreadable: 2,
      });
    } finally {
      await reader.close();
    }
  });

  test("the reader's role cannot write the table, and a table it may not read is a retryable store failure", async () => {
    const pool = new pg.Pool({ connectionString: readerUrl, max: 1 });
    try {
      const refused = await pool.query(`delete from ${table}`).catch((error: { code?: string }) => error);
      // 25006: read_only_sql_transaction.
      expect((refused as { code?: string }).code).toBe("25006");
      await admin.query(`create table ${schema}.private (thread_id text, messages jsonb)`);
      const reader = createMessageTableReader({ pool, table: `${schema}.private` });
      await expect(reader.readThread("t-anthropic")).rejects.toMatchObject({
        reason: "store_failed",
        retryable: true,
        cause: expect.objectContaining({ code: "42501" }),
      });
    } finally {
      await pool.end();
    }
  });
});
