import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import { createDatabase, createDigestRepository, type DigestRepository } from "@context-cleaner/db";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import type { ActiveThread } from "../../ports";
import { createInProcessDigestQueue } from "../../queue/in-process-queue";
import { main } from "../main";
import { runOpsCommand } from ".";
import type { OpsContext } from "./ops-context";

const NOW = new Date("2026-12-01T03:00:00Z");
let pglite: PGlite;
let repository: DigestRepository;

function capture(environment: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { stdout: (text: string) => out.push(text), stderr: (text: string) => err.push(text), environment },
    stdout: () => out.join(""),
    stderr: () => err.join(""),
  };
}

/** A context over one shared PGlite, an in-process queue and a listed directory. */
function context(
  run: ReturnType<typeof capture>,
  options: { queue?: ReturnType<typeof createInProcessDigestQueue>; active?: ActiveThread[] } = {},
) {
  const opened = {
    databases: [] as string[],
    queues: [] as { queueUrl?: string; dlqUrl?: string }[],
    directories: [] as Parameters<OpsContext["openDirectory"]>[0][],
  };
  const clock = manualClock(NOW);
  const queue = options.queue ?? createInProcessDigestQueue({ clock });
  const ops: OpsContext = {
    io: run.io,
    clock,
    async openDatabase(url) {
      opened.databases.push(url);
      // An injected PGlite stays open when the command closes its database.
      return createDatabase("pglite://", { pglite });
    },
    async openQueue(urls) {
      opened.queues.push(urls);
      return queue;
    },
    async openDirectory(tables) {
      opened.directories.push(tables);
      return {
        listActiveThreads: async () => ({ threads: options.active ?? [], nextCursor: null }),
        close: async () => {},
      };
    },
  };
  return { ops, opened, queue };
}

beforeAll(async () => {
  pglite = await PGlite.create();
  const database = await createDatabase("pglite://", { pglite });
  await database.migrate();
  repository = createDigestRepository(database);
  await recordPassAt("acme", "lease", {
    status: "partial",
    reason: "call_cap",
    coveredTurnEndedAt: null,
    turnEndedAt: new Date("2026-11-30T10:00:00Z"),
    at: new Date("2026-11-30T10:01:00Z"),
  });
  const digest = "[Condensed by context-cleaner — original preserved and re-readable.] rent $1,250,000";
  await repository.upsertDigests(
    "acme",
    ["call_1", "call_2"].map((toolCallId) => ({
      threadId: "lease",
      toolCallId,
      kind: "digest" as const,
      toolName: "read_document",
      provenanceArgs: { file_id: "cd_9f2", offset: 0 },
      contentSha256: "a".repeat(63) + toolCallId.slice(-1),
      digest,
      originalChars: 58_000,
      digestChars: [...digest].length,
      model: "extractive",
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    })),
  );
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

describe("context-cleaner status", () => {
  it("prints the pass record, the digests and the chars they save", async () => {
    const run = capture({ DATABASE_URL: "postgres://ops@db.example/app" });
    const { ops, opened } = context(run);
    expect(await runOpsCommand(["status", "--org", "acme", "--thread", "lease"], run.io, ops)).toBe(0);
    expect(opened.databases).toEqual(["postgres://ops@db.example/app"]);
    expect(run.stdout()).toContain("pass:         partial (call_cap), recorded 2026-11-30T10:01:00.000Z");
    expect(run.stdout()).toContain("latest turn:  2026-11-30T10:00:00.000Z");
    expect(run.stdout()).toContain("digests:      2");
    expect(run.stdout()).toMatch(/chars saved: {2}115,8\d\d \(116,000 → \d+\)/);
  });

  it("answers as JSON, and says when no job ran for a thread", async () => {
    const run = capture();
    const { ops, opened } = context(run);
    expect(
      await runOpsCommand(
        ["status", "--org", "acme", "--thread", "none", "--database", "postgres://x/y", "--json"],
        run.io,
        ops,
      ),
    ).toBe(0);
    expect(opened.databases).toEqual(["postgres://x/y"]);
    expect(JSON.parse(run.stdout())).toEqual({
      orgId: "acme",
      threadId: "none",
      mode: "on",
      pass: null,
      digests: { digests: 0, originalChars: 0, digestChars: 0, charsSaved: 0 },
    });
  });

  it("refuses a missing flag or database with exit code 2 and one line", async () => {
    const missingOrg = capture({ DATABASE_URL: "postgres://x/y" });
    expect(await runOpsCommand(["status", "--thread", "lease"], missingOrg.io, context(missingOrg).ops)).toBe(
      2,
    );
    expect(missingOrg.stderr()).toBe("context-cleaner: status needs --org\n");
    const noDatabase = capture();
    expect(
      await runOpsCommand(["status", "--org", "a", "--thread", "t"], noDatabase.io, context(noDatabase).ops),
    ).toBe(2);
    expect(noDatabase.stderr()).toContain("a database is needed: --database <url> or DATABASE_URL");
    const unknownFlag = capture();
    expect(await runOpsCommand(["status", "--orgs", "a"], unknownFlag.io, context(unknownFlag).ops)).toBe(2);
    expect(unknownFlag.stderr()).toContain("--orgs");
  });
});

describe("context-cleaner purge", () => {
  it("deletes the thread's digests and nothing else", async () => {
    await repository.upsertDigests("acme", [
      {
        threadId: "other",
        toolCallId: "call_9",
        kind: "digest",
        toolName: "read_document",
        provenanceArgs: { file_id: "x", offset: 0 },
        contentSha256: "b".repeat(64),
        digest: "kept",
        originalChars: 10,
        digestChars: 4,
        model: null,
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      },
    ]);
    const run = capture({ DATABASE_URL: "postgres://x/y" });
    expect(
      await runOpsCommand(["purge", "--org", "acme", "--thread", "lease"], run.io, context(run).ops),
    ).toBe(0);
    expect(run.stdout()).toBe(
      "deleted 2 digests of thread lease (org acme); its next turn sees the raw thread\n",
    );
    expect((await repository.loadThreadDigests("acme", "lease")).size).toBe(0);
    expect((await repository.loadThreadDigests("acme", "other")).size).toBe(1);
    expect(await repository.getPass("acme", "lease")).not.toBeNull();
  });
});

describe("context-cleaner dlq", () => {
  async function deadLettered() {
    const queue = createInProcessDigestQueue({ clock: manualClock(NOW), maxReceiveCount: 1 });
    const valid = JSON.stringify({
      orgId: "acme",
      threadId: "t",
      rawToolChars: 200_000,
      turnEndedAt: NOW.toISOString(),
    });
    await queue.send({ body: valid, groupId: "acme:t", deduplicationId: "v" });
    await queue.send({ body: '{"orgId":"acme"}', groupId: "poison", deduplicationId: "p" });
    for (const message of await queue.receive(10)) await queue.changeVisibility(message.receiptHandle, 0);
    expect(await queue.receive(10)).toEqual([]);
    return queue;
  }

  it("lists the dead letters with why each is there, and leaves them in place", async () => {
    const queue = await deadLettered();
    const run = capture({ DIGEST_DLQ_URL: "https://sqs.example/dlq.fifo" });
    const { ops, opened } = context(run, { queue });
    expect(await runOpsCommand(["dlq", "list"], run.io, ops)).toBe(0);
    expect(opened.queues).toEqual([{ dlqUrl: "https://sqs.example/dlq.fifo" }]);
    expect(run.stdout()).toContain("2 dead letters");
    expect(run.stdout()).toContain("valid turn event: its jobs failed");
    expect(run.stdout()).toMatch(/poison: invalid digest job payload: threadId: .*rawToolChars/);

    const again = capture({ DIGEST_DLQ_URL: "https://sqs.example/dlq.fifo" });
    expect(await runOpsCommand(["dlq", "list", "--json"], again.io, context(again, { queue }).ops)).toBe(0);
    expect(
      (JSON.parse(again.stdout()) as { groupId: string }[]).map((letter) => letter.groupId).sort(),
    ).toEqual(["acme:t", "poison"]);
  });

  it("redrives the valid dead letters to the digest queue and keeps poison ones back unless asked", async () => {
    const queue = await deadLettered();
    const run = capture({ DIGEST_DLQ_URL: "dlq", DIGEST_QUEUE_URL: "queue" });
    expect(await runOpsCommand(["dlq", "redrive", "--limit", "5"], run.io, context(run, { queue }).ops)).toBe(
      0,
    );
    expect(run.stdout()).toBe(
      "redrove 1 dead letter to the digest queue\n" +
        "kept back 1 poison dead letter (not a valid turn event): --include-poison redrives it too\n",
    );
    expect((await queue.receive(10)).map((message) => message.groupId)).toEqual(["acme:t"]);
    expect((await queue.deadLetters.receive(10)).map((letter) => letter.groupId)).toEqual(["poison"]);
  });

  it("redrives poison dead letters too with --include-poison", async () => {
    const queue = await deadLettered();
    const run = capture({ DIGEST_DLQ_URL: "dlq", DIGEST_QUEUE_URL: "queue" });
    expect(
      await runOpsCommand(["dlq", "redrive", "--include-poison"], run.io, context(run, { queue }).ops),
    ).toBe(0);
    expect(run.stdout()).toBe("redrove 2 dead letters to the digest queue\n");
    expect(await queue.deadLetters.receive(10)).toEqual([]);
    expect((await queue.receive(10)).map((message) => message.groupId).sort()).toEqual(["acme:t", "poison"]);
  });

  it("keeps back a letter the digest function dead-lettered as poison, by its recorded reason", async () => {
    const queue = createInProcessDigestQueue({ clock: manualClock(NOW) });
    const valid = JSON.stringify({
      orgId: "acme",
      threadId: "t",
      rawToolChars: 1,
      turnEndedAt: NOW.toISOString(),
    });
    await queue.deadLetters.send(
      { body: valid, groupId: "acme:t", deduplicationId: "a" },
      "turn ends ahead of the clock",
      "m1",
    );
    const listing = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(await runOpsCommand(["dlq", "list"], listing.io, context(listing, { queue }).ops)).toBe(0);
    expect(listing.stdout()).toContain("poison: turn ends ahead of the clock");
    const run = capture({ DIGEST_DLQ_URL: "dlq", DIGEST_QUEUE_URL: "queue" });
    expect(await runOpsCommand(["dlq", "redrive"], run.io, context(run, { queue }).ops)).toBe(0);
    expect(run.stdout()).toContain("redrove 0 dead letters");
    expect(await queue.receive(10)).toEqual([]);
  });

  it("lists and redrives a letter the digest function dead-lettered because its job failed for good, as a valid event", async () => {
    const queue = createInProcessDigestQueue({ clock: manualClock(NOW) });
    const valid = JSON.stringify({
      orgId: "acme",
      threadId: "t",
      rawToolChars: 1,
      turnEndedAt: NOW.toISOString(),
    });
    await queue.deadLetters.send(
      { body: valid, groupId: "acme:t", deduplicationId: "a" },
      "job failed for good: invalid_storage_input: Invalid tool_call_id: is too long",
      "m1",
    );
    const listing = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(await runOpsCommand(["dlq", "list"], listing.io, context(listing, { queue }).ops)).toBe(0);
    expect(listing.stdout()).toContain(
      "valid turn event: job failed for good: invalid_storage_input: Invalid tool_call_id: is too long",
    );
    const run = capture({ DIGEST_DLQ_URL: "dlq", DIGEST_QUEUE_URL: "queue" });
    expect(await runOpsCommand(["dlq", "redrive"], run.io, context(run, { queue }).ops)).toBe(0);
    expect(run.stdout()).toContain("redrove 1 dead letter");
  });

  it("redrives every dead letter of a thread, past one receive's worth and past a poison letter at its head", async () => {
    // Dead-lettered by the redrive policy, in send order: a poison body, then 14 valid turns.
    const queue = createInProcessDigestQueue({ clock: manualClock(NOW), maxReceiveCount: 1 });
    await queue.send({ body: "{not json", groupId: "acme:t", deduplicationId: "p" });
    for (let turn = 0; turn < 14; turn += 1) {
      const body = JSON.stringify({
        orgId: "acme",
        threadId: "t",
        rawToolChars: 200_000,
        turnEndedAt: new Date(NOW.getTime() - (14 - turn) * 60_000).toISOString(),
      });
      await queue.send({ body, groupId: "acme:t", deduplicationId: `d${turn}` });
    }
    for (let batch = await queue.receive(10); batch.length > 0; batch = await queue.receive(10)) {
      for (const message of batch) await queue.changeVisibility(message.receiptHandle, 0);
    }
    const run = capture({ DIGEST_DLQ_URL: "dlq", DIGEST_QUEUE_URL: "queue" });
    expect(await runOpsCommand(["dlq", "redrive"], run.io, context(run, { queue }).ops)).toBe(0);
    expect(run.stdout()).toContain("redrove 14 dead letters");
    const redriven: string[] = [];
    for (let batch = await queue.receive(10); batch.length > 0; batch = await queue.receive(10)) {
      for (const message of batch) {
        redriven.push(message.body);
        await queue.delete(message.receiptHandle);
      }
    }
    expect(redriven.map((body) => JSON.parse(body).turnEndedAt)).toEqual(
      [...redriven.map((body) => JSON.parse(body).turnEndedAt)].sort(),
    );
    expect(redriven).toHaveLength(14);
    expect((await queue.deadLetters.receive(10)).map((letter) => letter.body)).toEqual(["{not json"]);
  });

  it("says how many dead letters wait behind those it lists", async () => {
    const queue = createInProcessDigestQueue({ clock: manualClock(NOW) });
    for (let turn = 0; turn < 12; turn += 1) {
      await queue.deadLetters.send(
        { body: `{"n":${turn}}`, groupId: "acme:t", deduplicationId: `d${turn}` },
        "x",
        `m${turn}`,
      );
    }
    const run = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(await runOpsCommand(["dlq", "list"], run.io, context(run, { queue }).ops)).toBe(0);
    expect(run.stdout()).toContain("10 dead letters");
    expect(run.stdout()).toContain("2 more wait behind them in their threads' groups");
    const limited = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(
      await runOpsCommand(["dlq", "list", "--limit", "3"], limited.io, context(limited, { queue }).ops),
    ).toBe(0);
    expect(limited.stdout()).toContain("3 dead letters");
    expect(limited.stdout()).toContain("9 more not shown");
    // Released after listing.
    expect(await queue.deadLetters.receive(10)).toHaveLength(10);
  });

  it("refuses a redrive without the queue URL before touching the dead letters", async () => {
    const queue = await deadLettered();
    const run = capture({ DIGEST_DLQ_URL: "dlq" });
    const { ops, opened } = context(run, { queue });
    expect(await runOpsCommand(["dlq", "redrive"], run.io, ops)).toBe(2);
    expect(run.stderr()).toContain("--queue-url or DIGEST_QUEUE_URL");
    expect(opened.queues).toEqual([]);
    expect(await queue.deadLetters.receive(10)).toHaveLength(2);
  });

  it("needs an action and the queue URLs", async () => {
    const noAction = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(await runOpsCommand(["dlq"], noAction.io, context(noAction).ops)).toBe(2);
    const noUrl = capture();
    expect(await runOpsCommand(["dlq", "list"], noUrl.io, context(noUrl).ops)).toBe(2);
    expect(noUrl.stderr()).toContain("--dlq-url or DIGEST_DLQ_URL");
    const redriveNoQueue = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(await runOpsCommand(["dlq", "redrive"], redriveNoQueue.io, context(redriveNoQueue).ops)).toBe(2);
    expect(redriveNoQueue.stderr()).toContain("--queue-url or DIGEST_QUEUE_URL");
    const listPoison = capture({ DIGEST_DLQ_URL: "dlq" });
    expect(
      await runOpsCommand(["dlq", "list", "--include-poison"], listPoison.io, context(listPoison).ops),
    ).toBe(2);
  });
});

describe("context-cleaner sweep", () => {
  // A thread of its own: the purge above marked acme/lease purged, which the sweep leaves alone.
  beforeAll(async () => {
    await recordPassAt("acme", "deed", {
      status: "partial",
      reason: "call_cap",
      turnEndedAt: new Date("2026-11-30T10:00:00Z"),
      at: new Date("2026-11-30T10:01:00Z"),
    });
    // Left behind on a turn long past: given up, not enqueued.
    await recordPassAt("acme", "abandoned", {
      status: "failed",
      turnEndedAt: new Date("2026-11-01T10:00:00Z"),
      at: new Date("2026-11-29T10:00:00Z"),
    });
  });
  const lost: ActiveThread = {
    orgId: "globex",
    threadId: "lost",
    lastActivityAt: new Date("2026-11-30T20:00:00Z"),
  };

  it("--dry-run says what it would enqueue, left behind and lost, and sends nothing", async () => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      CHECKPOINT_DATABASE_URL: "postgres://reader@x/agent",
    });
    const { ops, opened, queue } = context(run, { active: [lost] });
    expect(await runOpsCommand(["sweep", "--dry-run"], run.io, ops)).toBe(0);
    expect(run.stdout()).toContain("sweep would enqueue 2 threads");
    expect(run.stdout()).toContain("given up (left behind too many nights; back at a new turn): 1");
    expect(run.stdout()).not.toContain("abandoned");
    // Retried longer, it is enqueued again.
    const patient = capture({ DATABASE_URL: "postgres://x/y" });
    expect(
      await runOpsCommand(
        ["sweep", "--dry-run", "--give-up-after-nights", "60"],
        patient.io,
        context(patient).ops,
      ),
    ).toBe(0);
    expect(patient.stdout()).toContain("acme/abandoned  failed  turn 2026-11-01T10:00:00.000Z");
    expect(patient.stdout()).not.toContain("given up");
    // The nightly function's variable sets it too, and the flag wins over it.
    const configured = capture({ DATABASE_URL: "postgres://x/y", SWEEP_GIVE_UP_AFTER_NIGHTS: "60" });
    expect(await runOpsCommand(["sweep", "--dry-run"], configured.io, context(configured).ops)).toBe(0);
    expect(configured.stdout()).toContain("acme/abandoned  failed  turn 2026-11-01T10:00:00.000Z");
    const flagged = capture({ DATABASE_URL: "postgres://x/y", SWEEP_GIVE_UP_AFTER_NIGHTS: "60" });
    expect(
      await runOpsCommand(
        ["sweep", "--dry-run", "--give-up-after-nights", "5"],
        flagged.io,
        context(flagged).ops,
      ),
    ).toBe(0);
    expect(flagged.stdout()).not.toContain("abandoned");
    const wrong = capture({ DATABASE_URL: "postgres://x/y", SWEEP_GIVE_UP_AFTER_NIGHTS: "soon" });
    expect(await runOpsCommand(["sweep", "--dry-run"], wrong.io, context(wrong).ops)).toBe(2);
    expect(wrong.stderr()).toContain(
      '--give-up-after-nights (or SWEEP_GIVE_UP_AFTER_NIGHTS) must be a whole number of at least 1, got "soon"',
    );
    expect(run.stdout()).toContain("acme/deed  partial  turn 2026-11-30T10:00:00.000Z");
    expect(run.stdout()).toContain("globex/lost  lost_event  turn 2026-11-30T20:00:00.000Z");
    expect(opened.queues).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);
  });

  it("leaves passes of the settle window alone, 15 minutes unless --settle-minutes or SWEEP_SETTLE_MINUTES says", async () => {
    await recordPassAt("acme", "recent", {
      status: "failed",
      turnEndedAt: new Date(NOW.getTime() - 6 * 60_000),
      at: new Date(NOW.getTime() - 5 * 60_000),
    });
    const settled = capture({ DATABASE_URL: "postgres://x/y" });
    expect(await runOpsCommand(["sweep", "--dry-run"], settled.io, context(settled).ops)).toBe(0);
    expect(settled.stdout()).not.toContain("acme/recent");
    const flagged = capture({ DATABASE_URL: "postgres://x/y" });
    expect(
      await runOpsCommand(["sweep", "--dry-run", "--settle-minutes", "1"], flagged.io, context(flagged).ops),
    ).toBe(0);
    expect(flagged.stdout()).toContain("acme/recent  failed");
    const configured = capture({ DATABASE_URL: "postgres://x/y", SWEEP_SETTLE_MINUTES: "0" });
    expect(await runOpsCommand(["sweep", "--dry-run"], configured.io, context(configured).ops)).toBe(0);
    expect(configured.stdout()).toContain("acme/recent  failed");
    await repository.recordPass("acme", "recent", {
      status: "done",
      turnEndedAt: new Date(NOW.getTime() - 6 * 60_000),
      at: new Date(NOW.getTime() - 5 * 60_000),
    });
  });

  it("answers --help with its usage and every setting it reads", async () => {
    const run = capture();
    expect(await runOpsCommand(["sweep", "--help"], run.io, context(run).ops)).toBe(0);
    expect(run.stdout()).toContain("Usage: context-cleaner sweep");
    for (const name of [
      "--database-url / DATABASE_URL",
      "--settle-minutes / SWEEP_SETTLE_MINUTES",
      "--max-threads",
    ])
      expect(run.stdout()).toContain(name);
  });

  it("reads a count flag as the function reads its variable: decimal digits only", async () => {
    for (const [flag, value] of [
      ["--max-threads", "1e3"],
      ["--max-threads", "0x10"],
      ["--give-up-after-nights", "2.0"],
      ["--give-up-after-nights", "0"],
    ] as const) {
      const run = capture({ DATABASE_URL: "postgres://x/y" });
      expect(await runOpsCommand(["sweep", "--dry-run", flag, value], run.io, context(run).ops)).toBe(2);
      expect(run.stderr()).toContain(`must be a whole number of at least 1, got ${JSON.stringify(value)}`);
      expect(run.stderr()).toContain(`${flag} (or SWEEP_`);
    }
    const spaced = capture({ DATABASE_URL: "postgres://x/y" });
    expect(
      await runOpsCommand(
        ["sweep", "--dry-run", "--max-threads", " 25 ", "--json"],
        spaced.io,
        context(spaced).ops,
      ),
    ).toBe(0);
  });

  it("without --dry-run, sends each job with the publisher's ids", async () => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      DIGEST_QUEUE_URL: "http://127.0.0.1:4566/0/digest.fifo",
    });
    const { ops, queue } = context(run);
    expect(await runOpsCommand(["sweep", "--json"], run.io, ops)).toBe(0);
    expect(JSON.parse(run.stdout())).toMatchObject({ dryRun: false, failed: 0, byReason: { partial: 1 } });
    const [message] = await queue.receive(10);
    expect(message?.groupId).toBe(turnEventGroupId("acme", "deed"));
    expect(message?.deduplicationId).toBe(
      turnEventDeduplicationId("acme", "deed", "2026-11-30T10:00:00.000Z"),
    );
  });

  it("reads threads' owners as the function does: THREAD_OWNER_SOURCE=table passes over a thread its org does not own", async () => {
    const environment = { DATABASE_URL: "postgres://x/y", THREAD_OWNER_SOURCE: "table" };
    const unowned = capture(environment);
    expect(await runOpsCommand(["sweep", "--dry-run", "--json"], unowned.io, context(unowned).ops)).toBe(0);
    expect(JSON.parse(unowned.stdout())).toMatchObject({ threads: [], notOwned: 1 });

    await repository.recordThreadOwner("acme", "deed");
    const owned = capture(environment);
    expect(await runOpsCommand(["sweep", "--dry-run", "--json"], owned.io, context(owned).ops)).toBe(0);
    expect(JSON.parse(owned.stdout())).toMatchObject({
      notOwned: 0,
      threads: [{ orgId: "acme", threadId: "deed" }],
    });

    const refused = capture(environment);
    expect(
      await runOpsCommand(["sweep", "--thread-owner", "metadata"], refused.io, context(refused).ops),
    ).toBe(2);
    expect(refused.stderr()).toContain(
      "--thread-owner (or THREAD_OWNER_SOURCE) must be one of checkpoint, table",
    );
  });

  it("reads the app's message table as the function does: its directory and its org column", async () => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      CHECKPOINT_DATABASE_URL: "postgres://reader@x/agent",
      CHECKPOINT_MESSAGE_TABLE: "app.thread_messages",
      CHECKPOINT_ORG_ID_COLUMN: "org",
      CHECKPOINT_UPDATED_AT_COLUMN: "updated_at",
    });
    const { ops, opened } = context(run, { active: [lost] });
    const owners: Parameters<NonNullable<OpsContext["openThreadOwner"]>>[0][] = [];
    ops.openThreadOwner = async (tables) => {
      owners.push(tables);
      return { ownerOf: async () => ({ status: "owned", orgId: "globex" }), close: async () => {} };
    };
    expect(await runOpsCommand(["sweep", "--dry-run", "--json"], run.io, ops)).toBe(0);
    const tables = {
      url: "postgres://reader@x/agent",
      messageTable: { table: "app.thread_messages", orgIdColumn: "org", updatedAtColumn: "updated_at" },
    };
    expect(opened.directories).toEqual([tables]);
    expect(owners).toEqual([tables]);
    expect(JSON.parse(run.stdout()).threads).toContainEqual(
      expect.objectContaining({ orgId: "globex", threadId: "lost", reason: "lost_event" }),
    );
  });

  it("without the message table's org and updated-at columns, looks for no lost events, and says so", async () => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      CHECKPOINT_DATABASE_URL: "postgres://reader@x/agent",
      CHECKPOINT_MESSAGE_TABLE: "thread_messages",
      THREAD_OWNER_SOURCE: "table",
    });
    const { ops, opened } = context(run, { active: [lost] });
    expect(await runOpsCommand(["sweep", "--dry-run"], run.io, ops)).toBe(0);
    expect(opened.directories).toEqual([]);
    expect(run.stdout()).not.toContain("globex/lost");
    expect(run.stderr()).toContain("the message table names no org or updated-at column");
  });

  it.each([
    [{ CHECKPOINT_ORG_ID_COLUMN: "org" }, "CHECKPOINT_ORG_ID_COLUMN set without CHECKPOINT_MESSAGE_TABLE"],
    [
      { CHECKPOINT_MESSAGE_TABLE: "thread_messages", CHECKPOINT_THREAD_ID_COLUMN: "thread-id" },
      "CHECKPOINT_THREAD_ID_COLUMN must be a plain identifier",
    ],
  ])("refuses a bad message-table setting %# before opening anything", async (settings, message) => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      DIGEST_QUEUE_URL: "queue",
      CHECKPOINT_DATABASE_URL: "postgres://reader@x/agent",
      ...settings,
    });
    const { ops, opened } = context(run);
    expect(await runOpsCommand(["sweep"], run.io, ops)).toBe(2);
    expect(run.stderr()).toContain(message);
    expect(opened).toEqual({ databases: [], queues: [], directories: [] });
  });

  it("sends to the queue at the SQS-compatible endpoint it is given", async () => {
    const run = capture({
      DATABASE_URL: "postgres://x/y",
      DIGEST_QUEUE_URL: "http://127.0.0.1:4566/000000000000/digest.fifo",
      AWS_ENDPOINT_URL_SQS: "http://127.0.0.1:4566",
    });
    const { ops, opened } = context(run);
    expect(await runOpsCommand(["sweep", "--region", "eu-west-1"], run.io, ops)).toBe(0);
    expect(opened.queues).toEqual([
      {
        queueUrl: "http://127.0.0.1:4566/000000000000/digest.fifo",
        endpoint: "http://127.0.0.1:4566",
        region: "eu-west-1",
      },
    ]);
  });
});

describe("main dispatches the operations commands", () => {
  it("runs them with its own io, and lists them in help", async () => {
    const missing = capture();
    expect(await main(["purge", "--org", "acme"], missing.io)).toBe(2);
    expect(missing.stderr()).toBe("context-cleaner: purge needs --thread\n");
    const noQueue = capture({ DATABASE_URL: "postgres://x/y" });
    expect(await main(["sweep"], noQueue.io)).toBe(2);
    expect(noQueue.stderr()).toContain("--queue-url or DIGEST_QUEUE_URL");
    const help = capture();
    expect(await main(["help"], help.io)).toBe(0);
    expect(help.stdout()).toContain("context-cleaner purge --org <org> --thread <thread>");
  });
});
