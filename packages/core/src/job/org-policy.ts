import type { OrgPolicy, PolicyMode } from "@context-cleaner/assembler";
import { resolveToolPolicy, withToolRules } from "@context-cleaner/assembler/internal";
import type { DigestStore } from "../ports";
import type { DigestJobOptions } from "./options";

/**
 * The org's policy, read once per job (docs/architecture.md#rollout-controls): null when
 * the org has none or the store keeps no policies. Nothing is read under the deployment's
 * kill switch, nor below the deployment's trigger: those jobs skip with no I/O at all.
 */
export async function readOrgPolicy(
  store: DigestStore,
  job: { orgId: string; rawToolChars: number },
  options: DigestJobOptions,
): Promise<OrgPolicy | null> {
  if (options.disabled || job.rawToolChars < options.triggerChars || !store.getOrgPolicy) return null;
  return store.getOrgPolicy(job.orgId);
}

/**
 * The job's options under the org's policy: its overrides win, but for the trigger, which
 * an org can only raise (below the deployment's, a job reads nothing, not even the
 * policy); mode `off` is the kill switch for the org.
 */
export function applyOrgPolicy(options: DigestJobOptions, policy: OrgPolicy | null): DigestJobOptions {
  if (policy === null) return options;
  const { overrides } = policy;
  const digestCharCap = overrides.digestCharCap ?? options.digestCharCap;
  return {
    ...options,
    ...overrides,
    triggerChars: Math.max(options.triggerChars, overrides.triggerChars ?? 0),
    // The cap's stretch for dense pages never falls below the cap itself.
    digestCharCapMax: Math.max(options.digestCharCapMax, digestCharCap),
    disabled: options.disabled || policy.mode === "off",
    policy: withToolRules(resolveToolPolicy(options.policy), policy.toolRules),
  };
}

/** The mode a job runs under. */
export function jobMode(options: DigestJobOptions, policy: OrgPolicy | null): PolicyMode {
  return options.disabled ? "off" : (policy?.mode ?? "on");
}
