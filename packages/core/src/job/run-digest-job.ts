import { claimThread, whileClaimed } from "./claim-thread";
import { commitPass, leaseLost } from "./commit-pass";
import { digestWithinBudget } from "./digest-within-budget";
import {
  createJobContext,
  type DigestJobPorts,
  type JobContext,
  type JobDelivery,
  recordPass,
  skipped,
} from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";
import { applyOrgPolicy, jobMode, readOrgPolicy } from "./org-policy";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";
import { admitJob, passGates } from "./pass-gates";
import type { DigestJobPayload } from "./payload";
import { planPass } from "./plan-pass";

/**
 * One digest pass over a thread, in four stages (see docs/architecture.md#the-worker):
 *
 * 1. gates — kill switch, trigger, owner ({@link admitJob}); then the org's policy, read once
 *    the org is admitted ({@link readOrgPolicy}): its overrides replace the options', mode
 *    `off` is the kill switch for the org, its tool rules join the policy's; then coalescing
 *    and the turn-lock peek ({@link passGates}), and the claim: this run takes the thread's
 *    lease, or skips as `claimed` ({@link claimThread});
 * 2. plan — read the checkpoint, count stale rows, classify, stubs, hash reuse ({@link planPass});
 * 3. digest — model calls within the call cap and the daily budget ({@link digestWithinBudget});
 * 4. commit — threshold, idempotent upsert, pass record, metrics ({@link commitPass}).
 *
 * Running it twice writes the same rows and spends nothing more; overlapping runs of one
 * thread pay once, since only the lease holder plans and digests. The lease is timed by the
 * store's clock and fences the run: it checks that it still holds the lease before each
 * call, and its commit (rows and pass record together) writes only while it does, so a run
 * whose lease was taken over ends `lease_lost` without overwriting the new holder's rows.
 * The lease is released when the pass ends, however it ends. A job that throws once its
 * org is admitted records a `failed` pass (best effort, so the sweep finds the thread even
 * if its message dead-letters; under the lease once it holds one) and rethrows; one that
 * throws before, e.g. when the owner cannot be read, writes nothing under the payload's
 * unverified org.
 *
 * Turns are coalesced on `delivery.queuedAt` when the queue gives it (one clock for every
 * runtime host), else on the turn's end.
 *
 * The payload is taken as parsed, once, at the edge: {@link parseDigestJobPayload} with
 * the worker's clock refuses an invalid event and a turn that ends more than
 * `maxTurnClockSkewSeconds` (300) ahead of it.
 *
 * @example
 * const job = parseDigestJobPayload(JSON.parse(record.body), { now: systemClock.now() });
 * const outcome = await runDigestJob(job, { checkpoints, store, digester, clock: systemClock });
 */
export async function runDigestJob(
  job: DigestJobPayload,
  ports: DigestJobPorts,
  options: Partial<DigestJobOptions> = {},
  delivery: JobDelivery = {},
): Promise<DigestJobOutcome> {
  const resolved = resolveJobOptions(options);
  const admission = createJobContext(job, ports, resolved, jobMode(resolved, null), delivery);
  const refused = await admitJob(admission);
  if (refused) return refused;
  // The org's policy, read once its org is admitted: its mode and overrides hold for every
  // later stage of the job.
  const orgPolicy = await readOrgPolicy(ports.store, job, resolved);
  const effective = applyOrgPolicy(resolved, orgPolicy);
  const context =
    orgPolicy === null
      ? admission
      : createJobContext(job, ports, effective, jobMode(effective, orgPolicy), delivery);
  if (effective.disabled) return skipped(context, SKIP_REASONS.disabled);
  if (job.rawToolChars < effective.triggerChars) return skipped(context, SKIP_REASONS.belowTrigger);
  try {
    const gated = await passGates(context);
    if (gated) return gated;
    const claimSkip = await claimThread(context);
    if (claimSkip) return claimSkip;
  } catch (error) {
    await recordPass(context, "failed", null, false).catch((recordError: unknown) =>
      ports.logger?.warn("failed pass not recorded", {
        orgId: job.orgId,
        threadId: job.threadId,
        error: String(recordError),
      }),
    );
    throw error;
  }
  return whileClaimed(context, () => claimedPass(context));
}

/** Plan, digest and commit, run while this run holds the thread's lease. */
async function claimedPass(context: JobContext): Promise<DigestJobOutcome> {
  const plan = await planPass(context);
  if ("status" in plan) return plan;
  const digested = await digestWithinBudget(context, plan.toDigest);
  if (digested.stopReason === SKIP_REASONS.leaseLost) return leaseLost(context);
  return commitPass(context, [...plan.rows, ...digested.rows], digested.stopReason);
}
