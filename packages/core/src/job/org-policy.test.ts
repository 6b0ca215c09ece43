import type { Message } from "@context-cleaner/assembler";
import { type OrgPolicyInput, validateOrgPolicy } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestStore, Metric } from "../ports";
import { DIGEST_JOB_DEFAULTS, type DigestJobOptions, resolveJobOptions } from "./options";
import { applyOrgPolicy } from "./org-policy";
import { runDigestJob } from "./run-digest-job";

const fixture = buildHeavyThread({
  name: "org-policy",
  seed: 23,
  titles: ["Ground Lease — 445 W 35th", "Credit Agreement", "Guaranty"],
  documentChars: 90_000,
  pageChars: 15_000,
});
const rawToolChars = fixture.messages
  .filter((message) => message.role === "tool")
  .reduce((sum, message) => sum + (message.content as string).length, 0);
const at = new Date("2026-11-30T10:00:00.000Z");
const AUDIT = { updatedBy: "ops@example.com", updatedAt: at };

const storage = usePgliteRepository();

let counter = 0;

/** A job on a fresh org and thread whose store counts its policy reads. */
async function job(policy: OrgPolicyInput | undefined, options: Partial<DigestJobOptions> = {}) {
  const orgId = `org-policy-${++counter}`;
  const threadId = `thread-${counter}`;
  if (policy !== undefined) await storage.repository.setOrgPolicy(orgId, policy, AUDIT);
  let policyReads = 0;
  const store: DigestStore = {
    ...storage.repository,
    getOrgPolicy: (org) => {
      policyReads++;
      return storage.repository.getOrgPolicy(org);
    },
  };
  const metrics: Metric[] = [];
  const outcome = await runDigestJob(
    { orgId, threadId, rawToolChars, turnEndedAt: at.toISOString() },
    {
      checkpoints: createInMemoryCheckpointReader(new Map([[threadId, fixture.messages]])),
      store,
      digester: createExtractiveDigester(),
      clock: fixedClock(at),
      metrics: { record: (metric) => metrics.push(metric) },
    },
    options,
  );
  const digests = await storage.repository.loadThreadDigests(orgId, threadId);
  return { orgId, outcome, digests, metrics, policyReads: () => policyReads };
}

const toolOf = new Map(
  fixture.messages.flatMap((message: Message) =>
    message.role === "tool" ? [[message.toolCallId, message.toolName] as const] : [],
  ),
);
const argsOf = new Map(
  fixture.messages.flatMap((message: Message) =>
    message.role === "assistant"
      ? (message.toolCalls ?? []).map((call) => [call.id, call.args] as const)
      : [],
  ),
);

describe("the worker under an org's policy", () => {
  it("no row: the deployment's defaults, and the policy is read once", async () => {
    const none = await job(undefined);
    expect(none.outcome.status).toBe("done");
    expect(none.digests.size).toBeGreaterThan(5);
    expect(none.policyReads()).toBe(1);
    expect(none.metrics.some((metric) => metric.name === "ShadowCharsSaved")).toBe(false);
  });

  it("off: the kill switch for that org alone — acked as skipped `disabled`, counted, nothing written", async () => {
    const off = await job({ mode: "off" });
    expect(off.outcome).toMatchObject({ status: "skipped", reason: "disabled", calls: 0 });
    expect(off.digests.size).toBe(0);
    expect(off.metrics).toContainEqual(
      expect.objectContaining({ name: "SkippedJobs", value: 1, dimensions: { reason: "disabled" } }),
    );
    expect(off.policyReads()).toBe(1);
  });

  it("the deployment's kill switch reads no policy at all", async () => {
    const killed = await job({ mode: "on" }, { disabled: true });
    expect(killed.outcome).toMatchObject({ status: "skipped", reason: "disabled" });
    expect(killed.policyReads()).toBe(0);
  });

  it("shadow digests as on does and counts the would-be savings per org", async () => {
    const on = await job({ mode: "on" });
    const shadow = await job({ mode: "shadow" });
    expect(shadow.outcome.status).toBe("done");
    expect([...shadow.digests.keys()].sort()).toEqual([...on.digests.keys()].sort());
    expect(shadow.outcome.charsSaved).toBe(on.outcome.charsSaved);
    expect(shadow.metrics).toContainEqual({
      name: "ShadowCharsSaved",
      value: shadow.outcome.charsSaved,
      unit: "Count",
      dimensions: { orgId: shadow.orgId },
    });
    expect(shadow.outcome.charsSaved).toBeGreaterThan(0);
  });

  it("its overrides replace the deployment's: trigger, calls per job", async () => {
    const high = await job({ triggerChars: rawToolChars + 1 });
    expect(high.outcome).toMatchObject({ status: "skipped", reason: "below_trigger" });
    // An org only raises the trigger: below the deployment's, the job reads no policy at all.
    const low = await job({ triggerChars: 1_000 }, { triggerChars: rawToolChars + 1 });
    expect(low.outcome).toMatchObject({ status: "skipped", reason: "below_trigger" });
    expect(low.policyReads()).toBe(0);
    const capped = await job({ maxCallsPerJob: 1 });
    expect(capped.outcome.calls).toBe(1);
    expect(capped.outcome).toMatchObject({ status: "partial", reason: "call_cap" });
  });

  it("an exclude list keeps a tool's results out of classification", async () => {
    const all = await job(undefined);
    const tools = new Set([...all.digests.keys()].map((id) => toolOf.get(id) as string));
    expect(tools.has("read_document")).toBe(true);
    const others = [...tools].filter((tool) => tool !== "read_document");
    expect(others.length).toBeGreaterThan(0);
    const excluded = await job({ toolRules: { exclude: others } });
    const left = new Set([...excluded.digests.keys()].map((id) => toolOf.get(id)));
    expect(left).toEqual(new Set(["read_document"]));
    // An include list naming the same tool keeps the same results.
    const included = await job({ toolRules: { include: ["read_document"] } });
    expect([...included.digests.keys()]).toEqual([...excluded.digests.keys()]);
  });

  it("an argument pattern protects the results of the calls it matches", async () => {
    const all = await job(undefined);
    const files = [...all.digests.keys()]
      .map((id) => argsOf.get(id)?.file_id)
      .filter((file) => file !== undefined);
    const pinned = String(files[0]);
    expect(pinned).not.toBe("undefined");
    const protectedRun = await job({
      toolRules: { protectedArgs: [{ arg: "file_id", pattern: `^${pinned}$` }] },
    });
    const left = [...protectedRun.digests.keys()].map((id) => argsOf.get(id)?.file_id);
    expect(left).not.toContain(pinned);
    expect(protectedRun.digests.size).toBeGreaterThan(0);
    expect(protectedRun.digests.size).toBeLessThan(all.digests.size);
  });
});

describe("applyOrgPolicy", () => {
  it("keeps the options as they are without a policy, and stretches the cap's max to a larger cap", () => {
    const options = resolveJobOptions();
    expect(applyOrgPolicy(options, null)).toBe(options);
    const wide = applyOrgPolicy(options, validateOrgPolicy({ digestCharCap: 12_000, dailyBudgetUsd: 0.5 }));
    expect(wide).toMatchObject({ digestCharCap: 12_000, digestCharCapMax: 12_000, dailyBudgetUsd: 0.5 });
    const narrow = applyOrgPolicy(options, validateOrgPolicy({ digestCharCap: 1_000 }));
    expect(narrow).toMatchObject({
      digestCharCap: 1_000,
      digestCharCapMax: DIGEST_JOB_DEFAULTS.digestCharCapMax,
    });
  });
});
