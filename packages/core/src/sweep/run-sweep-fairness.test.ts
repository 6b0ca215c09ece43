import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { runSweep, type SweepOptions, type SweepPorts, type SweepReport } from "./run-sweep";

const storage = usePgliteRepository();
const DAY = 86_400_000;

/** What each swept job does: records a pass (as a failing job does), or nothing. */
type Job = (thread: { orgId: string; threadId: string; turnEndedAt: string }, at: Date) => Promise<void>;

const fails: Job = (thread, at) =>
  storage.repository.recordPass(thread.orgId, thread.threadId, {
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
      await storage.repository.recordPass("aaa", `t-${String(index).padStart(2, "0")}`, {
        status: "failed",
        turnEndedAt: turn,
        at: turn,
      });
    }
    await storage.repository.recordPass("zzz", "only", {
      status: "failed",
      turnEndedAt: turn,
      at: new Date(turn.getTime() + 60_000),
    });

    const reports = await nightly(start, 4, () => fails, { maxThreads: 10 });
    const first = firstSwept(reports);
    // 31 threads, 10 a night: each is reached by the fourth night.
    expect(first.size).toBe(31);
    expect(first.get("zzz/only")).toBe(3);
    expect(reports.every((report) => report.threads.length === 10 && report.truncated)).toBe(true);
  });
});
