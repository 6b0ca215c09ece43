import { InvalidOptionError } from "@context-cleaner/assembler";
import { PGlite } from "@electric-sql/pglite";
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

beforeAll(async () => {
  pglite = await PGlite.create();
  await pglite.exec(`create schema lg; ${CHECKPOINTS_TABLE}`);
  // t-a: two checkpoints, the latest on Nov 30; its org from the latest checkpoint.
  await checkpoint("t-a", "0001", "2026-11-29T08:00:00.000Z", { source: "input", org_id: "acme" });
  await checkpoint("t-a", "0002", "2026-11-30T08:00:00.000Z", { source: "loop", org_id: "acme" });
  // t-b: active long ago only.
  await checkpoint("t-b", "0001", "2026-10-01T08:00:00.000Z", { org_id: "acme" });
  // t-c: active, another org, Python-style offset timestamp.
  await checkpoint("t-c", "0001", "2026-11-30T09:30:00.000000+00:00", { org_id: "globex" });
  // t-d: active, but no org in its metadata: not listed.
  await checkpoint("t-d", "0001", "2026-11-30T09:00:00.000Z", { source: "loop" });
  // t-e: only a subgraph checkpoint is recent; the root's is old.
  await checkpoint("t-e", "0001", "2026-10-01T08:00:00.000Z", { org_id: "acme" });
  await checkpoint("t-e", "0002", "2026-11-30T08:00:00.000Z", { org_id: "acme" }, "child:1");
  // t-f: another metadata key.
  await checkpoint("t-f", "0001", "2026-11-30T10:00:00.000Z", { tenant: "initech" });
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
