import { beforeEach, describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { runSweep, type SweepOptions, type SweepPorts, type SweepReport } from "./run-sweep";

const storage = usePgliteRepository();
const DAY = 86_400_000;

// Each test sweeps every org: it starts with no pass records.
beforeEach(async () => {
  await storage.pglite.exec("delete from thread_pass");
});

/** What each swept job does: records a pass (as a failing job does), or nothing. */
type Job = (thread: { orgId: string; threadId: string; turnEndedAt: string }, at: Date) => Promise<void>;

const fails: Job = (thread, at) =>
  storage.recordPassAt(thread.orgId, thread.threadId, {
    status: "failed",
    turnEndedAt: new Date(thread.turnEndedAt),
    at,
  });

/**
 * Runs the sweep on `nights` consecutive nights (03:00 UTC from `first`), each swept job
 * running a minute after the sweep as `job` says; returns each night's report.
 */
async function nightly(
  first: Date,
  nights: number,
  job: (orgId: string) => Job,
  options: SweepOptions,
  ports: Partial<SweepPorts> = {},
): Promise<SweepReport[]> {
  const reports: SweepReport[] = [];
  for (let night = 0; night < nights; night++) {
    const clock = manualClock(new Date(first.getTime() + night * DAY));
    const report = await runSweep(
      { store: storage.repository, clock, ...ports },
      { dryRun: true, ...options },
    );
    const ranAt = new Date(clock.now().getTime() + 60_000);
    for (const thread of report.threads) await job(thread.orgId)(thread, ranAt);
    reports.push(report);
  }
  return reports;
}

/** The night (0-based) each thread was first swept, by "org/thread". */
function firstSwept(reports: readonly SweepReport[]): Map<string, number> {
  const first = new Map<string, number>();
  reports.forEach((report, night) => {
    for (const thread of report.threads) {
      const key = `${thread.orgId}/${thread.threadId}`;
      if (!first.has(key)) first.set(key, night);
    }
  });
  return first;
}

describe("runSweep: every thread left behind is reached within a bounded number of nights", () => {
  it("a thousand always-failing threads of one org do not starve the orgs sorted after them", async () => {
    // Scaled down: 30 always-failing threads of "aaa" ahead of one thread of "zzz", 10 jobs a run.
    const start = new Date("2026-12-10T03:00:00Z");
    const turn = new Date(start.getTime() - 3 * 3_600_000);
    for (let index = 0; index < 30; index++) {
      await storage.recordPassAt("aaa", `t-${String(index).padStart(2, "0")}`, {
        status: "failed",
        turnEndedAt: turn,
        at: turn,
      });
    }
    await storage.recordPassAt("zzz", "only", {
      status: "failed",
      turnEndedAt: turn,
      at: new Date(turn.getTime() + 60_000),
    });

    const reports = await nightly(start, 4, () => fails, { maxThreads: 10 });
    const first = firstSwept(reports);
    // 31 threads, 10 a night: each is reached by the fourth night, and "zzz" on the first,
    // since each org has its share of a run.
    expect(first.size).toBe(31);
    expect(first.get("zzz/only")).toBe(0);
    expect(reports.every((report) => report.threads.length === 10 && report.truncated)).toBe(true);
  });

  it("an org with more failing threads than five runs take does not starve another org's thread", async () => {
    // 60 always-failing threads of "aaa" recorded before one of "zzz", 10 jobs a run: taking
    // the oldest records first, five runs would take aaa's first 50, and zzz's turn would be
    // over five days old (given up) before its turn came.
    const start = new Date("2026-12-12T03:00:00Z");
    const turn = new Date(start.getTime() - 3 * 3_600_000);
    for (let index = 0; index < 60; index++) {
      await storage.recordPassAt("aaa", `t-${String(index).padStart(2, "0")}`, {
        status: "failed",
        turnEndedAt: turn,
        at: turn,
      });
    }
    await storage.recordPassAt("zzz", "only", {
      status: "failed",
      turnEndedAt: turn,
      at: new Date(turn.getTime() + 60_000),
    });
    const reports = await nightly(start, 6, () => fails, { maxThreads: 10 });
    // zzz's thread is retried every night it is not given up (its job fails each time),
    // aaa's threads share the rest of each run.
    expect(reports.map((report) => report.threads.filter((thread) => thread.orgId === "zzz").length)).toEqual(
      [1, 1, 1, 1, 1, 0],
    );
    expect(reports.slice(0, 5).every((report) => report.threads.length === 10)).toBe(true);
    expect(firstSwept(reports).get("zzz/only")).toBe(0);
  });

  it("gives each org its share of a run, and what a small org leaves passes to the others", async () => {
    const start = new Date("2026-12-14T03:00:00Z");
    const turn = new Date(start.getTime() - 3_600_000);
    // Each org's records after all of the one before it.
    const orgs = [
      ["big", 20],
      ["mid", 6],
      ["small", 1],
    ] as const;
    for (const [order, [orgId, count]] of orgs.entries()) {
      for (let index = 0; index < count; index++) {
        await storage.recordPassAt(orgId, `t-${String(index).padStart(2, "0")}`, {
          status: "failed",
          turnEndedAt: turn,
          at: new Date(turn.getTime() + order * 100_000 + index * 1_000),
        });
      }
    }
    const [report] = await nightly(start, 1, () => fails, { maxThreads: 12, pageSize: 5 });
    const perOrg = (orgId: string) => report?.threads.filter((thread) => thread.orgId === orgId).length;
    // 12 jobs among three orgs: small takes its one, mid and big share the rest, by record time.
    expect([perOrg("big"), perOrg("mid"), perOrg("small")]).toEqual([6, 5, 1]);
    expect(
      report?.threads.filter((thread) => thread.orgId === "big").map((thread) => thread.threadId),
    ).toEqual(["t-00", "t-01", "t-02", "t-03", "t-04", "t-05"]);
  });
});

describe("runSweep: gives up on a thread after giveUpAfterNights", () => {
  it("stops re-enqueueing an always-failing thread after 5 nights, counts it, and takes it back at a new turn", async () => {
    const start = new Date("2026-12-20T03:00:00Z");
    const turn = new Date(start.getTime() - 3_600_000);
    await storage.recordPassAt("initech", "hopeless", {
      status: "failed",
      turnEndedAt: turn,
      at: turn,
    });
    const mine = (report: SweepReport) => report.threads.filter((thread) => thread.orgId === "initech");

    const metrics: { name: string; value: number }[] = [];
    const reports = await nightly(
      start,
      7,
      () => fails,
      {},
      { metrics: { record: (metric) => metrics.push(metric) } },
    );
    // Nights 0–4 (turn 1 h to 4 days 1 h old) retry it; from night 5 on its turn is over 5 days old.
    expect(reports.map((report) => mine(report).length)).toEqual([1, 1, 1, 1, 1, 0, 0]);
    expect(reports.map((report) => report.givenUp)).toEqual([0, 0, 0, 0, 0, 1, 1]);
    expect(
      metrics.filter((metric) => metric.name === "SweepGivenUpThreads").map((metric) => metric.value),
    ).toEqual([0, 0, 0, 0, 0, 1, 1]);

    // A new turn ends and its job fails too: the sweep takes the thread back.
    const night7 = new Date(start.getTime() + 7 * DAY);
    const newTurn = new Date(night7.getTime() - 2 * 3_600_000);
    await storage.recordPassAt("initech", "hopeless", {
      status: "failed",
      turnEndedAt: newTurn,
      at: new Date(newTurn.getTime() + 60_000),
    });
    const [after] = await nightly(night7, 1, () => fails, {});
    expect(after && mine(after)).toEqual([
      { orgId: "initech", threadId: "hopeless", reason: "failed", turnEndedAt: newTurn.toISOString() },
    ]);
    expect(after?.givenUp).toBe(0);
  });

  it("is configurable, and threads whose jobs record nothing age out too instead of holding the front", async () => {
    // Skipped for the budget, then the org was switched off: its jobs are dropped without a
    // pass record, so their records never move back. 20 of them, 10 jobs a run, 2 nights to
    // give up.
    const start = new Date("2027-01-10T03:00:00Z");
    const turn = new Date(start.getTime() - 3_600_000);
    for (let index = 0; index < 20; index++) {
      await storage.recordPassAt("switched-off", `t-${index}`, {
        status: "skipped",
        reason: "budget",
        turnEndedAt: turn,
        at: turn,
      });
    }
    // Another org's thread fails between the first two nights.
    const umbrellaTurn = new Date(start.getTime() + 12 * 3_600_000);
    await storage.recordPassAt("umbrella", "waiting", {
      status: "failed",
      turnEndedAt: umbrellaTurn,
      at: new Date(umbrellaTurn.getTime() + 60_000),
    });
    const recordsNothing: Job = async () => {};
    const reports = await nightly(start, 3, (orgId) => (orgId === "switched-off" ? recordsNothing : fails), {
      maxThreads: 10,
      giveUpAfterNights: 2,
    });
    // Nights 0 and 1: the same switched-off threads (their records never move), beside
    // "umbrella" from night 1 on (each org has its share); night 2: their turn is over 2
    // days old, so the sweep gives up on all 20 and enqueues "umbrella" alone.
    expect(
      reports.map((report) => report.threads.filter((thread) => thread.orgId === "umbrella").length),
    ).toEqual([0, 1, 1]);
    expect(reports.map((report) => report.threads.length)).toEqual([10, 10, 1]);
    expect(reports.map((report) => report.givenUp)).toEqual([0, 0, 20]);
    expect(firstSwept(reports).get("umbrella/waiting")).toBe(1);
    expect(reports[2]?.threads.map((thread) => thread.orgId)).toEqual(["umbrella"]);
    await expect(
      runSweep(
        { store: storage.repository, clock: manualClock(start) },
        { dryRun: true, giveUpAfterNights: 0 },
      ),
    ).rejects.toThrow(/giveUpAfterNights/);
  });
});
