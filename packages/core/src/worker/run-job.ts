import {
  type DigestJobOptions,
  type DigestJobOutcome,
  type DigestJobPayload,
  type DigestJobPorts,
  runDigestJob,
} from "../index";

/** What the functions hand a job besides its ports. */
export interface JobRun {
  /** The job's options (defaults in `DIGEST_JOB_DEFAULTS`). */
  options?: Partial<DigestJobOptions>;
  /**
   * Milliseconds left before the invocation times out (`context.getRemainingTimeInMillis`),
   * so the job stops starting model calls that would not finish and writes what it has.
   */
  remainingTimeMs?: () => number;
  /** When the queue accepted the job's event (SQS `SentTimestamp`): turns are coalesced on it. */
  queuedAt?: Date;
}

/**
 * The one place the digest handler starts a job (the local worker runs that same handler),
 * so a new job option is wired once. The invocation's remaining time is the job's
 * `remainingTimeMs` port.
 */
export function runJob(
  payload: DigestJobPayload,
  ports: DigestJobPorts,
  run: JobRun = {},
): Promise<DigestJobOutcome> {
  const timed: DigestJobPorts = run.remainingTimeMs
    ? { ...ports, remainingTimeMs: run.remainingTimeMs }
    : ports;
  return runDigestJob(payload, timed, run.options, run.queuedAt ? { queuedAt: run.queuedAt } : {});
}
