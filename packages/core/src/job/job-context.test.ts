import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import type { DigestRow, Metric } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import {
  commitLeased,
  createJobContext,
  type DigestJobPorts,
  type JobDelivery,
  recordMetric,
  recordPass,
  skipped,
} from "./job-context";
import { resolveJobOptions } from "./options";

const turnEnd = new Date("2026-11-30T10:00:00.000Z");
const queuedAt = new Date("2026-11-30T10:00:02.000Z");
const started = new Date("2026-11-30T10:00:05.000Z");
const job = {
  orgId: "acme",
  threadId: "thread-1",
  rawToolChars: 200_000,
  turnEndedAt: turnEnd.toISOString(),
};
const ms = (date: Date, offset: number) => new Date(date.getTime() + offset);

function setup(delivery?: JobDelivery, ports: Partial<DigestJobPorts> = {}) {
  const clock = manualClock(started);
  const store = createInMemoryDigestStore({ clock });
  const metrics: Metric[] = [];
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store,
      digester: { id: "unused", digest: async () => Promise.reject(new Error("unused")) },
      clock,
      metrics: { record: (metric) => metrics.push(metric) },
      ...ports,
    },
    resolveJobOptions({}),
    "on",
    delivery,
  );
  return { context, store, clock, metrics };
}

function row(toolCallId: string): DigestRow {
  return {
    threadId: job.threadId,
    toolCallId,
    toolName: "read_document",
    provenanceArgs: { file_id: "f1", offset: 12_000 },
    contentSha256: "0".repeat(64),
    originalChars: 12_000,
    kind: "digest",
    digest: `digest of ${toolCallId}`,
    digestChars: 13,
    model: "m",
    inputTokens: 1,
    outputTokens: 1,
    costUsd: 0,
  };
}

describe("createJobContext: where the job stands in the thread", () => {
  it("without a queue time, stands at the turn's end, which a pass covering that very turn covers", () => {
    const { context } = setup();
    expect(context.position).toEqual(turnEnd);
    expect(context.coveredAt).toEqual(turnEnd);
    expect(context.covers(turnEnd)).toBe(true);
    expect(context.covers(ms(turnEnd, 1))).toBe(true);
    expect(context.covers(ms(turnEnd, -1))).toBe(false);
    expect(context.covers(null)).toBe(false);
    expect(context.covers(undefined)).toBe(false);
  });

  it("with a queue time, stands at it and covers the worker's time at the start", () => {
    const { context, clock } = setup({ queuedAt });
    clock.advance(10);
    expect(context.position).toEqual(queuedAt);
    expect(context.coveredAt).toEqual(started);
  });

  it("with a queue time, is covered only by a pass that started strictly after it", () => {
    const { context } = setup({ queuedAt });
    expect(context.covers(ms(queuedAt, 1))).toBe(true);
    expect(context.covers(queuedAt)).toBe(false);
    expect(context.covers(turnEnd)).toBe(false);
    expect(context.covers(null)).toBe(false);
  });

  it("is covered by no pass when the thread has no covered turn, even for a turn stamped at the epoch", () => {
    // A host whose clock was never set stamps its turns 1970-01-01: its thread still gets its first pass.
    const ports = setup().context.ports;
    const epoch = createJobContext(
      { ...job, turnEndedAt: new Date(0).toISOString() },
      ports,
      resolveJobOptions({}),
    );
    expect(epoch.covers(new Date(0))).toBe(true);
    expect(epoch.covers(null)).toBe(false);
    expect(epoch.covers(undefined)).toBe(false);
  });

  it("takes a queue time that is not a date as none", () => {
    const { context } = setup({ queuedAt: new Date(Number.NaN) });
    expect(context.position).toEqual(turnEnd);
    expect(context.coveredAt).toEqual(turnEnd);
    expect(context.covers(turnEnd)).toBe(true);
  });

  it("starts at the clock's time, with empty stats and a run id of its own", () => {
    const first = setup().context;
    const second = setup().context;
    expect(first.startedAt).toBe(started.getTime());
    expect(first.stats).toMatchObject({ digestsWritten: 0, calls: 0, costUsd: 0, deferred: 0 });
    expect(first.runId).not.toBe(second.runId);
  });

  it("runs in the options' mode unless given one: off when they disable the job, else on", () => {
    const ports = setup().context.ports;
    expect(createJobContext(job, ports, resolveJobOptions({ disabled: true })).mode).toBe("off");
    expect(createJobContext(job, ports, resolveJobOptions({})).mode).toBe("on");
    expect(createJobContext(job, ports, resolveJobOptions({}), "shadow").mode).toBe("shadow");
  });
});

describe("recordMetric", () => {
  it("counts by default, and adds dimensions only when given", () => {
    const { context, metrics } = setup();
    recordMetric(context, "DigestCalls", 2);
    recordMetric(context, "FallbackRate", 0.5, "None", { reason: "x" });
    expect(metrics).toEqual([
      { name: "DigestCalls", value: 2, unit: "Count" },
      { name: "FallbackRate", value: 0.5, unit: "None", dimensions: { reason: "x" } },
    ]);
  });

  it("records nothing, and does not fail, without a metrics sink", () => {
    const { context } = setup(undefined, { metrics: undefined });
    expect(() => recordMetric(context, "DigestCalls", 1)).not.toThrow();
  });
});

describe("recordPass", () => {
  it("records the pass at the clock's time, moving the covered turn only when asked", async () => {
    const { context, store, clock } = setup({ queuedAt });
    context.stats.digestsWritten = 3;
    clock.advance(1);
    await recordPass(context, "skipped", "below_min_chars", false);
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "skipped",
      reason: "below_min_chars",
      coveredTurnEndedAt: null,
      latestTurnEndedAt: turnEnd,
      rawToolChars: job.rawToolChars,
      digestsWritten: 3,
      at: ms(started, 1_000),
    });
    await recordPass(context, "done", null, true);
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "done",
      reason: null,
      coveredTurnEndedAt: started,
    });
  });
});

describe("commitLeased", () => {
  it("commits the rows and the pass of a run holding the lease, counting the rows written", async () => {
    const { context, store, clock } = setup({ queuedAt });
    await store.claimThread(job.orgId, job.threadId, { owner: context.runId, at: started, leaseMs: 60_000 });
    clock.advance(1);
    expect(await commitLeased(context, [row("r_1"), row("r_2")], "done", null, true)).toBe(true);
    expect(context.stats.digestsWritten).toBe(2);
    expect([...(await store.loadThreadDigests(job.orgId, job.threadId)).keys()].sort()).toEqual([
      "r_1",
      "r_2",
    ]);
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "done",
      coveredTurnEndedAt: started,
      rawToolChars: job.rawToolChars,
      digestsWritten: 2,
      at: ms(started, 1_000),
    });
  });

  it("leaves the covered turn where it was for a pass that covers nothing", async () => {
    const { context, store } = setup();
    await store.claimThread(job.orgId, job.threadId, { owner: context.runId, at: started, leaseMs: 60_000 });
    expect(await commitLeased(context, [], "partial", "digest_failed", false)).toBe(true);
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "partial",
      reason: "digest_failed",
      coveredTurnEndedAt: null,
      latestTurnEndedAt: turnEnd,
    });
  });

  it("writes nothing and counts nothing for a run that does not hold the lease", async () => {
    const { context, store } = setup();
    await store.claimThread(job.orgId, job.threadId, { owner: "another-run", at: started, leaseMs: 60_000 });
    context.stats.digestsWritten = 1;
    expect(await commitLeased(context, [row("r_1")], "done", null, true)).toBe(false);
    expect(context.stats.digestsWritten).toBe(1);
    expect((await store.loadThreadDigests(job.orgId, job.threadId)).size).toBe(0);
  });
});

describe("skipped", () => {
  it("counts the skip by reason and returns the outcome with the job's stats and any requeue", () => {
    const { context, metrics } = setup();
    context.stats.reused = 2;
    expect(skipped(context, "turn_lock", { requeueAfterSeconds: 30 })).toMatchObject({
      status: "skipped",
      reason: "turn_lock",
      requeueAfterSeconds: 30,
      reused: 2,
      digestsWritten: 0,
    });
    expect(skipped(context, "below_trigger")).not.toHaveProperty("requeueAfterSeconds");
    expect(metrics).toEqual([
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "turn_lock" } },
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "below_trigger" } },
    ]);
  });
});
