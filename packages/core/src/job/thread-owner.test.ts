import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel, DigestRequest, Metric, ThreadOwner, ThreadOwnership } from "../ports";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "owned",
  seed: 5,
  titles: ["Ground Lease", "Guaranty"],
  documentChars: 60_000,
  pageChars: 15_000,
});
const rawToolChars = 200_000;

const storage = usePgliteRepository();

/** A digester that records its requests and charges for each call. */
function payingDigester(): DigestModel & { requests: DigestRequest[] } {
  const inner = createExtractiveDigester();
  const requests: DigestRequest[] = [];
  return {
    id: "paying",
    requests,
    estimateCostUsd: () => 0.01,
    async digest(request) {
      requests.push(request);
      return { ...(await inner.digest(request)), model: "paying", costUsd: 0.01 };
    },
  };
}

function ownerOf(owners: Record<string, ThreadOwnership>): ThreadOwner & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    async ownerOf(threadId) {
      asked.push(threadId);
      return owners[threadId] ?? { status: "unknown" };
    },
  };
}

function job(orgId: string, threadId: string) {
  return { orgId, threadId, rawToolChars, turnEndedAt: at.toISOString() };
}

describe("runDigestJob: a thread is bound to the org that owns it", () => {
  it("refuses a payload naming another org than the thread's owner: no paid call, no row, no pass, counted", async () => {
    const digester = payingDigester();
    const metrics: Metric[] = [];
    const threadOwner = ownerOf({ "attacker-thread": { status: "owned", orgId: "attacker" } });
    const outcome = await runDigestJob(job("victim", "attacker-thread"), {
      checkpoints: createInMemoryCheckpointReader(new Map([["attacker-thread", fixture.messages]])),
      store: storage.repository,
      digester,
      clock: fixedClock(at),
      threadOwner,
      metrics: { record: (metric) => metrics.push(metric) },
    });
    expect(outcome).toMatchObject({ status: "skipped", reason: "not_owner", calls: 0, costUsd: 0 });
    expect(threadOwner.asked).toEqual(["attacker-thread"]);
    expect(digester.requests).toEqual([]);
    expect(await storage.repository.getSpend("victim", "2026-11-30")).toEqual({
      reservedUsd: 0,
      spentUsd: 0,
    });
    expect(await storage.repository.getPass("victim", "attacker-thread")).toBeNull();
    expect((await storage.repository.loadThreadDigests("victim", "attacker-thread")).size).toBe(0);
    expect(metrics).toContainEqual({
      name: "SkippedJobs",
      value: 1,
      unit: "Count",
      dimensions: { reason: "not_owner" },
    });

    // The victim's own thread of the same content finds nothing of the attacker's to reuse.
    const own = await runDigestJob(job("victim", "victim-thread"), {
      checkpoints: createInMemoryCheckpointReader(new Map([["victim-thread", fixture.messages]])),
      store: storage.repository,
      digester,
      clock: fixedClock(at),
      threadOwner: ownerOf({ "victim-thread": { status: "owned", orgId: "victim" } }),
    });
    expect(own).toMatchObject({ status: "done", reused: 0 });
    expect(digester.requests.length).toBeGreaterThan(0);
  });

  it.each([
    ["whose owner is unknown", { status: "unknown" } as const],
    ["whose checkpoints name two orgs", { status: "conflicting", orgIds: ["acme", "globex"] } as const],
  ])("refuses a thread %s, for every org", async (_label, ownership) => {
    const digester = payingDigester();
    const outcome = await runDigestJob(job("acme", "disputed"), {
      checkpoints: createInMemoryCheckpointReader(new Map([["disputed", fixture.messages]])),
      store: storage.repository,
      digester,
      clock: fixedClock(at),
      threadOwner: ownerOf({ disputed: ownership }),
    });
    expect(outcome).toMatchObject({ status: "skipped", reason: "not_owner" });
    expect(digester.requests).toEqual([]);
    expect(await storage.repository.getPass("acme", "disputed")).toBeNull();
  });

  it("runs the pass of the owner's own payload, and asks nothing for a job the trigger stops", async () => {
    const threadOwner = ownerOf({ mine: { status: "owned", orgId: "initech" } });
    const ports = {
      checkpoints: createInMemoryCheckpointReader(new Map([["mine", fixture.messages]])),
      store: storage.repository,
      digester: createExtractiveDigester(),
      clock: fixedClock(at),
      threadOwner,
    };
    expect(await runDigestJob({ ...job("initech", "mine"), rawToolChars: 10 }, ports)).toMatchObject({
      status: "skipped",
      reason: "below_trigger",
    });
    expect(threadOwner.asked).toEqual([]);
    expect((await runDigestJob(job("initech", "mine"), ports)).status).toBe("done");
    expect(threadOwner.asked).toEqual(["mine"]);
  });
});
