import { type JobContext, recordPass, skipped } from "./job-context";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";

/**
 * Stage 1a, admission: the kill switch and the trigger (no I/O), then the owner check (the
 * payload's org must own the thread). Nothing is read or written under the payload's org
 * before it passes, not even a failed pass when the owner cannot be read.
 *
 * @returns the skip outcome, or `undefined` when the job goes on under a verified org.
 */
export async function admitJob(context: JobContext): Promise<DigestJobOutcome | undefined> {
  const { job, options, ports } = context;
  if (options.disabled) return skipped(context, SKIP_REASONS.disabled);
  if (job.rawToolChars < options.triggerChars) return skipped(context, SKIP_REASONS.belowTrigger);
  if (ports.threadOwner) {
    const ownership = await ports.threadOwner.ownerOf(job.threadId);
    if (ownership.status !== "owned" || ownership.orgId !== job.orgId) {
      ports.logger?.warn("job refused: its org does not own the thread", {
        orgId: job.orgId,
        threadId: job.threadId,
        owner: ownership.status === "owned" ? ownership.orgId : ownership.status,
      });
      return skipped(context, SKIP_REASONS.notOwner);
    }
  }
  return undefined;
}

/**
 * Stage 1b, the gates of an admitted job: coalescing on the pass record (an earlier pass
 * already covered this turn) and the turn-lock peek (a turn is running: come back later).
 * A mid-turn event's job skips the peek: it is published while its turn runs, to digest
 * what the turn has moved past.
 *
 * @returns the skip outcome, or `undefined` when the job goes on.
 */
export async function passGates(context: JobContext): Promise<DigestJobOutcome | undefined> {
  const { job, options, ports } = context;
  const pass = await ports.store.getPass(job.orgId, job.threadId);
  if (context.covers(pass?.coveredTurnEndedAt)) {
    return skipped(context, SKIP_REASONS.nothingNew);
  }
  if (!job.midTurn && (await ports.lock?.isHeld(job.orgId, job.threadId))) {
    await recordPass(context, "skipped", SKIP_REASONS.turnLock, false);
    return skipped(context, SKIP_REASONS.turnLock, { requeueAfterSeconds: options.lockRequeueDelaySeconds });
  }
  return undefined;
}
