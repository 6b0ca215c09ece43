import type { OrgPolicy } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestStore } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "policy",
  seed: 5,
  titles: ["Ground Lease"],
  documentChars: 45_000,
  pageChars: 15_000,
});
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

function ports(policy: OrgPolicy | null, store: DigestStore = createInMemoryDigestStore()) {
  return {
    checkpoints: createInMemoryCheckpointReader(new Map([[job.threadId, fixture.messages]])),
    store: { ...store, getOrgPolicy: async () => policy },
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
  };
}

const policy = (fields: Partial<OrgPolicy>): OrgPolicy => ({
  mode: "on",
  overrides: {},
  toolRules: undefined,
  ...fields,
});

describe("runDigestJob under the org's policy", () => {
  it("runs every later stage with the policy's overrides", async () => {
    const free = await runDigestJob(job, ports(null), { minCharsPerPass: 0 });
    expect(free.calls).toBeGreaterThan(0);
    const capped = await runDigestJob(job, ports(policy({ overrides: { maxCallsPerJob: 0 } })), {
      minCharsPerPass: 0,
    });
    expect(capped).toMatchObject({ calls: 0, deferred: free.deferred + free.digestedPages });
  });

  it("drops a job of an org whose mode is off, recording nothing", async () => {
    const store = createInMemoryDigestStore();
    const outcome = await runDigestJob(job, ports(policy({ mode: "off" }), store));
    expect(outcome).toMatchObject({ status: "skipped", reason: "disabled" });
    expect(await store.getPass(job.orgId, job.threadId)).toBeNull();
  });

  it("skips a job below the org's raised trigger, and runs one exactly at it", async () => {
    const raised = (triggerChars: number) => ports(policy({ overrides: { triggerChars } }));
    expect(await runDigestJob(job, raised(job.rawToolChars + 1))).toMatchObject({
      status: "skipped",
      reason: "below_trigger",
    });
    const atTrigger = await runDigestJob(job, raised(job.rawToolChars), { minCharsPerPass: 0 });
    expect(atTrigger.calls).toBeGreaterThan(0);
  });

  it("rethrows the job's error when its failed pass cannot be recorded and no logger is wired", async () => {
    const store: DigestStore = {
      ...createInMemoryDigestStore(),
      getPass: async () => {
        throw new Error("connection reset");
      },
      recordPass: async () => {
        throw new Error("still down");
      },
    };
    await expect(runDigestJob(job, ports(null, store))).rejects.toThrow("connection reset");
  });
});
