import { InvalidOptionError, type ToolPolicyInput } from "@context-cleaner/assembler";
import { KEEP_RULE_DEFAULTS, type ToolPolicy, WATERMARK_DEFAULTS } from "@context-cleaner/assembler/internal";
import { DIGEST_RENDER_DEFAULTS } from "../render/render-digest";

/** Defaults of {@link runDigestJob}'s options (see docs/architecture.md#the-worker). */
export const DIGEST_JOB_DEFAULTS = {
  /** Below this much raw tool output a thread is not worth a pass. */
  triggerChars: 120_000,
  /** Digest calls per job; the rest waits for the next pass. */
  maxCallsPerJob: 12,
  /** Per-org daily digest budget in USD. */
  dailyBudgetUsd: 5,
  /** A pass writes its rows only when they save at least this many chars (prompt-cache awareness). */
  minCharsPerPass: 20_000,
  /** Results shorter than this are not worth a digest call (the digest would not be shorter). */
  minCandidateChars: 2_000,
  /** Pages of one document sent in one digest call at most. */
  maxPagesPerCall: 8,
  /**
   * Digest calls in flight at once. Admission stays in request order and rows come out in
   * request order, so the rows of a pass do not depend on it.
   */
  digestConcurrency: 4,
  /**
   * How long one digest call may take, at most: each call is aborted past it, and with a
   * `remainingTimeMs` port no call starts unless this much time, plus `commitReserveMs`, is left.
   */
  digestCallTimeoutMs: 60_000,
  /** Time kept, after the last call may end, to write the rows and record the pass. */
  commitReserveMs: 10_000,
  /**
   * A pass whose share of pages digested by the fallback (`FallbackRate`) exceeds this logs
   * a warning: a primary digester that always falls back is an outage, not a saving.
   */
  fallbackAlarmRate: 0.5,
  /** How long a job skipped for the turn lock waits before it is retried. */
  lockRequeueDelaySeconds: 60,
  /**
   * How long a run's claim on a thread lasts if the run dies without releasing it: the
   * longest function timeout (15 minutes) plus a minute of margin.
   */
  leaseDurationMs: 960_000,
  /** How long a job skipped because another run holds the thread waits before it is retried. */
  claimRequeueDelaySeconds: 60,
  /**
   * How long a job whose checkpoint does not show the turn its event announced yet waits
   * before it is retried (skipped `checkpoint_behind`): a runtime may publish a moment
   * before it writes the turn's checkpoint.
   */
  checkpointWaitSeconds: 3,
  /** How far a payload's turn end may lie ahead of the job's clock; further is an invalid payload. */
  maxTurnClockSkewSeconds: 300,
  recencyKeepExchanges: KEEP_RULE_DEFAULTS.recencyKeepExchanges,
  /**
   * A mid-turn pass (an event published inside a long turn) leaves the turn's latest this
   * many exchanges raw and digests what came before them, as the assembly's watermark
   * batches do (`WATERMARK_DEFAULTS.keepExchanges`, 1): docs/architecture.md#relief-inside-a-long-turn.
   */
  midTurnKeepExchanges: WATERMARK_DEFAULTS.keepExchanges,
  digestCharCap: DIGEST_RENDER_DEFAULTS.digestCharCap,
  digestCharCapMax: DIGEST_RENDER_DEFAULTS.digestCharCapMax,
  disabled: false,
  /**
   * Whether the runtime gives the model `read_original`, which returns any call's raw result
   * from the thread: then output of tools that are not idempotent (API responses, command
   * output) over the bulky-output size is digested too, its digest saying it is as it was
   * at the time of the call. Off, such output stays raw (`CONTEXT_CLEANER_READ_ORIGINAL=1`).
   */
  readOriginal: false,
} as const;

type NumericAndSwitchOptions = {
  -readonly [key in keyof typeof DIGEST_JOB_DEFAULTS]: (typeof DIGEST_JOB_DEFAULTS)[key] extends boolean
    ? boolean
    : number;
};

/** Options of {@link runDigestJob}; every field has a default in {@link DIGEST_JOB_DEFAULTS}. */
export type DigestJobOptions = NumericAndSwitchOptions & {
  /** The tool policy. @default the assembler's default policy */
  policy?: ToolPolicy | ToolPolicyInput;
};

/**
 * Fills the defaults in.
 * @throws {InvalidOptionError} when `digestConcurrency` or `midTurnKeepExchanges` is not a positive integer.
 */
export function resolveJobOptions(options: Partial<DigestJobOptions> = {}): DigestJobOptions {
  const resolved = { ...DIGEST_JOB_DEFAULTS, ...options };
  for (const field of ["digestConcurrency", "midTurnKeepExchanges"] as const) {
    if (!Number.isInteger(resolved[field]) || resolved[field] < 1) {
      throw new InvalidOptionError(
        `${field} must be a positive integer, got ${String(resolved[field])}`,
        field,
      );
    }
  }
  return resolved;
}
