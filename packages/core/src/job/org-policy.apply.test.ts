import { createToolPolicy, type OrgPolicy } from "@context-cleaner/assembler";
import { resolveToolPolicy, validateOrgPolicy } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import type { DigestStore } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { resolveJobOptions } from "./options";
import { applyOrgPolicy, jobMode, readOrgPolicy } from "./org-policy";

/** A store whose policy reads are counted, holding `policy` for every org. */
function policyStore(policy: OrgPolicy | null) {
  const reads: string[] = [];
  const store: DigestStore = {
    ...createInMemoryDigestStore(),
    getOrgPolicy: async (orgId) => {
      reads.push(orgId);
      return policy;
    },
  };
  return { store, reads };
}

const options = resolveJobOptions({ triggerChars: 1_000 });
const shadow = validateOrgPolicy({ mode: "shadow", maxCallsPerJob: 3 });

describe("readOrgPolicy", () => {
  it("reads the org's policy for a job at the trigger", async () => {
    const { store, reads } = policyStore(shadow);
    expect(await readOrgPolicy(store, { orgId: "acme", rawToolChars: 1_000 }, options)).toBe(shadow);
    expect(reads).toEqual(["acme"]);
  });

  it("reads nothing below the trigger, under the kill switch, or from a store that keeps no policies", async () => {
    const below = policyStore(shadow);
    expect(await readOrgPolicy(below.store, { orgId: "acme", rawToolChars: 999 }, options)).toBeNull();
    expect(below.reads).toEqual([]);
    const off = policyStore(shadow);
    const disabled = { ...options, disabled: true };
    expect(await readOrgPolicy(off.store, { orgId: "acme", rawToolChars: 5_000 }, disabled)).toBeNull();
    expect(off.reads).toEqual([]);
    const { getOrgPolicy: _none, ...withoutPolicies } = policyStore(shadow).store;
    expect(await readOrgPolicy(withoutPolicies, { orgId: "acme", rawToolChars: 5_000 }, options)).toBeNull();
  });
});

describe("applyOrgPolicy", () => {
  it("lets an org raise the trigger but never lower it", () => {
    expect(applyOrgPolicy(options, validateOrgPolicy({ triggerChars: 5_000 })).triggerChars).toBe(5_000);
    expect(applyOrgPolicy(options, validateOrgPolicy({ triggerChars: 10 })).triggerChars).toBe(1_000);
    expect(applyOrgPolicy(options, validateOrgPolicy({})).triggerChars).toBe(1_000);
  });

  it("overrides the other options and keeps the rest", () => {
    const applied = applyOrgPolicy(options, validateOrgPolicy({ maxCallsPerJob: 2, dailyBudgetUsd: 0.25 }));
    expect(applied).toMatchObject({ maxCallsPerJob: 2, dailyBudgetUsd: 0.25, disabled: false });
    expect(applied.digestCallTimeoutMs).toBe(options.digestCallTimeoutMs);
    expect(applied.digestCharCapMax).toBe(options.digestCharCapMax);
  });

  it("mode off disables the job; a deployment's kill switch stays on whatever the org's mode", () => {
    expect(applyOrgPolicy(options, validateOrgPolicy({ mode: "off" })).disabled).toBe(true);
    expect(applyOrgPolicy(options, validateOrgPolicy({ mode: "on" })).disabled).toBe(false);
    expect(applyOrgPolicy({ ...options, disabled: true }, validateOrgPolicy({ mode: "on" })).disabled).toBe(
      true,
    );
  });

  it("layers the org's tool rules over the deployment's policy, and keeps the policy without rules", () => {
    const base = createToolPolicy();
    const deployment = { ...options, policy: base };
    expect(applyOrgPolicy(deployment, validateOrgPolicy({})).policy).toBe(base);
    const excluded = resolveToolPolicy(
      applyOrgPolicy(deployment, validateOrgPolicy({ toolRules: { exclude: ["read_document"] } })).policy,
    );
    expect(base.protects("read_document", {})).toBe(false);
    expect(excluded.protects("read_document", {})).toBe(true);
  });
});

describe("jobMode", () => {
  it("is off under the kill switch, else the org's mode, else on", () => {
    expect(jobMode({ ...options, disabled: true }, shadow)).toBe("off");
    expect(jobMode(options, shadow)).toBe("shadow");
    expect(jobMode(options, null)).toBe("on");
  });
});
