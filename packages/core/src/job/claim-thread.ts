import { commitLeased, type JobContext, skipped } from "./job-context";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";

/**
 * Between the gates and the plan: claims the thread for this run, so overlapping deliveries
 * of one event pay once. The lease is taken atomically on the pass record before any paid
 * call, timed by the store's clock (the database's), not this run's; a run that finds it
 * held skips as `claimed` and comes back after `claimRequeueDelaySeconds`. The claim also
 * re-reads the covered turn: a pass that finished between the gates and the claim makes
 * this one `nothing_new`.
 *
 * @returns the skip outcome (the lease is not held then), or `undefined` when this run holds it.
 */
export async function claimThread(context: JobContext): Promise<DigestJobOutcome | undefined> {
  const { job, options, ports } = context;
  const claim = await ports.store.claimThread(job.orgId, job.threadId, {
    owner: context.runId,
    at: ports.clock.now(),
    leaseMs: leaseMs(context),
    turnEndedAt: context.turnEndedAt,
  });
  if (!claim.claimed) {
    return skipped(context, SKIP_REASONS.claimed, { requeueAfterSeconds: options.claimRequeueDelaySeconds });
  }
  if (context.covers(claim.coveredTurnEndedAt)) {
    await releaseThread(context);
    return skipped(context, SKIP_REASONS.nothingNew);
  }
  return undefined;
}

/** Past the function's deadline, plus this margin, the run is surely gone. */
const LEASE_MARGIN_MS = 60_000;

/** `leaseDurationMs`, or less when the function has less time left than that. */
function leaseMs({ options, ports }: JobContext): number {
  const remaining = ports.remainingTimeMs?.();
  if (remaining === undefined) return options.leaseDurationMs;
  return Math.min(options.leaseDurationMs, Math.max(0, Math.ceil(remaining)) + LEASE_MARGIN_MS);
}

/** Releases this run's lease on the thread (a lease another run took over is left alone). */
export async function releaseThread(context: JobContext): Promise<void> {
  await context.ports.store.releaseThread(context.job.orgId, context.job.threadId, context.runId);
}

/**
 * Runs `work` under this run's lease and releases it however `work` ends. When `work`
 * throws, a `failed` pass is recorded first, under the lease (best effort: logged if it
 * cannot be, and nothing is written once the lease is lost), then the error propagates. A
 * failed release is logged only, the lease then lapsing on its own: it never hides the
 * error `work` threw, nor turns a pass `work` has committed into a failure (which would
 * mark the thread failed).
 */
export async function whileClaimed(
  context: JobContext,
  work: () => Promise<DigestJobOutcome>,
): Promise<DigestJobOutcome> {
  let outcome: DigestJobOutcome;
  try {
    outcome = await work();
  } catch (error) {
    await recordFailure(context);
    await releaseLogged(
      context,
      "could not release the thread's lease after a failed pass; it lapses on its own",
    );
    throw error;
  }
  await releaseLogged(context, "could not release the thread's lease after its pass; it lapses on its own");
  return outcome;
}

/** Records a `failed` pass under this run's lease; a store error is logged, not thrown. */
async function recordFailure(context: JobContext): Promise<void> {
  const log = { orgId: context.job.orgId, threadId: context.job.threadId };
  try {
    if (!(await commitLeased(context, [], "failed", null, false))) {
      // Stryker disable next-line OptionalChaining: without a logger, the TypeError is caught just below, where the logger is optional
      context.ports.logger?.warn("failed pass not recorded: the lease was lost to another run", log);
    }
  } catch (recordError) {
    context.ports.logger?.warn("failed pass not recorded", { ...log, error: String(recordError) });
  }
}

async function releaseLogged(context: JobContext, message: string): Promise<void> {
  await releaseThread(context).catch((releaseError: unknown) =>
    context.ports.logger?.warn(message, {
      orgId: context.job.orgId,
      threadId: context.job.threadId,
      error: String(releaseError),
    }),
  );
}
