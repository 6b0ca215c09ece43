/**
 * Services tier: checkpoints written by a real compiled LangGraph agent through a real
 * `PostgresSaver` (the writer, after its own `setup()`), read back by the reader logged in
 * as a role with SELECT-only grants and `default_transaction_read_only=on`.
 */
import { randomBytes } from "node:crypto";
import type { Message } from "@context-cleaner/assembler";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { expectLeaseThread, runLeaseTurn } from "#test/core/fixtures/lease-agent";
import { requireTestPostgresUrl } from "#test/repo/services/postgres";
import { CheckpointReadError } from "../errors";
import { createPostgresCheckpointReader } from "./postgres-reader";

const suffix = randomBytes(4).toString("hex");
const schema = `cc_checkpoints_${suffix}`;
const readerRole = `cc_checkpoint_reader_${suffix}`;
const readerPassword = randomBytes(12).toString("hex");
const TABLES = ["checkpoints", "checkpoint_blobs", "checkpoint_writes"] as const;

let admin: pg.Pool;
let readerUrl: string;
const readerPools: pg.Pool[] = [];

function readerPool(): pg.Pool {
  const pool = new pg.Pool({ connectionString: readerUrl, max: 2 });
  readerPools.push(pool);
  return pool;
}

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of TABLES) {
    const { rows } = await admin.query(`select count(*)::int as n from "${schema}".${table}`);
    counts[table] = rows[0].n;
  }
  return counts;
}

async function errorOf(promise: Promise<unknown>): Promise<{ code?: string } & Error> {
  return promise.then(
    () => {
      throw new Error("expected a rejection");
    },
    (error: unknown) => error as { code?: string } & Error,
  );
}

beforeAll(async () => {
  const url = requireTestPostgresUrl();
  admin = new pg.Pool({ connectionString: url, max: 2 });
  const writer = new PostgresSaver(admin, undefined, { schema });
  await writer.setup();
  await runLeaseTurn(writer, "lease-pg-1");
  await runLeaseTurn(writer, "lease-pg-2");
  await runLeaseTurn(writer, "lease-pg-2", "And the notice deadline?");
  await admin.query(`create role ${readerRole} login password '${readerPassword}'`);
  await admin.query(`alter role ${readerRole} set default_transaction_read_only = on`);
  await admin.query(`grant usage on schema "${schema}" to ${readerRole}`);
  await admin.query(
    `grant select on ${TABLES.map((table) => `"${schema}".${table}`).join(", ")} to ${readerRole}`,
  );
  const reader = new URL(url);
  reader.username = readerRole;
  reader.password = readerPassword;
  readerUrl = reader.toString();
});

afterAll(async () => {
  await Promise.all(readerPools.map((pool) => pool.end()));
  if (!admin) return;
  await admin.query(`drop schema if exists "${schema}" cascade`);
  await admin.query(`drop owned by ${readerRole}`).catch(() => undefined);
  await admin.query(`drop role if exists ${readerRole}`);
  await admin.end();
});

describe("Postgres checkpoint reader (SELECT-only role, read-only sessions)", () => {
  test("the reader role can read but neither write nor set up", async () => {
    const pool = readerPool();
    const { rows } = await pool.query("show default_transaction_read_only");
    expect(rows[0].default_transaction_read_only).toBe("on");
    // 25006: read_only_sql_transaction
    const readOnly = await errorOf(pool.query(`delete from "${schema}".checkpoints`));
    expect(readOnly.code).toBe("25006");
    const client = await pool.connect();
    try {
      await client.query("set default_transaction_read_only = off");
      // 42501: insufficient_privilege — the grants alone forbid writes too.
      const denied = await errorOf(client.query(`delete from "${schema}".checkpoints`));
      expect(denied.code).toBe("42501");
    } finally {
      client.release();
    }
    // 42501 (insufficient_privilege) or 25006 (read_only_sql_transaction): refused, not unreachable.
    const setupError = await errorOf(new PostgresSaver(pool, undefined, { schema }).setup());
    expect(["42501", "25006"]).toContain(setupError.code);
  });

  test("getTuple as the reader role revives real HumanMessage / AIMessage / ToolMessage instances", async () => {
    const saver = new PostgresSaver(readerPool(), undefined, { schema });
    const tuple = await saver.getTuple({ configurable: { thread_id: "lease-pg-1" } });
    const messages = tuple?.checkpoint.channel_values.messages as unknown[];
    expect(HumanMessage.isInstance(messages[0])).toBe(true);
    expect(AIMessage.isInstance(messages[1])).toBe(true);
    expect(ToolMessage.isInstance(messages[2])).toBe(true);
  });

  test("createPostgresCheckpointReader({ connectionString }) reads the agent's thread and writes nothing", async () => {
    const before = await rowCounts();
    const reader = createPostgresCheckpointReader({ connectionString: readerUrl, schema });
    try {
      expectLeaseThread((await reader.readThread("lease-pg-1")) as Message[]);
      expect(await reader.readThread("no-such-thread")).toBeNull();
    } finally {
      await reader.close();
    }
    expect(await rowCounts()).toEqual(before);
  });

  test("an idle connection the server drops is reported, not fatal, and the next read reconnects", async () => {
    const dropped: Error[] = [];
    const application = `cc_drop_${suffix}`;
    const url = new URL(readerUrl);
    url.searchParams.set("application_name", application);
    const reader = createPostgresCheckpointReader({
      connectionString: url.toString(),
      schema,
      maxConnections: 1,
      onPoolError: (error) => dropped.push(error),
    });
    try {
      expectLeaseThread((await reader.readThread("lease-pg-1")) as Message[]);
      // End the reader's idle connection server-side (only this reader's: other pools have no handler).
      const { rows } = await admin.query(
        "select pg_terminate_backend(pid) as ended from pg_stat_activity where application_name = $1",
        [application],
      );
      expect(rows.length).toBeGreaterThan(0);
      for (let wait = 0; wait < 50 && dropped.length === 0; wait++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(dropped.length).toBeGreaterThan(0);
      expectLeaseThread((await reader.readThread("lease-pg-1")) as Message[]);
    } finally {
      await reader.close();
    }
  });

  test("createPostgresCheckpointReader({ pool }) reads the newest checkpoint of a two-turn thread", async () => {
    const reader = createPostgresCheckpointReader({ pool: readerPool(), schema });
    const messages = (await reader.readThread("lease-pg-2")) ?? [];
    expect(messages.filter((message) => message.role === "user").map((message) => message.content)).toEqual([
      expect.stringContaining("rent and assignment"),
      "And the notice deadline?",
    ]);
    expectLeaseThread(
      messages.slice(
        0,
        messages.findLastIndex((message) => message.role === "user"),
      ),
    );
    await reader.close();
  });

  test("a schema without checkpoint tables is a retryable store_failed, with the database error as cause", async () => {
    const reader = createPostgresCheckpointReader({ pool: readerPool(), schema: `${schema}_missing` });
    const error = (await errorOf(reader.readThread("lease-pg-1"))) as unknown as CheckpointReadError;
    expect(error).toBeInstanceOf(CheckpointReadError);
    expect(error).toMatchObject({ reason: "store_failed", retryable: true });
    // 42P01: undefined_table
    expect((error.cause as { code?: string }).code).toBe("42P01");
  });
});
