import { contentSha256 } from "@context-cleaner/assembler/internal";
import {
  createDatabase,
  createDigestRepository,
  type DigestRepository,
  type DigestRowInput,
} from "@context-cleaner/db";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { runSweep } from "../../sweep/run-sweep";
import { runOpsCommand } from ".";
import type { OpsContext } from "./ops-context";

const NOW = new Date("2026-12-01T03:00:00Z");
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);
let pglite: PGlite;
let repository: DigestRepository;

beforeAll(async () => {
  pglite = await PGlite.create();
  const database = await createDatabase("pglite://", { pglite });
  await database.migrate();
  repository = createDigestRepository(database);
});
afterAll(async () => {
  await pglite?.close();
});

/** Records a pass as if the database's clock had read `pass.at` (the repository stamps its own now). */
async function recordPassAt(
  orgId: string,
  threadId: string,
  pass: Parameters<DigestRepository["recordPass"]>[2] & { at: Date },
): Promise<void> {
  await repository.recordPass(orgId, threadId, pass);
  await pglite.query("update thread_pass set recorded_at = $1 where org_id = $2 and thread_id = $3", [
    pass.at.toISOString(),
    orgId,
    threadId,
  ]);
}

function purge(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: (text: string) => out.push(text),
    stderr: (text: string) => err.push(text),
    environment: {},
  };
  const ops: OpsContext = {
    io,
    clock: manualClock(NOW),
    openDatabase: async () => createDatabase("pglite://", { pglite }),
    openQueue: async () => {
      throw new Error("purge needs no queue");
    },
    openDirectory: async () => {
      throw new Error("purge needs no directory");
    },
  };
  return runOpsCommand(["purge", ...args, "--database", "pglite://"], io, ops).then((code) => ({
    code,
    stdout: out.join(""),
    stderr: err.join(""),
  }));
}

function row(threadId: string, toolCallId: string, content: string): DigestRowInput {
  const digest = `[Condensed] ${toolCallId}`;
  return {
    threadId,
    toolCallId,
    kind: "digest",
    toolName: "read_document",
    provenanceArgs: { file_id: "cd_9f2", offset: 0 },
    contentSha256: contentSha256(content),
    digest,
    originalChars: 20_000,
    digestChars: [...digest].length,
    model: "extractive",
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}

/** What the nightly sweep would enqueue for `orgId`, as `org/thread:reason`. */
async function swept(
  orgId: string,
  active: { threadId: string; lastActivityAt: Date }[] = [],
): Promise<string[]> {
  const report = await runSweep(
    {
      store: repository,
      directory: {
        listActiveThreads: async () => ({
          threads: active.map((thread) => ({ orgId, ...thread })),
          nextCursor: null,
        }),
      },
      clock: manualClock(NOW),
    },
    { dryRun: true },
  );
  return report.threads
    .filter((thread) => thread.orgId === orgId)
    .map((thread) => `${thread.orgId}/${thread.threadId}:${thread.reason}`);
}

describe("context-cleaner purge: a purge stands until a new turn", () => {
  it("marks the thread's pass purged: the sweep neither re-enqueues its partial pass nor its earlier activity", async () => {
    await repository.upsertDigests("acme", [row("lease", "c1", "page one"), row("lease", "c2", "page two")]);
    await recordPassAt("acme", "lease", {
      status: "partial",
      reason: "call_cap",
      turnEndedAt: hoursAgo(6),
      at: hoursAgo(6),
    });
    expect(await swept("acme")).toEqual(["acme/lease:partial"]);

    const result = await purge(["--org", "acme", "--thread", "lease"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect((await repository.loadThreadDigests("acme", "lease")).size).toBe(0);
    expect(await repository.getPass("acme", "lease")).toMatchObject({ status: "skipped", reason: "purged" });
    // Neither the partial pass nor checkpoint activity from before the purge brings it back.
    expect(await swept("acme", [{ threadId: "lease", lastActivityAt: hoursAgo(5) }])).toEqual([]);
    // Turns that ended before the purge count as covered: an old event coalesces, a new turn
    // runs. "Before" by the database's clock: this operator's clock reads two days behind it.
    const covered = (await repository.getPass("acme", "lease"))?.coveredTurnEndedAt?.getTime() ?? 0;
    expect(Math.abs(covered - Date.now())).toBeLessThan(60_000);
  });

  it("purges one content hash from every thread of the org, so no pass copies it back", async () => {
    await repository.upsertDigests("globex", [
      row("t-1", "a", "the bad page"),
      row("t-2", "b", "the bad page"),
      row("t-2", "c", "a good page"),
    ]);
    await repository.upsertDigests("initech", [row("t-9", "a", "the bad page")]);
    const hash = contentSha256("the bad page");
    const result = await purge(["--org", "globex", "--sha256", hash]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("deleted 2 digests of content");
    expect((await repository.findReusableDigests("globex", [hash])).size).toBe(0);
    expect([...(await repository.loadThreadDigests("globex", "t-2")).keys()]).toEqual(["c"]);
    expect((await repository.findReusableDigests("initech", [hash])).size).toBe(1);
    expect(await repository.getPass("globex", "t-1")).toMatchObject({ status: "skipped", reason: "purged" });
    expect(await repository.getPass("globex", "t-2")).toMatchObject({ status: "skipped", reason: "purged" });
  });

  it("purges a whole org, and nothing of another", async () => {
    await repository.upsertDigests("hooli", [row("t-1", "a", "one"), row("t-2", "b", "two")]);
    await recordPassAt("hooli", "t-3", {
      status: "failed",
      turnEndedAt: hoursAgo(7),
      at: hoursAgo(7),
    });
    await repository.upsertDigests("umbrella", [row("t-1", "a", "one")]);
    const result = await purge(["--org", "hooli", "--all"]);
    expect(result).toMatchObject({ code: 0, stderr: "" });
    expect(result.stdout).toContain("deleted 2 digests of org hooli");
    for (const threadId of ["t-1", "t-2"]) {
      expect((await repository.loadThreadDigests("hooli", threadId)).size).toBe(0);
    }
    expect(await repository.getPass("hooli", "t-3")).toMatchObject({ status: "skipped", reason: "purged" });
    expect(await swept("hooli")).toEqual([]);
    expect((await repository.loadThreadDigests("umbrella", "t-1")).size).toBe(1);
  });

  it("keeps a purged org's policy and says so; --delete-policy deletes it too", async () => {
    const audit = { updatedBy: "ops", updatedAt: NOW };
    await repository.upsertDigests("wayne", [row("t-1", "a", "one")]);
    await repository.setOrgPolicy("wayne", { mode: "off" }, audit);
    const kept = await purge(["--org", "wayne", "--all"]);
    expect(kept).toMatchObject({ code: 0, stderr: "" });
    expect(kept.stdout).toContain("its policy stays");
    expect((await repository.getOrgPolicy("wayne"))?.mode).toBe("off");
    const deleted = await purge(["--org", "wayne", "--all", "--delete-policy"]);
    expect(deleted).toMatchObject({ code: 0, stderr: "" });
    expect(deleted.stdout).toContain("its policy is deleted");
    expect(await repository.getOrgPolicy("wayne")).toBeNull();
    expect((await purge(["--org", "wayne", "--all", "--delete-policy"])).stdout).toContain(
      "it had no policy",
    );
    const notAll = await purge(["--org", "wayne", "--thread", "t-1", "--delete-policy"]);
    expect(notAll.code).toBe(2);
    expect(notAll.stderr).toMatch(/--delete-policy goes with --all/);
  });

  it("takes exactly one of --thread, --sha256 and --all, and a well-formed hash", async () => {
    expect(await purge(["--org", "acme", "--thread", "t", "--all"])).toMatchObject({ code: 2 });
    expect(await purge(["--org", "acme", "--sha256", "ABC"])).toMatchObject({ code: 2 });
  });
});
