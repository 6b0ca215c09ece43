import type { PassReason } from "@context-cleaner/assembler/internal";

/**
 * Why a job was skipped; each value but `lease_lost` and `checkpoint_behind` is one of the
 * shared pass reasons (those two are never recorded: the run that lost its lease writes
 * nothing, and a job waiting for its checkpoint hands its event back without a trace).
 */
export const SKIP_REASONS = {
  disabled: "disabled",
  belowTrigger: "below_trigger",
  nothingNew: "nothing_new",
  turnLock: "turn_lock",
  noCheckpoint: "no_checkpoint",
  belowMinChars: "below_min_chars",
  budget: "budget",
  /** Another run holds the thread's lease: it pays for this pass, this one comes back later. */
  claimed: "claimed",
  /** The function's time ran short before any digest worth writing was made. */
  outOfTime: "out_of_time",
  /** The payload's org is not the thread's owner (or the owner is unknown or disputed): refused, nothing recorded. */
  notOwner: "not_owner",
  /**
   * This run's lease on the thread lapsed or another run took it over mid-pass: it made no
   * further call and wrote nothing, so the new holder's rows and pass record stand.
   */
  leaseLost: "lease_lost",
  /**
   * The checkpoint does not show the turn the event announced yet (the runtime published
   * before it wrote the turn's checkpoint): nothing was recorded or paid, and the event is
   * handed back to come again after `requeueAfterSeconds`.
   */
  checkpointBehind: "checkpoint_behind",
} as const satisfies Record<string, PassReason | "lease_lost" | "checkpoint_behind">;
export type SkipReason = (typeof SKIP_REASONS)[keyof typeof SKIP_REASONS];
/** The skip reasons a pass record may hold. */
export type RecordedSkipReason = Exclude<
  SkipReason,
  typeof SKIP_REASONS.leaseLost | typeof SKIP_REASONS.checkpointBehind
>;

/** Why a pass that wrote rows ended partial. */
export const PARTIAL_REASONS = {
  callCap: "call_cap",
  budget: "budget",
  digestFailed: "digest_failed",
  /** The function's remaining time could not fit one more call: the sweep or the next event goes on. */
  outOfTime: "out_of_time",
} as const satisfies Record<string, PassReason>;
export type PartialReason = (typeof PARTIAL_REASONS)[keyof typeof PARTIAL_REASONS];

/** What stopped the digest stage before every candidate had its call. */
export type DigestStopReason =
  | typeof PARTIAL_REASONS.callCap
  | typeof PARTIAL_REASONS.budget
  | typeof PARTIAL_REASONS.outOfTime;

export interface DigestJobStats {
  digestsWritten: number;
  calls: number;
  costUsd: number;
  reused: number;
  stale: number;
  /** Pages sent in digest calls that returned (whoever digested them). */
  digestedPages: number;
  /** Of those, pages the fallback digester digested. */
  fallbacks: number;
  failedCalls: number;
  /** Candidates left for the next pass (call cap, budget or a failed call). */
  deferred: number;
  charsSaved: number;
  droppedBullets: number;
}

export type DigestJobOutcome =
  | ({ status: "skipped"; reason: SkipReason; requeueAfterSeconds?: number } & DigestJobStats)
  | ({ status: "done" | "partial"; reason?: PartialReason } & DigestJobStats);

export function emptyStats(): DigestJobStats {
  return {
    digestsWritten: 0,
    calls: 0,
    costUsd: 0,
    reused: 0,
    stale: 0,
    digestedPages: 0,
    fallbacks: 0,
    failedCalls: 0,
    deferred: 0,
    charsSaved: 0,
    droppedBullets: 0,
  };
}
