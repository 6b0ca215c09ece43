import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { describeOverlappingDeliveries } from "#test/core/conformance/overlapping-deliveries";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel, DigestRequest, Metric } from "../ports";
import type { DigestJobPorts } from "./job-context";
import { runDigestJob } from "./run-digest-job";

const storage = usePgliteRepository();

describeOverlappingDeliveries("PGlite", () => storage.repository);

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "claim",
  seed: 3,
  titles: ["Ground Lease"],
  documentChars: 90_000,
  pageChars: 15_000,
});
const rawToolChars = 500_000;
let counter = 0;

function setup(digester: DigestModel = createExtractiveDigester()) {
  counter++;
  const payload = {
    orgId: `claim-org-${counter}`,
    threadId: `claim-thread-${counter}`,
    rawToolChars,
    turnEndedAt: at.toISOString(),
  };
  const metrics: Metric[] = [];
  const ports: DigestJobPorts = {
    checkpoints: createInMemoryCheckpointReader(new Map([[payload.threadId, fixture.messages]])),
    store: storage.repository,
    digester,
    clock: fixedClock(at),
    metrics: { record: (metric) => metrics.push(metric) },
  };
  return { payload, ports, metrics };
}

describe("the thread claim", () => {
  it("skips a run that finds the lease held, with a requeue delay, without reading the thread or paying", async () => {
    const { payload, ports, metrics } = setup();
    await storage.repository.claimThread(payload.orgId, payload.threadId, {
      owner: "other-run",
      at,
      leaseMs: 60_000,
    });
    let reads = 0;
    const outcome = await runDigestJob(payload, {
      ...ports,
      checkpoints: {
        readThread: async () => {
          reads++;
          return fixture.messages;
        },
      },
    });
    expect(outcome).toMatchObject({
      status: "skipped",
      reason: "claimed",
      requeueAfterSeconds: 60,
      calls: 0,
    });
    expect(reads).toBe(0);
    expect(metrics).toEqual([
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "claimed" } },
    ]);
    expect((await storage.repository.getPass(payload.orgId, payload.threadId))?.leaseOwner).toBe("other-run");
  });

  it("takes over a lease whose holder died once it expired", async () => {
    const { payload, ports } = setup();
    await storage.repository.claimThread(payload.orgId, payload.threadId, {
      owner: "dead-run",
      at,
      leaseMs: 1,
    });
    // Expired by the database's clock, however the job's own clock reads (fixed at `at`).
    await sleep(20);
    const outcome = await runDigestJob(payload, ports);
    expect(outcome.status).toBe("done");
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "done",
      leaseOwner: null,
    });
  });

  it("holds the lease for leaseDurationMs while the pass runs, and releases it when the pass throws", async () => {
    const seen: (Date | null | undefined)[] = [];
    const { payload, ports } = setup();
    const broken: DigestModel = {
      id: "broken",
      async digest() {
        seen.push((await storage.repository.getPass(payload.orgId, payload.threadId))?.leaseExpiresAt);
        throw new Error("a bug, not a model failure");
      },
    };
    const before = Date.now();
    await expect(
      runDigestJob(payload, { ...ports, digester: broken }, { leaseDurationMs: 120_000 }),
    ).rejects.toThrow(/a bug/);
    const after = Date.now();
    // From the database's now (PGlite's clock is this process's), not the job's fixed clock.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(seen[0]?.getTime()).toBeLessThanOrEqual(after + 120_000);
    expect((await storage.repository.getPass(payload.orgId, payload.threadId))?.leaseOwner).toBeNull();
    await expect(runDigestJob(payload, ports)).resolves.toMatchObject({ status: "done" });
  });

  it("keeps a committed pass when the lease cannot be released: logged only, the lease lapses on its own", async () => {
    const { payload, ports } = setup();
    const warnings: string[] = [];
    const store = {
      ...storage.repository,
      releaseThread: async () => {
        throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
      },
    };
    const outcome = await runDigestJob(payload, {
      ...ports,
      store,
      logger: { warn: (message) => warnings.push(message) },
    });
    expect(outcome).toMatchObject({ status: "done" });
    expect(outcome.digestsWritten).toBeGreaterThan(0);
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "done",
      coveredTurnEndedAt: at,
    });
    expect(warnings).toEqual(["could not release the thread's lease after its pass; it lapses on its own"]);
  });

  it("releases the lease when the plan skips the pass", async () => {
    const { payload, ports } = setup();
    const outcome = await runDigestJob(payload, ports, { minCharsPerPass: 100_000_000 });
    expect(outcome).toMatchObject({ status: "skipped", reason: "below_min_chars" });
    expect((await storage.repository.getPass(payload.orgId, payload.threadId))?.leaseOwner).toBeNull();
  });

  it("re-reads coverage with the claim: a pass that finished after the gates makes this run nothing_new", async () => {
    const { payload, ports } = setup();
    // The gates read no pass record; by the time of the claim another run has covered this turn.
    const store = {
      ...storage.repository,
      getPass: async () => null,
    };
    await runDigestJob(payload, ports);
    let digests = 0;
    const outcome = await runDigestJob(payload, {
      ...ports,
      store,
      digester: {
        id: "counting",
        async digest(request) {
          digests++;
          return createExtractiveDigester().digest(request);
        },
      },
    });
    expect(outcome).toMatchObject({ status: "skipped", reason: "nothing_new" });
    expect(digests).toBe(0);
    expect((await storage.repository.getPass(payload.orgId, payload.threadId))?.leaseOwner).toBeNull();
  });
});

describe("a run whose lease is taken over mid-pass", () => {
  const COST_PER_CALL = 0.05;

  /** Another run takes the thread's lease, as after this run's lapsed, by the database's clock. */
  async function takeOver(orgId: string, threadId: string): Promise<void> {
    await storage.pglite.query(
      `update thread_pass set lease_owner = 'usurper', lease_expires_at = clock_timestamp() + interval '1 hour'
       where org_id = $1 and thread_id = $2`,
      [orgId, threadId],
    );
  }

  /** A paid digester whose first call sees the lease taken over while it runs. */
  function usurpedDigester(payload: { orgId: string; threadId: string }) {
    const inner = createExtractiveDigester();
    const requests: DigestRequest[] = [];
    const digester: DigestModel = {
      id: "paid",
      estimateCostUsd: () => COST_PER_CALL,
      async digest(request) {
        requests.push(request);
        if (requests.length === 1) await takeOver(payload.orgId, payload.threadId);
        return { ...(await inner.digest(request)), model: "paid", costUsd: COST_PER_CALL };
      },
    };
    return { digester, requests };
  }

  it("makes no paid call once it no longer holds the lease, writes nothing and ends lease_lost", async () => {
    const { payload, ports, metrics } = setup();
    const { digester, requests } = usurpedDigester(payload);
    const outcome = await runDigestJob(
      payload,
      { ...ports, digester },
      { maxPagesPerCall: 1, digestConcurrency: 1 },
    );
    expect(outcome).toMatchObject({ status: "skipped", reason: "lease_lost", calls: 1, digestsWritten: 0 });
    // One call was paid before the takeover, booked once; none after it.
    expect(requests).toHaveLength(1);
    expect(outcome.deferred).toBeGreaterThan(0);
    expect(await storage.repository.getSpend(payload.orgId, "2026-11-30")).toEqual({
      reservedUsd: 0,
      spentUsd: COST_PER_CALL,
    });
    expect(metrics).toContainEqual({
      name: "SkippedJobs",
      value: 1,
      unit: "Count",
      dimensions: { reason: "lease_lost" },
    });
    expect(metrics).toContainEqual({ name: "DigestCostUsd", value: COST_PER_CALL, unit: "None" });
    // The new holder's record and lease stand; this run wrote no row.
    expect((await storage.repository.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "skipped",
      reason: "claimed",
      coveredTurnEndedAt: null,
      leaseOwner: "usurper",
    });
  });

  it("has its commit refused when the lease is taken over during its last call: nothing written, lease_lost", async () => {
    const { payload, ports } = setup();
    const { digester, requests } = usurpedDigester(payload);
    const outcome = await runDigestJob(
      payload,
      { ...ports, digester },
      { maxPagesPerCall: 1, digestConcurrency: 1, maxCallsPerJob: 1 },
    );
    expect(requests).toHaveLength(1);
    expect(outcome).toMatchObject({ status: "skipped", reason: "lease_lost", calls: 1, digestsWritten: 0 });
    expect((await storage.repository.loadThreadDigests(payload.orgId, payload.threadId)).size).toBe(0);
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "skipped",
      reason: "claimed",
      leaseOwner: "usurper",
    });
  });

  it("records no failed pass over the new holder's record when it throws after the takeover", async () => {
    const { payload, ports } = setup();
    const warnings: string[] = [];
    const digester: DigestModel = {
      id: "broken",
      async digest() {
        await takeOver(payload.orgId, payload.threadId);
        throw new Error("a bug, not a model failure");
      },
    };
    await expect(
      runDigestJob(payload, { ...ports, digester, logger: { warn: (message) => warnings.push(message) } }),
    ).rejects.toThrow(/a bug/);
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "skipped",
      reason: "claimed",
      leaseOwner: "usurper",
    });
    expect(warnings).toEqual(["failed pass not recorded: the lease was lost to another run"]);
  });
});
