import { createToolPolicy } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import {
  claimStageThread,
  type InMemoryDigestStore,
  STAGE_JOB as job,
  stageContext,
} from "#test/core/fixtures/job-stage";
import { classifyThread } from "../classify/classify-thread";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel } from "../ports";
import { admitCall } from "./admit-call";
import { toRequest } from "./group-requests";
import type { DigestJobOptions } from "./options";

const day = "2026-11-30";
const fixture = buildHeavyThread({
  name: "admit",
  seed: 3,
  titles: ["Ground Lease"],
  documentChars: 45_000,
  pageChars: 15_000,
});
const group = classifyThread(fixture.messages, createToolPolicy(), {
  recencyKeepExchanges: 1,
}).candidates.slice(0, 2);

/** What the org's ledger has left of `budgetUsd` today (a zero reservation reserves nothing). */
async function remainingUsd(store: InMemoryDigestStore, budgetUsd: number) {
  const probe: { ok: boolean; remainingUsd?: number } = await store.reserveSpend(
    job.orgId,
    day,
    0,
    budgetUsd,
  );
  return probe.remainingUsd;
}

async function setup(
  options: Partial<DigestJobOptions> = {},
  {
    remainingMs,
    estimateUsd,
    claim = true,
  }: { remainingMs?: number; estimateUsd?: number; claim?: boolean } = {},
) {
  const estimates: unknown[] = [];
  const digester: DigestModel = {
    ...createExtractiveDigester(),
    ...(estimateUsd === undefined
      ? {}
      : {
          estimateCostUsd: (request) => {
            estimates.push(request);
            return estimateUsd;
          },
        }),
  };
  const { store, context } = stageContext({
    digester,
    options,
    ...(remainingMs === undefined ? {} : { remainingTimeMs: () => remainingMs }),
  });
  if (claim) await claimStageThread(store, context.runId);
  return { store, context, estimates };
}

describe("admitCall: the limits, in order", () => {
  it("the fixture gives a group of two pages", () => {
    expect(group).toHaveLength(2);
  });

  it("admits a call: its group and request, no reservation for a free digester, and counts it", async () => {
    const { context } = await setup();
    const call = await admitCall(context, group, day);
    expect(call).toEqual({ group, request: toRequest(group), reservedUsd: 0, costUsd: 0, rows: [] });
    expect(context.stats.calls).toBe(1);
  });

  it("stops at call_cap once maxCallsPerJob calls were admitted, and admits the one before", async () => {
    const { context } = await setup({ maxCallsPerJob: 2 });
    context.stats.calls = 1;
    expect(await admitCall(context, group, day)).toMatchObject({ group });
    expect(context.stats.calls).toBe(2);
    expect(await admitCall(context, group, day)).toBe("call_cap");
    expect(context.stats.calls).toBe(2);
  });

  it("admits with exactly one call's timeout plus the commit reserve left, and stops a millisecond below", async () => {
    const options = { digestCallTimeoutMs: 20_000, commitReserveMs: 5_000 };
    const enough = await setup(options, { remainingMs: 25_000 });
    expect(await admitCall(enough.context, group, day)).toMatchObject({ group });
    const short = await setup(options, { remainingMs: 24_999 });
    expect(await admitCall(short.context, group, day)).toBe("out_of_time");
    expect(short.context.stats.calls).toBe(0);
  });

  it("checks the call cap before the clock", async () => {
    const { context } = await setup({ maxCallsPerJob: 1 }, { remainingMs: 0 });
    context.stats.calls = 1;
    expect(await admitCall(context, group, day)).toBe("call_cap");
  });

  it("stops with lease_lost when this run does not hold the thread's lease, before any reservation", async () => {
    const { context, store, estimates } = await setup({}, { claim: false, estimateUsd: 0.5 });
    expect(await admitCall(context, group, day)).toBe("lease_lost");
    expect(context.stats.calls).toBe(0);
    expect(estimates).toEqual([]);
    expect(await remainingUsd(store, 5)).toBe(5);
  });

  it("checks the clock before the lease", async () => {
    const { context } = await setup(
      { digestCallTimeoutMs: 1_000, commitReserveMs: 0 },
      { claim: false, remainingMs: 10 },
    );
    expect(await admitCall(context, group, day)).toBe("out_of_time");
  });

  it("reserves the estimate of the call's request against the daily budget", async () => {
    const { context, store, estimates } = await setup({ dailyBudgetUsd: 1 }, { estimateUsd: 0.4 });
    const call = await admitCall(context, group, day);
    expect(call).toMatchObject({ reservedUsd: 0.4, costUsd: 0 });
    expect(estimates).toEqual([toRequest(group)]);
    expect(await remainingUsd(store, 1)).toBeCloseTo(0.6, 9);
  });

  it("stops at budget when the estimate does not fit what is left, reserving nothing and counting no call", async () => {
    const { context, store } = await setup({ dailyBudgetUsd: 1 }, { estimateUsd: 0.6 });
    expect(await admitCall(context, group, day)).toMatchObject({ reservedUsd: 0.6 });
    expect(await admitCall(context, group, day)).toBe("budget");
    expect(context.stats.calls).toBe(1);
    expect(await remainingUsd(store, 1)).toBeCloseTo(0.4, 9);
  });

  it("admits a free call with the budget spent: a zero estimate reserves nothing", async () => {
    const { context, store } = await setup({ dailyBudgetUsd: 0 }, { estimateUsd: 0 });
    expect(await admitCall(context, group, day)).toMatchObject({ reservedUsd: 0 });
    expect(await remainingUsd(store, 0)).toBe(0);
  });

  it("admits a free call when earlier calls overspent the budget: only a call with an estimate reserves", async () => {
    const { context, store } = await setup({ dailyBudgetUsd: 1 }, { estimateUsd: 0 });
    await store.settleSpend(job.orgId, day, 0, 1.5);
    expect(await admitCall(context, group, day)).toMatchObject({ reservedUsd: 0 });
    const { context: priced } = await setup({ dailyBudgetUsd: 1 }, { estimateUsd: 0.01 });
    await priced.ports.store.settleSpend(job.orgId, day, 0, 1.5);
    expect(await admitCall(priced, group, day)).toBe("budget");
  });
});
