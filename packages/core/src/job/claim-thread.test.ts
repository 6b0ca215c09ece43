import { describe, expect, it } from "vitest";
import { describeOverlappingDeliveries } from "#test/core/conformance/overlapping-deliveries";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel, Metric } from "../ports";
import type { DigestJobPorts } from "./job-context";
import { DIGEST_JOB_DEFAULTS } from "./options";
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
    const longAgo = new Date(at.getTime() - DIGEST_JOB_DEFAULTS.leaseDurationMs);
    await storage.repository.claimThread(payload.orgId, payload.threadId, {
      owner: "dead-run",
      at: longAgo,
      leaseMs: DIGEST_JOB_DEFAULTS.leaseDurationMs,
    });
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
    await expect(
      runDigestJob(payload, { ...ports, digester: broken }, { leaseDurationMs: 120_000 }),
    ).rejects.toThrow(/a bug/);
    expect(seen).toEqual([new Date(at.getTime() + 120_000)]);
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
