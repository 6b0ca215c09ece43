import { claimThread, whileClaimed } from "./claim-thread";
import { commitPass } from "./commit-pass";
import { digestWithinBudget } from "./digest-within-budget";
import { createJobContext, type DigestJobPorts, type JobContext } from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";
import { applyOrgPolicy, jobMode, readOrgPolicy } from "./org-policy";
import type { DigestJobOutcome } from "./outcome";
import { passGates } from "./pass-gates";
import { parseDigestJobPayload } from "./payload";
import { planPass } from "./plan-pass";

/**
 * One digest pass over a thread, in four stages (see docs/architecture.md#the-worker):
 *
 * 0. the org's policy, read once ({@link readOrgPolicy}): its overrides replace the
 *    options', mode `off` is the kill switch for the org, its tool rules join the policy's;
 * 1. gates — kill switch, trigger, coalescing, turn-lock peek ({@link passGates}); then the
 *    claim: this run takes the thread's lease, or skips as `claimed` ({@link claimThread});
 * 2. plan — read the checkpoint, count stale rows, classify, stubs, hash reuse ({@link planPass});
 * 3. digest — model calls within the call cap and the daily budget ({@link digestWithinBudget});
 * 4. commit — threshold, idempotent upsert, pass record, metrics ({@link commitPass}).
 *
 * Running it twice writes the same rows and spends nothing more; overlapping runs of one
 * thread pay once, since only the lease holder plans and digests. The lease is released when
 * the pass ends, however it ends.
 *
 * @example
 * const outcome = await runDigestJob(event, { checkpoints, store, digester, clock: systemClock });
 * @throws {InvalidPayloadError} when the payload is not a valid post-turn event, or its turn
 *   ends more than `maxTurnClockSkewSeconds` (300) ahead of `ports.clock`.
 */
export async function runDigestJob(
  payload: unknown,
  ports: DigestJobPorts,
  options: Partial<DigestJobOptions> = {},
): Promise<DigestJobOutcome> {
  const resolved = resolveJobOptions(options);
  const job = parseDigestJobPayload(payload, {
    now: ports.clock.now(),
    maxTurnClockSkewSeconds: resolved.maxTurnClockSkewSeconds,
  });
  // The org's policy, read once: its mode and overrides hold for every stage of the job.
  const orgPolicy = await readOrgPolicy(ports.store, job, resolved);
  const effective = applyOrgPolicy(resolved, orgPolicy);
  const context = createJobContext(job, ports, effective, jobMode(effective, orgPolicy));
  const gated = await passGates(context);
  if (gated) return gated;
  const claimSkip = await claimThread(context);
  if (claimSkip) return claimSkip;
  return whileClaimed(context, () => claimedPass(context));
}

/** Plan, digest and commit, run while this run holds the thread's lease. */
async function claimedPass(context: JobContext): Promise<DigestJobOutcome> {
  const plan = await planPass(context);
  if ("status" in plan) return plan;
  const digested = await digestWithinBudget(context, plan.toDigest);
  return commitPass(context, [...plan.rows, ...digested.rows], digested.stopReason);
}
