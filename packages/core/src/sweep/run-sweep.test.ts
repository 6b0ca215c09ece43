import { InvalidOptionError } from "@context-cleaner/assembler";
import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import { beforeAll, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import type { ActiveThread, Metric, ThreadDirectory } from "../ports";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { runSweep } from "./run-sweep";

const NOW = new Date("2026-12-01T03:00:00Z");
const hoursAgo = (hours: number) => new Date(NOW.getTime() - hours * 3_600_000);

const storage = usePgliteRepository();

/** A directory over a fixed list, paged like the real one. */
function listDirectory(threads: ActiveThread[]): ThreadDirectory & { pages: number } {
  const directory = {
    pages: 0,
    async listActiveThreads({
      since,
      limit = 100,
      cursor,
    }: {
      since: Date;
      limit?: number;
      cursor?: string | null;
    }) {
      directory.pages += 1;
      const active = threads
        .filter((thread) => thread.lastActivityAt >= since)
        .sort((a, b) => a.threadId.localeCompare(b.threadId));
      const start = cursor ? Number(cursor) : 0;
      const page = active.slice(start, start + limit);
      return { threads: page, nextCursor: start + limit < active.length ? String(start + limit) : null };
    },
  };
  return directory;
}

beforeAll(async () => {
  // The org's passes: three left behind, one clean, one too recent to touch.
  await storage.recordPassAt("acme", "locked", {
    status: "skipped",
    reason: "turn_lock",
    turnEndedAt: hoursAgo(5),
    at: hoursAgo(5),
  });
  await storage.recordPassAt("acme", "failed", {
    status: "failed",
    turnEndedAt: hoursAgo(6),
    at: hoursAgo(6),
  });
  await storage.recordPassAt("acme", "no-turn", {
    status: "partial",
    reason: "call_cap",
    at: hoursAgo(7),
  });
  await storage.recordPassAt("acme", "clean", {
    status: "done",
    coveredTurnEndedAt: hoursAgo(4),
    at: hoursAgo(4),
  });
  await storage.recordPassAt("acme", "just-now", {
    status: "skipped",
    reason: "turn_lock",
    turnEndedAt: new Date(NOW.getTime() - 60_000),
    at: new Date(NOW.getTime() - 60_000),
  });
});

const directoryThreads: ActiveThread[] = [
  { orgId: "acme", threadId: "clean", lastActivityAt: hoursAgo(4) },
  { orgId: "acme", threadId: "lost", lastActivityAt: hoursAgo(3) },
  { orgId: "globex", threadId: "clean", lastActivityAt: hoursAgo(2) },
  { orgId: "acme", threadId: "busy", lastActivityAt: new Date(NOW.getTime() - 5 * 60_000) },
  { orgId: "acme", threadId: "old", lastActivityAt: hoursAgo(72) },
];

describe("runSweep", () => {
  it("enqueues threads left behind and threads whose event was lost, with the publisher's ids", async () => {
    const clock = manualClock(NOW);
    const queue = createInProcessDigestQueue({ clock });
    const metrics: Metric[] = [];
    const report = await runSweep(
      {
        store: storage.repository,
        queue,
        directory: listDirectory(directoryThreads),
        clock,
        metrics: { record: (metric) => metrics.push(metric) },
      },
      { pageSize: 2 },
    );

    expect(report.threads.map((thread) => `${thread.orgId}/${thread.threadId}:${thread.reason}`)).toEqual([
      // Oldest record first.
      "acme/no-turn:partial",
      "acme/failed:failed",
      "acme/locked:turn_lock",
      // The directory pages by thread id.
      "globex/clean:lost_event",
      "acme/lost:lost_event",
    ]);
    expect(report).toMatchObject({
      failed: 0,
      truncated: false,
      dryRun: false,
      byReason: { failed: 1, turn_lock: 1, partial: 1, lost_event: 2 },
    });
    const locked = report.threads.find((thread) => thread.threadId === "locked");
    expect(locked?.turnEndedAt).toBe(hoursAgo(5).toISOString());
    // No turn on the pass record: the time it was recorded stands in.
    expect(report.threads.find((thread) => thread.threadId === "no-turn")?.turnEndedAt).toBe(
      hoursAgo(7).toISOString(),
    );

    const received = await queue.receive(10);
    expect(received).toHaveLength(5);
    const lockedMessage = received.find((message) => JSON.parse(message.body).threadId === "locked");
    expect(JSON.parse(lockedMessage?.body ?? "{}")).toEqual({
      orgId: "acme",
      threadId: "locked",
      rawToolChars: 120_000,
      turnEndedAt: hoursAgo(5).toISOString(),
    });
    expect(lockedMessage?.groupId).toBe(turnEventGroupId("acme", "locked"));
    expect(lockedMessage?.deduplicationId).toBe(turnEventDeduplicationId("acme", "locked", hoursAgo(5)));
    expect(metrics).toContainEqual({
      name: "SweptThreads",
      value: 1,
      unit: "Count",
      dimensions: { reason: "lost_event" },
    });

    // A retried sweep inside the deduplication window sends nothing new.
    const again = await runSweep({
      store: storage.repository,
      queue,
      directory: listDirectory(directoryThreads),
      clock,
    });
    expect(again.threads.map((thread) => thread.messageId)).toEqual(
      report.threads.map((thread) => thread.messageId),
    );
    for (const message of received) await queue.delete(message.receiptHandle);
    expect(await queue.receive(10)).toEqual([]);
  });

  it("reports what it would enqueue on a dry run, and sends nothing", async () => {
    const clock = manualClock(NOW);
    const queue = createInProcessDigestQueue({ clock });
    const report = await runSweep(
      { store: storage.repository, queue, directory: listDirectory(directoryThreads), clock },
      { dryRun: true },
    );
    expect(report.threads).toHaveLength(5);
    expect(report.threads.every((thread) => thread.messageId === undefined)).toBe(true);
    expect(await queue.receive(10)).toEqual([]);
  });

  it("stops at maxThreads and says so", async () => {
    const clock = manualClock(NOW);
    const report = await runSweep({ store: storage.repository, clock }, { dryRun: true, maxThreads: 2 });
    expect(report.threads.map((thread) => thread.threadId)).toEqual(["no-turn", "failed"]);
    expect(report.truncated).toBe(true);
  });

  it("gives each scan its share of maxThreads, so threads left behind cannot starve lost events", async () => {
    const clock = manualClock(NOW);
    const swept = (report: { threads: { orgId: string; threadId: string }[] }) =>
      report.threads.map((thread) => `${thread.orgId}/${thread.threadId}`);
    // Three left behind, two lost: half each.
    const halves = await runSweep(
      { store: storage.repository, directory: listDirectory(directoryThreads), clock },
      { dryRun: true, maxThreads: 4 },
    );
    expect(swept(halves)).toEqual(["acme/no-turn", "acme/failed", "globex/clean", "acme/lost"]);
    expect(halves.truncated).toBe(true);
    // One lost event: the share it leaves passes back to the threads left behind.
    const oneLost = await runSweep(
      { store: storage.repository, directory: listDirectory([directoryThreads[1] as ActiveThread]), clock },
      { dryRun: true, maxThreads: 4 },
    );
    expect(swept(oneLost)).toEqual(["acme/no-turn", "acme/failed", "acme/lost", "acme/locked"]);
    expect(oneLost.truncated).toBe(false);
    // Fewer left behind than their share: the lost-event scan takes the rest.
    const manyLost = Array.from({ length: 6 }, (_, index) => ({
      orgId: "umbrella",
      threadId: `lost-${index}`,
      lastActivityAt: hoursAgo(3),
    }));
    const rest = await runSweep(
      { store: storage.repository, directory: listDirectory(manyLost), clock },
      { dryRun: true, maxThreads: 8, pageSize: 2 },
    );
    expect(rest.byReason).toEqual({ partial: 1, failed: 1, turn_lock: 1, lost_event: 5 });
    expect(rest.truncated).toBe(true);
  });

  it("counts a failed send and goes on with the rest", async () => {
    const clock = manualClock(NOW);
    let sends = 0;
    const queue = {
      async send() {
        sends += 1;
        if (sends === 1) throw new Error("SQS unreachable");
        return { messageId: `m-${sends}` };
      },
    };
    const report = await runSweep({ store: storage.repository, queue, clock });
    expect(report.failed).toBe(1);
    expect(report.threads[0]).toMatchObject({ threadId: "no-turn", error: "SQS unreachable" });
    expect(report.threads.slice(1).map((thread) => thread.messageId)).toEqual(["m-2", "m-3"]);
    expect(report.byReason).toEqual({ failed: 1, turn_lock: 1 });
  });

  it("needs a queue unless it is a dry run, and sane bounds", async () => {
    const clock = manualClock(NOW);
    await expect(runSweep({ store: storage.repository, clock })).rejects.toBeInstanceOf(InvalidOptionError);
    await expect(
      runSweep({ store: storage.repository, clock }, { dryRun: true, maxPages: 0 }),
    ).rejects.toThrow(/maxPages/);
  });
});

describe("runSweep: lost events of threads that had a pass", () => {
  it("enqueues a thread whose checkpoint activity is later than its pass record covers", async () => {
    const clock = manualClock(NOW);
    // Covered up to 10 h ago; the checkpoint store saw turns 3 h ago whose events never came.
    await storage.recordPassAt("initech", "long", {
      status: "done",
      coveredTurnEndedAt: hoursAgo(10),
      at: hoursAgo(10),
    });
    // Its pass saw the latest activity: nothing was lost.
    await storage.recordPassAt("initech", "current", {
      status: "done",
      coveredTurnEndedAt: hoursAgo(3),
      at: hoursAgo(3),
    });
    const report = await runSweep(
      {
        store: storage.repository,
        directory: listDirectory([
          { orgId: "initech", threadId: "long", lastActivityAt: hoursAgo(3) },
          { orgId: "initech", threadId: "current", lastActivityAt: hoursAgo(3) },
        ]),
        clock,
      },
      { dryRun: true },
    );
    const initech = report.threads.filter((thread) => thread.orgId === "initech");
    expect(initech).toEqual([
      { orgId: "initech", threadId: "long", reason: "lost_event", turnEndedAt: hoursAgo(3).toISOString() },
    ]);
  });

  it("does not enqueue a thread twice in one run when both scans find it", async () => {
    const clock = manualClock(NOW);
    // Left behind (failed 6 h ago) and active later than that: one job, from the first scan.
    const report = await runSweep(
      {
        store: storage.repository,
        directory: listDirectory([{ orgId: "acme", threadId: "failed", lastActivityAt: hoursAgo(2) }]),
        clock,
      },
      { dryRun: true },
    );
    expect(report.threads.filter((thread) => thread.threadId === "failed")).toEqual([
      { orgId: "acme", threadId: "failed", reason: "failed", turnEndedAt: hoursAgo(6).toISOString() },
    ]);
  });
});

describe("runSweep: with a thread owner", () => {
  it("enqueues each thread under its owner's org, and passes over threads another org owns or nobody does", async () => {
    const clock = manualClock(NOW);
    // A pass record an earlier, unchecked job left under the victim's org for the attacker's thread.
    await storage.recordPassAt("victim", "attacker-thread", {
      status: "failed",
      turnEndedAt: hoursAgo(6),
      at: hoursAgo(6),
    });
    await storage.recordPassAt("hooli", "hooli-failed", {
      status: "failed",
      turnEndedAt: hoursAgo(6),
      at: hoursAgo(6),
    });
    const owners: Record<string, string> = {
      "attacker-thread": "attacker",
      "hooli-failed": "hooli",
      // The directory's metadata says "victim"; the owner table says otherwise.
      "hooli-lost": "hooli",
    };
    const report = await runSweep(
      {
        store: {
          // Only this test's threads: the shared records of the other tests stay out of it.
          listLeftBehind: async (query) => {
            const page = await storage.repository.listLeftBehind(query);
            return { ...page, threads: page.threads.filter((thread) => thread.orgId !== "acme") };
          },
          threadsWithPass: (threads) => storage.repository.threadsWithPass(threads),
          countLeftBehind: (filter) => storage.repository.countLeftBehind(filter),
        },
        directory: listDirectory([
          { orgId: "victim", threadId: "hooli-lost", lastActivityAt: hoursAgo(3) },
          { orgId: "victim", threadId: "nobodys", lastActivityAt: hoursAgo(3) },
        ]),
        threadOwner: {
          ownerOf: async (threadId) => {
            const orgId = owners[threadId];
            return orgId ? { status: "owned", orgId } : { status: "unknown" };
          },
        },
        clock,
      },
      { dryRun: true },
    );
    const swept = report.threads.map((thread) => `${thread.orgId}/${thread.threadId}:${thread.reason}`);
    expect(swept).toContain("hooli/hooli-failed:failed");
    expect(swept).toContain("hooli/hooli-lost:lost_event");
    expect(swept.filter((line) => line.includes("attacker-thread") || line.includes("nobodys"))).toEqual([]);
    expect(report.notOwned).toBe(2);
  });
});
