import { type JobContext, recordPass, skipped } from "./job-context";
import { type DigestJobOutcome, SKIP_REASONS } from "./outcome";

/**
 * Stage 1, the gates: the kill switch and the trigger (no I/O), then the owner check (the
 * payload's org must own the thread; before anything is read or written under that org),
 * coalescing on the pass record (an earlier pass already covered this turn) and the
 * turn-lock peek (a turn is running: come back later).
 *
 * @returns the skip outcome, or `undefined` when the job goes on.
 */
export async function passGates(context: JobContext): Promise<DigestJobOutcome | undefined> {
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

  const pass = await ports.store.getPass(job.orgId, job.threadId);
  if (pass?.coveredTurnEndedAt && pass.coveredTurnEndedAt >= context.turnEndedAt) {
    return skipped(context, SKIP_REASONS.nothingNew);
  }
  if (await ports.lock?.isHeld(job.orgId, job.threadId)) {
    await recordPass(context, "skipped", SKIP_REASONS.turnLock, false);
    return skipped(context, SKIP_REASONS.turnLock, { requeueAfterSeconds: options.lockRequeueDelaySeconds });
  }
  return undefined;
}
