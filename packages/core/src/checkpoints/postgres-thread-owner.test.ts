import { InvalidOptionError } from "@context-cleaner/assembler";
import { PGlite } from "@electric-sql/pglite";
import { v6 } from "@langchain/core/utils/uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CheckpointReadError } from "../errors";
import { createPostgresThreadOwner, createTableThreadOwner } from "./postgres-thread-owner";

let pglite: PGlite;

/** A checkpoint of `threadId` written at `ts`, with the id LangGraph gives it (UUID v6). */
async function checkpointAt(
  threadId: string,
  ts: string,
  metadata: Record<string, unknown>,
  namespace = "",
): Promise<void> {
  const id = v6({ msecs: Date.parse(ts), nsecs: 0, clockseq: 0 });
  await pglite.query(
    "insert into lg.checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata) values ($1, $2, $3, $4, $5)",
    [threadId, namespace, id, JSON.stringify({ v: 4, id, ts }), JSON.stringify(metadata)],
  );
}

beforeAll(async () => {
  pglite = await PGlite.create();
  await pglite.exec(`create schema lg; create table lg.checkpoints (
    thread_id text not null,
    checkpoint_ns text not null default '',
    checkpoint_id text not null,
    parent_checkpoint_id text,
    type text,
    checkpoint jsonb not null,
    metadata jsonb not null default '{}',
    primary key (thread_id, checkpoint_ns, checkpoint_id)
  )`);
  // Inserted out of order: the first checkpoint is the earliest id, not the first row.
  await checkpointAt("t-owned", "2026-11-30T08:00:00.000Z", { org_id: "acme", source: "loop" });
  await checkpointAt("t-owned", "2026-11-29T08:00:00.000Z", { org_id: "acme", source: "input" });
  await checkpointAt("t-owned", "2026-11-30T08:01:00.000Z", { source: "loop" });
  // An attacker's thread: a later checkpoint names the victim.
  await checkpointAt("t-spoofed", "2026-11-29T08:00:00.000Z", { org_id: "attacker" });
  await checkpointAt("t-spoofed", "2026-11-30T08:00:00.000Z", { org_id: "victim" });
  // A subgraph checkpoint naming another org disputes the thread too.
  await checkpointAt("t-child", "2026-11-29T08:00:00.000Z", { org_id: "acme" });
  await checkpointAt("t-child", "2026-11-30T08:00:00.000Z", { org_id: "globex" }, "child:1");
  // The first checkpoint names no org: nobody owns it, whatever later ones say.
  await checkpointAt("t-late", "2026-11-29T08:00:00.000Z", { source: "input" });
  await checkpointAt("t-late", "2026-11-30T08:00:00.000Z", { org_id: "acme" });
  await checkpointAt("t-tenant", "2026-11-29T08:00:00.000Z", { tenant: "initech" });
});

afterAll(async () => {
  await pglite?.close();
});

describe("createPostgresThreadOwner", () => {
  it("takes the org of the thread's first checkpoint", async () => {
    const owner = createPostgresThreadOwner({ pool: pglite, schema: "lg" });
    expect(await owner.ownerOf("t-owned")).toEqual({ status: "owned", orgId: "acme" });
    const tenant = createPostgresThreadOwner({ pool: pglite, schema: "lg", orgMetadataKey: "tenant" });
    expect(await tenant.ownerOf("t-tenant")).toEqual({ status: "owned", orgId: "initech" });
  });

  it("refuses threads whose checkpoints disagree, or whose first names no org", async () => {
    const owner = createPostgresThreadOwner({ pool: pglite, schema: "lg" });
    expect(await owner.ownerOf("t-spoofed")).toEqual({
      status: "conflicting",
      orgIds: ["attacker", "victim"],
    });
    expect(await owner.ownerOf("t-child")).toEqual({ status: "conflicting", orgIds: ["acme", "globex"] });
    expect(await owner.ownerOf("t-late")).toEqual({ status: "unknown" });
    expect(await owner.ownerOf("no-such-thread")).toEqual({ status: "unknown" });
  });

  it("refuses bad options and reports an unreadable store as retryable", async () => {
    expect(() => createPostgresThreadOwner({ pool: pglite, schema: "lg; drop" })).toThrow(InvalidOptionError);
    expect(() => createPostgresThreadOwner({})).toThrow(InvalidOptionError);
    expect(() => createPostgresThreadOwner({ pool: pglite, orgMetadataKey: "" })).toThrow(InvalidOptionError);
    const error = await createPostgresThreadOwner({ pool: pglite, schema: "missing" })
      .ownerOf("t-owned")
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CheckpointReadError);
    expect(error).toMatchObject({ reason: "store_failed", retryable: true });
  });
});

describe("createTableThreadOwner", () => {
  it("answers from the owner rows: a thread without one has no owner", async () => {
    const owner = createTableThreadOwner({
      getThreadOwner: async (threadId) => (threadId === "t-1" ? "acme" : null),
    });
    expect(await owner.ownerOf("t-1")).toEqual({ status: "owned", orgId: "acme" });
    expect(await owner.ownerOf("t-2")).toEqual({ status: "unknown" });
  });
});
