import { InvalidOptionError } from "@context-cleaner/assembler";
import { PGlite } from "@electric-sql/pglite";
import { v6 } from "@langchain/core/utils/uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckpointReadError } from "../errors";
import { createPostgresThreadDirectory } from "./postgres-thread-directory";

// LangGraph's `checkpoints` table as `PostgresSaver.setup()` creates it (the columns the
// directory reads); the services tier runs the same queries on a real saver's tables.
const CHECKPOINTS_TABLE = `create table lg.checkpoints (
  thread_id text not null,
  checkpoint_ns text not null default '',
  checkpoint_id text not null,
  parent_checkpoint_id text,
  type text,
  checkpoint jsonb not null,
  metadata jsonb not null default '{}',
  primary key (thread_id, checkpoint_ns, checkpoint_id)
)`;

let pglite: PGlite;

/**
 * The id LangGraph gives a checkpoint written at `ts` (a UUID v6, time-ordered); `step`
 * keeps ids of one instant apart, as LangGraph's clock sequence does.
 */
function checkpointIdAt(ts: string, step = 0): string {
  return v6({ msecs: Date.parse(ts), nsecs: 0, clockseq: step });
}

async function checkpoint(
  threadId: string,
  checkpointId: string,
  ts: string,
  metadata: Record<string, unknown>,
  namespace = "",
): Promise<void> {
  await pglite.query(
    "insert into lg.checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata) values ($1, $2, $3, $4, $5)",
    [
      threadId,
      namespace,
      checkpointId,
      JSON.stringify({ v: 4, id: checkpointId, ts }),
      JSON.stringify(metadata),
    ],
  );
}

/** A checkpoint of `threadId` written at `ts`, with LangGraph's id for that instant. */
async function checkpointAt(
  threadId: string,
  ts: string,
  metadata: Record<string, unknown>,
  namespace = "",
): Promise<void> {
  await checkpoint(threadId, checkpointIdAt(ts), ts, metadata, namespace);
}

beforeAll(async () => {
  pglite = await PGlite.create();
  await pglite.exec(`create schema lg; ${CHECKPOINTS_TABLE}`);
  // t-a: two checkpoints, the latest on Nov 30; its org from the first checkpoint.
  await checkpointAt("t-a", "2026-11-29T08:00:00.000Z", { source: "input", org_id: "acme" });
  await checkpointAt("t-a", "2026-11-30T08:00:00.000Z", { source: "loop", org_id: "acme" });
  // t-b: active long ago only.
  await checkpointAt("t-b", "2026-10-01T08:00:00.000Z", { org_id: "acme" });
  // t-c: active, another org, Python-style offset timestamp.
  await checkpointAt("t-c", "2026-11-30T09:30:00.000000+00:00", { org_id: "globex" });
  // t-d: active, but no org in its metadata: not listed.
  await checkpointAt("t-d", "2026-11-30T09:00:00.000Z", { source: "loop" });
  // t-e: only a subgraph checkpoint is recent; the root's is old.
  await checkpointAt("t-e", "2026-10-01T08:00:00.000Z", { org_id: "acme" });
  await checkpointAt("t-e", "2026-11-30T08:00:00.000Z", { org_id: "acme" }, "child:1");
  // t-f: another metadata key.
  await checkpointAt("t-f", "2026-11-30T10:00:00.000Z", { tenant: "initech" });
});

afterAll(async () => {
  await pglite?.close();
});

describe("createPostgresThreadDirectory", () => {
  const since = new Date("2026-11-29T12:00:00Z");

  it("lists root-graph threads active since the instant, with the org from their metadata", async () => {
    const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
    const page = await directory.listActiveThreads({ since });
    expect(page.threads).toEqual([
      { orgId: "acme", threadId: "t-a", lastActivityAt: new Date("2026-11-30T08:00:00.000Z") },
      { orgId: "globex", threadId: "t-c", lastActivityAt: new Date("2026-11-30T09:30:00.000Z") },
    ]);
    expect(page.nextCursor).toBeNull();
  });

  it("gives the time a thread's latest turn started: its latest checkpoint of a run's input", async () => {
    // Two runs; the second's last checkpoints come after its start, as a run writes them.
    await checkpointAt("t-runs", "2026-11-30T07:00:00.000Z", { source: "input", step: -1, org_id: "acme" });
    await checkpointAt("t-runs", "2026-11-30T07:00:09.000Z", { source: "loop", step: 3, org_id: "acme" });
    await checkpointAt("t-runs", "2026-11-30T08:00:00.000Z", { source: "input", step: 4, org_id: "acme" });
    await checkpointAt("t-runs", "2026-11-30T08:00:12.175Z", { source: "loop", step: 9, org_id: "acme" });
    // An edit of the state between runs is no turn.
    await checkpointAt("t-runs", "2026-11-30T08:30:00.000Z", { source: "update", step: 10, org_id: "acme" });
    try {
      const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
      const page = await directory.listActiveThreads({ since });
      expect(page.threads.find((thread) => thread.threadId === "t-runs")).toEqual({
        orgId: "acme",
        threadId: "t-runs",
        lastActivityAt: new Date("2026-11-30T08:30:00.000Z"),
        lastTurnStartedAt: new Date("2026-11-30T08:00:00.000Z"),
      });
      // A thread with no run input in the scan has no turn start.
      expect(page.threads.find((thread) => thread.threadId === "t-a")).not.toHaveProperty(
        "lastTurnStartedAt",
      );
    } finally {
      await pglite.query("delete from lg.checkpoints where thread_id = 't-runs'");
    }
  });

  it("reads the org from a configured metadata key", async () => {
    const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg", orgMetadataKey: "tenant" });
    const page = await directory.listActiveThreads({ since });
    expect(page.threads.map((thread) => `${thread.orgId}/${thread.threadId}`)).toEqual(["initech/t-f"]);
  });

  it("pages by thread id with a cursor", async () => {
    const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
    const first = await directory.listActiveThreads({ since: new Date("2026-01-01T00:00:00Z"), limit: 2 });
    expect(first.threads.map((thread) => thread.threadId)).toEqual(["t-a", "t-b"]);
    const second = await directory.listActiveThreads({
      since: new Date("2026-01-01T00:00:00Z"),
      limit: 2,
      cursor: first.nextCursor,
    });
    expect(second.threads.map((thread) => thread.threadId)).toEqual(["t-c", "t-e"]);
    expect(second.nextCursor).toBeNull();
  });

  it("takes the org of the thread's first checkpoint, and leaves out a thread whose checkpoints disagree", async () => {
    // Created by initech a month ago; a later checkpoint claims another org.
    await checkpointAt("t-owned", "2026-10-30T08:00:00.000Z", { org_id: "initech" });
    await checkpointAt("t-owned", "2026-11-30T08:00:00.000Z", { org_id: "initech" });
    await checkpointAt("t-owned", "2026-11-30T08:05:00.000Z", {});
    await checkpointAt("t-spoofed", "2026-10-30T08:00:00.000Z", { org_id: "initech" });
    await checkpointAt("t-spoofed", "2026-11-30T08:00:00.000Z", { org_id: "victim" });
    try {
      const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
      const page = await directory.listActiveThreads({ since });
      expect(
        page.threads.filter(
          (thread) => thread.threadId.startsWith("t-owned") || thread.threadId.startsWith("t-spoofed"),
        ),
      ).toEqual([
        { orgId: "initech", threadId: "t-owned", lastActivityAt: new Date("2026-11-30T08:05:00.000Z") },
      ]);
    } finally {
      await pglite.query("delete from lg.checkpoints where thread_id in ('t-owned', 't-spoofed')");
    }
  });

  it("skips a checkpoint whose timestamp is not a timestamp instead of failing the scan", async () => {
    for (const [index, ts] of ["yesterday", "2026-02-30T08:00:00Z", "2026-11-30T25:00:00Z", ""].entries()) {
      await checkpoint(`t-bad-${index}`, checkpointIdAt("2026-11-30T08:00:00.000Z", index), ts, {
        org_id: "acme",
      });
    }
    // A thread with one bad checkpoint is still listed by its good ones.
    await checkpoint("t-a", checkpointIdAt("2026-11-30T08:30:00.000Z"), "not a time", { org_id: "acme" });
    try {
      const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
      const page = await directory.listActiveThreads({ since });
      expect(page.threads.map((thread) => thread.threadId)).toEqual(["t-a", "t-c"]);
      expect(page.threads[0]?.lastActivityAt).toEqual(new Date("2026-11-30T08:00:00.000Z"));
    } finally {
      await pglite.query(
        "delete from lg.checkpoints where thread_id like 't-bad-%' or checkpoint ->> 'ts' = 'not a time'",
      );
    }
  });

  it("bounds its scan by the checkpoint id, which an index can serve, not by a cast of every row", async () => {
    const statements: { text: string; values: unknown[] }[] = [];
    const recording = {
      query: (text: string, values: unknown[]) => {
        statements.push({ text, values });
        return pglite.query(text, values);
      },
    };
    await pglite.exec("create index checkpoints_checkpoint_id_idx on lg.checkpoints (checkpoint_id)");
    try {
      await createPostgresThreadDirectory({ pool: recording, schema: "lg" }).listActiveThreads({ since });
      const [statement] = statements;
      if (statement === undefined) throw new Error("no query was made");
      const plan = await pglite.transaction(async (transaction) => {
        await transaction.exec("set local enable_seqscan = off");
        return transaction.query<Record<string, string>>(`explain ${statement.text}`, statement.values);
      });
      const lines = plan.rows.map((row) => Object.values(row).join(" "));
      expect(lines.join("\n")).not.toMatch(/Seq Scan on checkpoints/);
      expect(lines.join("\n")).toMatch(/Index (Only )?Scan using checkpoints_checkpoint_id_idx/);
    } finally {
      await pglite.exec("drop index lg.checkpoints_checkpoint_id_idx");
    }
  });

  it("refuses bad options and a foreign cursor, and reports an unreadable store as retryable", async () => {
    expect(() => createPostgresThreadDirectory({ pool: pglite, schema: 'lg"; drop table x; --' })).toThrow(
      InvalidOptionError,
    );
    expect(() => createPostgresThreadDirectory({})).toThrow(InvalidOptionError);
    const directory = createPostgresThreadDirectory({ pool: pglite, schema: "lg" });
    await expect(directory.listActiveThreads({ since, cursor: "nope" })).rejects.toBeInstanceOf(
      InvalidOptionError,
    );
    await expect(directory.listActiveThreads({ since, limit: 0 })).rejects.toBeInstanceOf(InvalidOptionError);
    const missing = createPostgresThreadDirectory({ pool: pglite, schema: "no_such_schema" });
    const error = await missing.listActiveThreads({ since }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CheckpointReadError);
    expect(error).toMatchObject({ reason: "store_failed", retryable: true });
  });
});
