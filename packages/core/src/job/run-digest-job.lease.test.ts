import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { Clock, DigestModel, DigestRequest, DigestStore, Metric } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "lease",
  seed: 3,
  titles: ["Ground Lease"],
  documentChars: 90_000,
  pageChars: 15_000,
});
const payload = {
  orgId: "lease-org",
  threadId: "lease-thread",
  rawToolChars: 500_000,
  turnEndedAt: at.toISOString(),
};

/**
 * A job on the in-memory store whose first digest call sees its lease taken over: the
 * store's clock jumps past the lease and another run claims the thread.
 */
function usurped() {
  let storeNow = at.getTime();
  const storeClock: Clock = { now: () => new Date(storeNow) };
  const inMemory = createInMemoryDigestStore({ clock: storeClock });
  const commits = { attempted: 0 };
  const store: DigestStore = {
    ...inMemory,
    commitLeasedPass: (...args) => {
      commits.attempted++;
      return inMemory.commitLeasedPass(...args);
    },
  };
  const inner = createExtractiveDigester();
  const requests: DigestRequest[] = [];
  const digester: DigestModel = {
    id: "paid",
    estimateCostUsd: () => 0.05,
    async digest(request) {
      requests.push(request);
      if (requests.length === 1) {
        storeNow += 24 * 3_600_000;
        const taken = await store.claimThread(payload.orgId, payload.threadId, {
          owner: "usurper",
          at: new Date(storeNow),
          leaseMs: 3_600_000,
        });
        expect(taken.claimed).toBe(true);
      }
      return { ...(await inner.digest(request)), model: "paid", costUsd: 0.05 };
    },
  };
  const metrics: Metric[] = [];
  const ports = {
    checkpoints: createInMemoryCheckpointReader(new Map([[payload.threadId, fixture.messages]])),
    store,
    digester,
    clock: fixedClock(at),
    metrics: { record: (metric: Metric) => metrics.push(metric) },
  };
  return { store, ports, requests, metrics, commits };
}

describe("a job whose lease is taken over mid-pass, on the in-memory store", () => {
  it("ends lease_lost after its last call, writes no row and leaves the new holder's record", async () => {
    const { store, ports, requests, metrics, commits } = usurped();
    const outcome = await runDigestJob(payload, ports, {
      maxPagesPerCall: 1,
      digestConcurrency: 1,
      maxCallsPerJob: 1,
    });
    expect(requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "skipped", reason: "lease_lost", calls: 1, digestsWritten: 0 });
    // Its commit was tried, and refused by the store's fence.
    expect(commits.attempted).toBe(1);
    expect(metrics).toContainEqual({
      name: "SkippedJobs",
      value: 1,
      unit: "Count",
      dimensions: { reason: "lease_lost" },
    });
    expect(metrics).toContainEqual({ name: "DigestsWritten", value: 0, unit: "Count" });
    expect((await store.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
    expect(await store.holdsLease(payload.orgId, payload.threadId, "usurper")).toBe(true);
  });

  it("makes no call once it no longer holds the lease and ends lease_lost", async () => {
    const { store, ports, requests, commits } = usurped();
    const outcome = await runDigestJob(payload, ports, { maxPagesPerCall: 1, digestConcurrency: 1 });
    expect(requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "skipped", reason: "lease_lost", calls: 1, digestsWritten: 0 });
    // Found before its next call: it does not try to commit at all.
    expect(commits.attempted).toBe(0);
    expect((await store.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
  });
});
