import { createToolPolicy } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { classifyThread } from "../classify/classify-thread";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { DigestModelError } from "../errors";
import type { DigestModel, Metric } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { digestWithinBudget, utcDay } from "./digest-within-budget";
import { createJobContext } from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";

const at = new Date("2026-11-30T23:59:59.000Z");
const day = "2026-11-30";
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };
const fixture = buildHeavyThread({
  name: "stage",
  seed: 8,
  titles: ["Ground Lease"],
  documentChars: 48_000,
  pageChars: 12_000,
});
const candidates = classifyThread(fixture.messages, createToolPolicy(), {
  recencyKeepExchanges: 1,
}).candidates;

/** A digester billing `costUsd` per call, estimating `estimateUsd`, failing calls `fail` picks. */
function digester({
  estimateUsd,
  costUsd = 0,
  fail,
}: {
  estimateUsd?: number;
  costUsd?: number;
  fail?: (index: number) => unknown;
} = {}) {
  const inner = createExtractiveDigester();
  const log = { started: 0, inFlight: 0, maxInFlight: 0 };
  const model: DigestModel = {
    id: "test",
    ...(estimateUsd === undefined ? {} : { estimateCostUsd: () => estimateUsd }),
    async digest(request) {
      const index = log.started++;
      log.inFlight++;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      log.inFlight--;
      const error = fail?.(index);
      if (error) throw error;
      return { ...(await inner.digest(request)), model: "m", costUsd };
    },
  };
  return { model, log };
}

async function setup(model: DigestModel, options: Partial<DigestJobOptions> = {}, claim = true) {
  const store = createInMemoryDigestStore();
  const metrics: Metric[] = [];
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store,
      digester: model,
      clock: fixedClock(at),
      metrics: { record: (metric) => metrics.push(metric) },
    },
    resolveJobOptions({ maxPagesPerCall: 1, ...options }),
  );
  if (claim)
    await store.claimThread(job.orgId, job.threadId, {
      owner: context.runId,
      at,
      leaseMs: 600_000,
      turnEndedAt: at,
    });
  /** What the org's ledger has left of `budgetUsd` on the job's day. */
  const remaining = async (budgetUsd: number) => {
    const probe: { ok: boolean; remainingUsd?: number } = await store.reserveSpend(
      job.orgId,
      day,
      0,
      budgetUsd,
    );
    return probe.remainingUsd;
  };
  return { store, context, metrics, remaining };
}

describe("digestWithinBudget", () => {
  it("the fixture gives four candidates of one document", () => {
    expect(candidates).toHaveLength(4);
  });

  it("digests every candidate, one page per call, with no stop reason, and reports the fallbacks", async () => {
    const { model } = digester();
    const { context, metrics } = await setup(model);
    const result = await digestWithinBudget(context, candidates);
    // In thread order; a page whose digest would not be shorter has no row.
    const ids = result.rows.map((row) => row.toolCallId);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids).toEqual(candidates.map((c) => c.message.toolCallId).filter((id) => ids.includes(id)));
    expect(result).not.toHaveProperty("stopReason");
    expect(context.stats).toMatchObject({ calls: 4, deferred: 0, digestedPages: 4 });
    expect(metrics.map((metric) => metric.name)).toEqual(["DigestFallbacks", "FallbackRate"]);
  });

  it("keeps at most digestConcurrency calls in flight", async () => {
    const one = digester();
    await digestWithinBudget((await setup(one.model, { digestConcurrency: 1 })).context, candidates);
    expect(one.log.maxInFlight).toBe(1);
    const two = digester();
    await digestWithinBudget((await setup(two.model, { digestConcurrency: 2 })).context, candidates);
    expect(two.log.maxInFlight).toBe(2);
  });

  it("stops at the call cap, defers what is left, and keeps the rows of the calls made", async () => {
    const { model } = digester();
    const { context } = await setup(model, { maxCallsPerJob: 1 });
    const result = await digestWithinBudget(context, candidates);
    expect(result.stopReason).toBe("call_cap");
    expect(result.rows.map((row) => row.toolCallId)).toEqual([candidates[0]?.message.toolCallId]);
    expect(context.stats).toMatchObject({ calls: 1, deferred: 3 });
  });

  it("settles every reservation to the calls' cost, on the UTC day of the job's clock", async () => {
    const { model } = digester({ estimateUsd: 0.5, costUsd: 0.1 });
    const { context, remaining } = await setup(model, { dailyBudgetUsd: 1, digestConcurrency: 1 });
    const result = await digestWithinBudget(context, candidates);
    expect(result.stopReason).toBe("budget");
    // Two reservations fill the budget; each settles to what its call cost.
    expect(context.stats).toMatchObject({ calls: 2, deferred: 2 });
    expect(context.stats.costUsd).toBeCloseTo(0.2, 9);
    expect(await remaining(1)).toBeCloseTo(0.8, 9);
  });

  it("books nothing in the ledger for the calls of a free digester, which reserve nothing", async () => {
    const { model } = digester();
    const { store, context } = await setup(model, { dailyBudgetUsd: 1 });
    const ledger: string[] = [];
    const { reserveSpend, settleSpend } = store;
    store.reserveSpend = (...args) => {
      ledger.push("reserve");
      return reserveSpend(...args);
    };
    store.settleSpend = (...args) => {
      ledger.push("settle");
      return settleSpend(...args);
    };
    await digestWithinBudget(context, candidates);
    expect(context.stats.calls).toBe(4);
    expect(ledger).toEqual([]);
  });

  it("goes on after a failed call, deferring its page", async () => {
    const { model } = digester({
      fail: (index) => index === 1 && new DigestModelError("x", { reason: "contract" }),
    });
    const { context } = await setup(model, { digestConcurrency: 1 });
    const result = await digestWithinBudget(context, candidates);
    expect(result.rows.map((row) => row.toolCallId)).not.toContain(candidates[1]?.message.toolCallId);
    expect(result.rows.length).toBeGreaterThanOrEqual(2);
    expect(context.stats).toMatchObject({ calls: 4, failedCalls: 1, deferred: 1, digestedPages: 3 });
  });

  it("rethrows an unexpected error once every call has ended and settled, starting no call after it", async () => {
    const bug = new Error("a bug");
    const { model, log } = digester({ estimateUsd: 0.2, costUsd: 0.05, fail: (index) => index === 0 && bug });
    const { context, metrics, remaining } = await setup(model, { digestConcurrency: 1, dailyBudgetUsd: 1 });
    await expect(digestWithinBudget(context, candidates)).rejects.toBe(bug);
    expect(log.started).toBe(1);
    expect(await remaining(1)).toBe(1);
    expect(context.stats.deferred).toBe(3);
    expect(metrics).toEqual([]);
  });

  it("stops with lease_lost when this run holds no lease on the thread", async () => {
    const { model, log } = digester();
    const { context } = await setup(model, {}, false);
    const result = await digestWithinBudget(context, candidates);
    expect(result).toEqual({ rows: [], stopReason: "lease_lost" });
    expect(log.started).toBe(0);
    expect(context.stats.deferred).toBe(4);
  });
});

describe("utcDay", () => {
  it("is the UTC calendar day", () => {
    expect(utcDay(new Date("2026-11-30T23:59:59.999-02:00"))).toBe("2026-12-01");
  });
});
