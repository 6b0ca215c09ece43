import { describe, expect, it } from "vitest";
import {
  STAGE_AT as at,
  claimStageThread,
  savingRow as row,
  stageContext,
} from "#test/core/fixtures/job-stage";
import { fixedClock } from "../clock";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { commitPass } from "./commit-pass";

/** A run whose lease another run took over before its commit (its own claim lapsed). */
async function leaseTakenOver({ costUsd }: { costUsd: number }) {
  const { store, metrics, context } = stageContext({
    store: createInMemoryDigestStore({ clock: fixedClock(at) }),
    options: { minCharsPerPass: 1_000 },
  });
  context.stats.costUsd = costUsd;
  context.stats.calls = 3;
  context.stats.digestsWritten = 2;
  await claimStageThread(store, "other", 60_000);
  await store.commitLeasedPass("acme", "thread-1", {
    owner: "other",
    rows: [row("theirs", 5_000)],
    pass: { status: "done", reason: null, coveredTurnEndedAt: at, turnEndedAt: at, rawToolChars: 1, at },
  });
  return { store, metrics, context };
}

describe("commitPass: a run that lost its lease", () => {
  it("writes nothing of a pass above the threshold and ends lease_lost, counting what it spent", async () => {
    const { store, metrics, context } = await leaseTakenOver({ costUsd: 0.5 });
    const before = await store.getPass("acme", "thread-1");
    const outcome = await commitPass(context, [row("mine", 2_000)], undefined);
    expect(outcome).toMatchObject({
      status: "skipped",
      reason: "lease_lost",
      digestsWritten: 0,
      charsSaved: 0,
      calls: 3,
      costUsd: 0.5,
    });
    expect(await store.getPass("acme", "thread-1")).toEqual(before);
    expect([...(await store.loadThreadDigests("acme", "thread-1")).keys()]).toEqual(["theirs"]);
    expect(metrics).toEqual([
      { name: "DigestsWritten", value: 0, unit: "Count" },
      { name: "DigestCalls", value: 3, unit: "Count" },
      { name: "DigestCostUsd", value: 0.5, unit: "None" },
      { name: "CharsSaved", value: 0, unit: "Count" },
      { name: "StaleDigests", value: 0, unit: "Count" },
      { name: "JobDuration", value: 0, unit: "Milliseconds" },
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "lease_lost" } },
    ]);
  });

  it("records no skip of a free pass below the threshold and ends lease_lost", async () => {
    const { store, metrics, context } = await leaseTakenOver({ costUsd: 0 });
    const before = await store.getPass("acme", "thread-1");
    const outcome = await commitPass(context, [row("mine", 10)], undefined);
    expect(outcome).toMatchObject({
      status: "skipped",
      reason: "lease_lost",
      digestsWritten: 0,
      charsSaved: 0,
    });
    expect(await store.getPass("acme", "thread-1")).toEqual(before);
    expect(metrics.filter((metric) => metric.name === "SkippedJobs")).toEqual([
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "lease_lost" } },
    ]);
  });
});
