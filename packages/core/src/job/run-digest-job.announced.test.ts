import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { type ManualClock, manualClock } from "#test/core/fakes/manual-clock";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { CheckpointReader, DigestModel, Logger, Metric } from "../ports";
import type { JobDelivery } from "./job-context";
import type { DigestJobPayload } from "./payload";
import { runDigestJob } from "./run-digest-job";

// Two turns of one thread: turn 1 reads the lease, turn 2 the credit agreement.
const fixture = buildHeavyThread({
  name: "announced-turns",
  seed: 23,
  titles: ["Ground Lease — 445 W 35th", "Credit Agreement"],
  documentChars: 180_000,
  pageChars: 15_000,
});
const messages: Message[] = fixture.messages.map((message, index) => ({ ...message, id: `m${index}` }));
const userAt = messages.flatMap((message, index) => (message.role === "user" ? [index] : []));
/** Turn 1: up to the second user message; the thread: up to the third (turns 1 and 2). */
const turn1 = messages.slice(0, userAt[1]);
const thread = messages.slice(0, userAt[2]);
const rawChars = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + (message.role === "tool" ? String(message.content).length : 0), 0);

const storage = usePgliteRepository();
let threads = 0;

/** A thread whose checkpoint the test moves on, as a runtime writing it late would. */
function setup(start = new Date("2026-11-30T10:00:05.000Z")) {
  const threadId = `announced-${++threads}`;
  const orgId = `org-announced-${threads}`;
  const checkpoint: { messages: Message[] | null } = { messages: null };
  const reads: (number | null)[] = [];
  const checkpoints: CheckpointReader = {
    async readThread() {
      reads.push(checkpoint.messages?.length ?? null);
      return checkpoint.messages ? [...checkpoint.messages] : null;
    },
  };
  const calls: string[] = [];
  const extractive = createExtractiveDigester();
  const digester: DigestModel = {
    id: "recording",
    async digest(request) {
      calls.push(...request.pages.map((page) => page.toolCallId));
      return extractive.digest(request);
    },
  };
  const clock: ManualClock = manualClock(start);
  const metrics: Metric[] = [];
  const warnings: string[] = [];
  const logger: Logger = { warn: (message) => warnings.push(message) };
  const ports = {
    checkpoints,
    store: storage.repository,
    digester,
    clock,
    logger,
    metrics: { record: (metric: Metric) => metrics.push(metric) },
  };
  const event = (messages: readonly Message[], turnEndedAt: string): DigestJobPayload => ({
    orgId,
    threadId,
    rawToolChars: rawChars(messages),
    turnEndedAt,
    messageCount: messages.length,
    lastMessageId: messages.at(-1)?.id as string,
  });
  const run = (payload: DigestJobPayload, delivery: JobDelivery) =>
    runDigestJob(payload, ports, {}, delivery);
  return { orgId, threadId, checkpoint, reads, calls, clock, metrics, warnings, event, run };
}

const count = (metrics: readonly Metric[], name: string) =>
  metrics.filter((metric) => metric.name === name).reduce((sum, metric) => sum + metric.value, 0);

describe("runDigestJob: an event that announces its turn", () => {
  it("is handed back, with nothing recorded or paid, while the checkpoint does not show its turn", async () => {
    const job = setup();
    const queuedAt = new Date("2026-11-30T10:00:00.100Z");
    const event = job.event(turn1, "2026-11-30T10:00:00.000Z");
    // The runtime published before its last checkpoint: the store holds the turn but its answer.
    job.checkpoint.messages = turn1.slice(0, -1);

    const waiting = await job.run(event, { queuedAt, mayWaitForCheckpoint: true });
    expect(waiting).toMatchObject({ status: "skipped", reason: "checkpoint_behind", requeueAfterSeconds: 3 });
    expect(job.calls).toEqual([]);
    expect((await storage.repository.loadThreadDigests(job.orgId, job.threadId)).size).toBe(0);
    const pass = await storage.repository.getPass(job.orgId, job.threadId);
    expect(pass?.coveredTurnEndedAt ?? null).toBeNull();
    // Its lease is released: another run takes the thread at once.
    expect(
      await storage.repository.claimThread(job.orgId, job.threadId, {
        owner: "next",
        at: queuedAt,
        leaseMs: 1,
      }),
    ).toMatchObject({ claimed: true });
    await storage.repository.releaseThread(job.orgId, job.threadId, "next");

    // No checkpoint at all yet: a wait too, never a `no_checkpoint` pass.
    job.checkpoint.messages = null;
    expect(await job.run(event, { queuedAt, mayWaitForCheckpoint: true })).toMatchObject({
      reason: "checkpoint_behind",
    });
    expect(await storage.repository.getPass(job.orgId, job.threadId)).not.toMatchObject({
      reason: "no_checkpoint",
    });

    // The checkpoint is written: the next try digests the turn and covers its event.
    job.checkpoint.messages = turn1;
    job.clock.advance(3);
    const done = await job.run(event, { queuedAt, mayWaitForCheckpoint: true });
    expect(done.status).toBe("done");
    expect(job.calls.length).toBeGreaterThan(0);
    expect(job.reads).toEqual([turn1.length - 1, null, turn1.length]);
    expect(count(job.metrics, "SkippedJobs")).toBe(2);
    expect(job.metrics).toContainEqual({
      name: "SkippedJobs",
      value: 1,
      unit: "Count",
      dimensions: { reason: "checkpoint_behind" },
    });
  });

  it("on its last try goes on with the checkpoint as it is, and covers nothing: the turn stays for the sweep", async () => {
    const job = setup();
    const event = job.event(thread, "2026-11-30T10:00:00.000Z");
    job.checkpoint.messages = turn1;

    const outcome = await job.run(event, { queuedAt: new Date("2026-11-30T10:00:00.100Z") });
    expect(outcome.status).toBe("done");
    expect(outcome.digestsWritten).toBeGreaterThan(0);
    expect(count(job.metrics, "CheckpointWaitsCapped")).toBe(1);
    expect(job.warnings).toEqual([
      "the checkpoint does not show the announced turn: the pass goes on without it",
    ]);
    expect(await storage.repository.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "done",
      coveredTurnEndedAt: null,
      latestTurnEndedAt: new Date("2026-11-30T10:00:00.000Z"),
    });
    const leftBehind = await storage.repository.listLeftBehind({ limit: 1000 });
    expect(leftBehind.threads.find((found) => found.threadId === job.threadId)).toMatchObject({
      reason: "active_since_pass",
    });
  });

  it("covers the events queued up to its own, not a later one whose checkpoint the pass may not have read", async () => {
    // Turn 1's event is queued; turn 2's is queued 2 s later, before turn 2's checkpoint is
    // written; turn 1's job starts after both (its event had been handed back).
    const job = setup(new Date("2026-11-30T10:00:05.000Z"));
    const first = job.event(turn1, "2026-11-30T10:00:00.000Z");
    const second = job.event(thread, "2026-11-30T10:00:02.000Z");
    job.checkpoint.messages = turn1;

    expect((await job.run(first, { queuedAt: new Date("2026-11-30T10:00:00.100Z") })).status).toBe("done");
    expect((await storage.repository.getPass(job.orgId, job.threadId))?.coveredTurnEndedAt).toEqual(
      new Date("2026-11-30T10:00:00.101Z"),
    );
    const turn1Calls = job.calls.length;

    // A redelivery of turn 1's event is covered; turn 2's is not, and its pass digests turn 2.
    expect(await job.run(first, { queuedAt: new Date("2026-11-30T10:00:00.100Z") })).toMatchObject({
      reason: "nothing_new",
    });
    job.checkpoint.messages = thread;
    job.clock.advance(1);
    const later = await job.run(second, { queuedAt: new Date("2026-11-30T10:00:02.100Z") });
    expect(later.status).toBe("done");
    expect(job.calls.length).toBeGreaterThan(turn1Calls);
  });

  it("an event without an announcement is read at once and covers the worker's time at the start, as before", async () => {
    const job = setup(new Date("2026-11-30T10:00:05.000Z"));
    const {
      messageCount: _count,
      lastMessageId: _id,
      ...unannounced
    } = job.event(thread, "2026-11-30T10:00:00.000Z");
    job.checkpoint.messages = turn1;
    const outcome = await job.run(unannounced, {
      queuedAt: new Date("2026-11-30T10:00:00.100Z"),
      mayWaitForCheckpoint: true,
    });
    expect(outcome.status).toBe("done");
    expect((await storage.repository.getPass(job.orgId, job.threadId))?.coveredTurnEndedAt).toEqual(
      new Date("2026-11-30T10:00:05.000Z"),
    );
  });
});
