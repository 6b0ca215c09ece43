import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import type { ActiveThread, ThreadDirectory } from "../ports";
import { runSweep } from "./run-sweep";

const NOW = new Date("2026-12-01T03:00:00Z");
const at = (hours: number, ms = 0) => new Date(NOW.getTime() - hours * 3_600_000 + ms);

const storage = usePgliteRepository();

function directory(threads: ActiveThread[]): ThreadDirectory {
  return { listActiveThreads: async () => ({ threads, nextCursor: null }) };
}

/** A pass that covered the turn whose event ended at `turnEnd` (queued 30 ms later). */
async function healthyPass(threadId: string, turnEnd: Date): Promise<void> {
  await storage.recordPassAt("acme", threadId, {
    status: "done",
    turnEndedAt: turnEnd,
    coveredTurnEndedAt: new Date(turnEnd.getTime() + 31),
    at: new Date(turnEnd.getTime() + 2_000),
  });
}

describe("runSweep: lost events by turn start", () => {
  it("does not list a healthy thread whose last checkpoint was written after its event", async () => {
    // The runtime published from inside the run, 175 ms before the run's last checkpoint.
    const turnEnd = at(3);
    await healthyPass("healthy", turnEnd);
    const report = await runSweep(
      {
        store: storage.repository,
        directory: directory([
          {
            orgId: "acme",
            threadId: "healthy",
            lastActivityAt: new Date(turnEnd.getTime() + 175),
            lastTurnStartedAt: new Date(turnEnd.getTime() - 40_000),
          },
        ]),
        clock: manualClock(NOW),
      },
      { dryRun: true },
    );
    expect(report.threads).toEqual([]);
  });

  it("lists a thread whose latest turn started after the latest turn end its pass record saw", async () => {
    const turnEnd = at(4);
    await healthyPass("next-turn-lost", turnEnd);
    const report = await runSweep(
      {
        store: storage.repository,
        directory: directory([
          {
            orgId: "acme",
            threadId: "next-turn-lost",
            lastActivityAt: at(3, 60_000),
            lastTurnStartedAt: at(3),
          },
        ]),
        clock: manualClock(NOW),
      },
      { dryRun: true },
    );
    expect(report.threads).toEqual([
      {
        orgId: "acme",
        threadId: "next-turn-lost",
        reason: "lost_event",
        turnEndedAt: at(3, 60_000).toISOString(),
      },
    ]);
  });

  it("without turn starts (an app's message table), compares the activity itself, as before", async () => {
    const turnEnd = at(5);
    await healthyPass("table-thread", turnEnd);
    const swept = async (lastActivityAt: Date) =>
      (
        await runSweep(
          {
            store: storage.repository,
            directory: directory([{ orgId: "acme", threadId: "table-thread", lastActivityAt }]),
            clock: manualClock(NOW),
          },
          { dryRun: true },
        )
      ).threads.map((thread) => thread.reason);
    expect(await swept(new Date(turnEnd.getTime() - 1))).toEqual([]);
    expect(await swept(new Date(turnEnd.getTime() + 1))).toEqual(["lost_event"]);
  });
});
