import type { PolicyMode } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import {
  STAGE_AT as at,
  claimStageThread,
  savingRow as row,
  stageContext,
} from "#test/core/fixtures/job-stage";
import type { Clock, DigestRow, Metric } from "../ports";
import { commitPass } from "./commit-pass";
import type { DigestJobOptions } from "./options";
import type { DigestStopReason } from "./outcome";

function setup(
  options: Partial<DigestJobOptions> = {},
  { mode, costUsd = 0, failedCalls = 0 }: { mode?: PolicyMode; costUsd?: number; failedCalls?: number } = {},
) {
  let now = at.getTime();
  const clock: Clock = { now: () => new Date(now) };
  const { store, metrics, context } = stageContext({
    clock,
    options: { minCharsPerPass: 1_000, ...options },
    ...(mode === undefined ? {} : { mode }),
  });
  context.stats.costUsd = costUsd;
  context.stats.failedCalls = failedCalls;
  context.stats.calls = 2;
  // The pass commits under this run's lease, as a job's does after its claim.
  const claimed = claimStageThread(store, context.runId);
  return {
    store,
    metrics,
    context,
    later: (ms: number) => {
      now += ms;
    },
    commit: async (rows: DigestRow[], stop?: DigestStopReason) => {
      await claimed;
      return commitPass(context, rows, stop);
    },
  };
}

const value = (metrics: Metric[], name: string) => metrics.find((metric) => metric.name === name);

describe("commitPass: the threshold", () => {
  it("commits a pass that saves exactly minCharsPerPass, covering the turn", async () => {
    const { commit, store } = setup();
    const outcome = await commit([row("a", 600), row("b", 400)]);
    expect(outcome).toMatchObject({ status: "done", charsSaved: 1_000, digestsWritten: 2 });
    expect(outcome).not.toHaveProperty("reason");
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "done",
      reason: null,
      coveredTurnEndedAt: at,
      digestsWritten: 2,
    });
  });

  it("skips a free pass that saves less, covering the turn, and reports no savings", async () => {
    const { commit, store, metrics } = setup();
    const outcome = await commit([row("a", 999)]);
    expect(outcome).toMatchObject({ status: "skipped", reason: "below_min_chars", charsSaved: 0 });
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "skipped",
      reason: "below_min_chars",
      coveredTurnEndedAt: at,
    });
    expect((await store.loadThreadDigests("acme", "thread-1")).size).toBe(0);
    expect(metrics.map((metric) => metric.name)).toEqual(["SkippedJobs"]);
  });

  it("leaves the turn uncovered when a free pass below the threshold had a failed call", async () => {
    const { commit, store } = setup({}, { failedCalls: 1 });
    await commit([row("a", 10)]);
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      reason: "below_min_chars",
      coveredTurnEndedAt: null,
    });
  });

  it.each([
    ["budget", "budget"],
    ["out_of_time", "out_of_time"],
    ["call_cap", "below_min_chars"],
  ] as const)(
    "names a free pass below the threshold stopped by %s as skipped %s, the turn uncovered",
    async (stop, reason) => {
      const { commit, store } = setup();
      expect(await commit([row("a", 10)], stop)).toMatchObject({ status: "skipped", reason });
      expect(await store.getPass("acme", "thread-1")).toMatchObject({ reason, coveredTurnEndedAt: null });
    },
  );

  it("keeps paid digests below the threshold, as a partial pass when a limit stopped it", async () => {
    const { commit, store } = setup({}, { costUsd: 0.01 });
    const outcome = await commit([row("a", 10)], "call_cap");
    expect(outcome).toMatchObject({
      status: "partial",
      reason: "call_cap",
      charsSaved: 10,
      digestsWritten: 1,
    });
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "partial",
      coveredTurnEndedAt: null,
    });
  });

  it("ends a pass with a failed call partial, digest_failed, the turn uncovered", async () => {
    const { commit, store } = setup({}, { failedCalls: 1 });
    expect(await commit([row("a", 2_000)])).toMatchObject({ status: "partial", reason: "digest_failed" });
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "partial",
      reason: "digest_failed",
      coveredTurnEndedAt: null,
    });
  });
});

describe("commitPass: metrics", () => {
  it("emits what the pass wrote, called, spent and saved, and how long it ran", async () => {
    const { commit, metrics, later } = setup({}, { costUsd: 0.25 });
    later(1_500);
    await commit([row("a", 2_000)]);
    expect(metrics).toEqual([
      { name: "DigestsWritten", value: 1, unit: "Count" },
      { name: "DigestCalls", value: 2, unit: "Count" },
      { name: "DigestCostUsd", value: 0.25, unit: "None" },
      { name: "CharsSaved", value: 2_000, unit: "Count" },
      { name: "StaleDigests", value: 0, unit: "Count" },
      { name: "JobDuration", value: 1_500, unit: "Milliseconds" },
    ]);
  });

  it("counts what a shadow pass would save, per org", async () => {
    const { commit, metrics } = setup({}, { mode: "shadow" });
    await commit([row("a", 2_000)]);
    expect(value(metrics, "ShadowCharsSaved")).toEqual({
      name: "ShadowCharsSaved",
      value: 2_000,
      unit: "Count",
      dimensions: { orgId: "acme" },
    });
  });
});
