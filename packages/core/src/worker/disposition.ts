import { DIGEST_JOB_DEFAULTS, type DigestJobOutcome, type SkipReason } from "../index";
import { describeError } from "./observability";

/** Defaults of the digest handler's settings, which {@link dispositionOf} decides with. */
export const DIGEST_HANDLER_DEFAULTS = {
  /**
   * A job skipped for the turn lock is handed back to the queue (to come back after the
   * job's delay) while its receive count is below this; from this receive on it is acked,
   * and its pass record (skipped, `turn_lock`) leaves it to the nightly sweep. Must stay
   * below the queue's receives before dead letters (5), so a busy thread never lands there.
   */
  maxLockRequeueReceives: 3,
  /**
   * A job whose checkpoint does not show the turn its event announced yet is handed back
   * (to come back after `checkpointWaitSeconds`) while its receive count is below this; on
   * this receive it goes on with the checkpoint as it is, and covers nothing.
   */
  maxCheckpointWaitReceives: 3,
  /** A record is not started with less time left in the invocation; it goes back at once. */
  minRemainingMsToStart: 30_000,
  /**
   * A job that fails with a retryable error (or one of unknown kind) comes back after
   * `retryBaseSeconds × 2^(receive − 1)`, at most `retryMaxSeconds`: 30 s, 60 s, 120 s, 240 s
   * over the queue's five receives, instead of the whole visibility timeout each time.
   */
  retryBaseSeconds: 30,
  retryMaxSeconds: 900,
} as const;

/** `retryBaseSeconds × 2^(receive − 1)`, at most `retryMaxSeconds`. */
function backoffSeconds(
  receiveCount: number,
  settings: { retryBaseSeconds: number; retryMaxSeconds: number },
): number {
  const exponent = Math.min(Math.max(receiveCount, 1) - 1, 30);
  return Math.min(settings.retryMaxSeconds, settings.retryBaseSeconds * 2 ** exponent);
}

/** Every context-cleaner error carries `retryable`; read as a field, it holds across copies of the package. */
function isNotRetryable(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === false
  );
}

/**
 * How a record the handler started ended, the `outcome` dimension of its `RecordDuration`:
 * its job's status (`done`, `partial`, `skipped`, including the lock and claim skips acked
 * past their cap), `requeued` (handed back to the queue on purpose: a turn running,
 * another run's lease, too little time left), `failed` (its job threw) or `poison`.
 */
export type RecordOutcome = DigestJobOutcome["status"] | "requeued" | "failed" | "poison";

/** What came of a record before its fate is decided: nothing here has been acked or handed back. */
export type RecordResult =
  /** Its body is not a valid turn event. `bodyStart`: at most its first 1,000 chars. */
  | { kind: "poison"; reason: string; bodyStart: string }
  /** Not started: too little time left in the invocation. */
  | { kind: "no_time"; remainingMs: number }
  /** Not started: the worker is stopping (SIGTERM), so it starts no new paid work. */
  | { kind: "stopping" }
  /** Its job threw. */
  | { kind: "failed"; error: unknown }
  /** Its job returned. */
  | { kind: "finished"; outcome: DigestJobOutcome };

/** A record handed back to the queue on purpose, by why: too little time, a worker stopping, or the job's skip reason. */
export type HandBackReason = "no_time" | "stopping" | SkipReason;

/** What the handler reports besides its log line: a failure an operator must see (see `FunctionIssue`). */
export interface IssueSpec {
  name: string;
  message: string;
  fields: Readonly<Record<string, string | number>>;
  cause?: unknown;
}

/** What a disposition logs, counts and reports; the handler adds the record's ids. */
interface Report {
  level: "info" | "warn" | "error";
  message: string;
  /** The log entry's fields besides the record's ids. */
  fields: Readonly<Record<string, unknown>>;
  /** Counted once. */
  metric?: string;
  issues: readonly IssueSpec[];
}

/** The record leaves the queue (the batch response does not name it). */
export interface Ack extends Report {
  action: "ack";
  outcome: RecordOutcome;
  /** Before the ack, raise the thread's latest seen turn to the record's; if that fails, do `otherwise`. */
  recordSeenTurn?: { otherwise: HandBack };
  /** The job's outcome, for `onJobFinished`; none for a record whose job did not finish. */
  job?: DigestJobOutcome;
}

/** The record is made visible again after `delaySeconds` and named failed in the batch response. */
export interface HandBack extends Report {
  action: "hand_back";
  outcome: RecordOutcome;
  delaySeconds: number;
  /** On purpose (not a failure), and why; none for a failed or poison record. */
  reason?: HandBackReason;
}

/** The record is sent to the dead letters with `reason`, then acked; if that fails, do `otherwise`. */
export interface DeadLetter extends Report {
  action: "dead_letter";
  outcome: RecordOutcome;
  reason: string;
  /** What to do when the dead letters cannot take it, logged at warn with `message`. */
  otherwise: (Ack | HandBack) & { unsentMessage: string };
}

/** The fate of a record: what the handler does with it, logs, counts and reports. No I/O is done deciding it. */
export type Disposition = Ack | HandBack | DeadLetter;

/** The settings {@link dispositionOf} decides with. */
export interface DispositionSettings {
  maxLockRequeueReceives: number;
  retryBaseSeconds: number;
  retryMaxSeconds: number;
  /** A finished job whose fallback rate is above this is reported. */
  fallbackAlarmRate: number;
}

/** {@link DispositionSettings} as the handler runs by default. */
export const DISPOSITION_DEFAULTS: DispositionSettings = {
  maxLockRequeueReceives: DIGEST_HANDLER_DEFAULTS.maxLockRequeueReceives,
  retryBaseSeconds: DIGEST_HANDLER_DEFAULTS.retryBaseSeconds,
  retryMaxSeconds: DIGEST_HANDLER_DEFAULTS.retryMaxSeconds,
  fallbackAlarmRate: DIGEST_JOB_DEFAULTS.fallbackAlarmRate,
};

/** How a skip the job asks to be handed back for (`requeueAfterSeconds`) is handled, by its reason. */
export interface RequeueRule {
  /** Counted at each hand-back; `<metric>Capped` at the ack past the cap. */
  metric: string;
  handedBack: string;
  /**
   * Logged at warn when the record is acked past the cap (`maxLockRequeueReceives`); none
   * when the job itself stops asking (it is handed back whatever its receive count).
   */
  capped?: string;
  /** Past the cap, raise the thread's latest seen turn before the ack (the sweep then finds it uncovered). */
  recordSeenTurnAtCap: boolean;
  /** Logged at warn when the seen turn cannot be recorded and the record goes back instead. */
  seenTurnUnrecorded?: string;
}

/**
 * The skips handed back to the queue, by reason. A new reason the job hands back for is one
 * more row; a reason without one is handled as the turn lock.
 */
export const REQUEUE_RULES = {
  turn_lock: {
    metric: "LockRequeues",
    handedBack: "a turn is running: handed back to the queue",
    capped: "a turn is still running: left to the nightly sweep",
    recordSeenTurnAtCap: false,
  },
  claimed: {
    metric: "ClaimRequeues",
    handedBack: "another run holds the thread: handed back to the queue",
    capped: "another run still holds the thread: its turn is recorded for the nightly sweep",
    // The run holding the lease covers the turn it was claimed for, not necessarily this one.
    recordSeenTurnAtCap: true,
    seenTurnUnrecorded: "turn not recorded: handed back to the queue",
  },
  // The job asks only while the delivery allows a wait (below maxCheckpointWaitReceives),
  // then goes on with the checkpoint as it is: no cap here.
  checkpoint_behind: {
    metric: "CheckpointWaits",
    handedBack: "the checkpoint does not show the announced turn yet: handed back to the queue",
    recordSeenTurnAtCap: false,
  },
} as const satisfies Partial<Record<SkipReason, RequeueRule>>;

/** The rule of a skip reason the job hands back for: its row, else the turn lock's. */
function requeueRuleOf(reason: SkipReason): { reason: SkipReason; rule: RequeueRule } {
  const rules: Partial<Record<SkipReason, RequeueRule>> = REQUEUE_RULES;
  const rule = rules[reason];
  return rule ? { reason, rule } : { reason: "turn_lock", rule: REQUEUE_RULES.turn_lock };
}

/** What a log entry carries of a job's outcome. */
function outcomeSummary(outcome: DigestJobOutcome): Record<string, unknown> {
  return {
    status: outcome.status,
    ...(outcome.reason ? { reason: outcome.reason } : {}),
    digestsWritten: outcome.digestsWritten,
    calls: outcome.calls,
    costUsd: outcome.costUsd,
    reused: outcome.reused,
    fallbacks: outcome.fallbacks,
    failedCalls: outcome.failedCalls,
    deferred: outcome.deferred,
    charsSaved: outcome.charsSaved,
  };
}

/**
 * The fate of a record from what came of it and its receive count: ack, hand back (with
 * its delay) or dead-letter, with the log line, the metric and the issues. Pure: the handler
 * applies it.
 */
export function dispositionOf(
  result: RecordResult,
  receiveCount: number,
  settings: DispositionSettings = DISPOSITION_DEFAULTS,
): Disposition {
  switch (result.kind) {
    case "poison":
      return poisonDisposition(result);
    case "no_time":
      return notStarted("not started: too little time left in this invocation", {
        remainingMs: result.remainingMs,
      });
    case "stopping":
      return {
        ...notStarted("not started: the worker is stopping", {}),
        reason: "stopping",
      };
    case "failed":
      return failedDisposition(result.error, receiveCount, settings);
    case "finished":
      return finishedDisposition(result.outcome, receiveCount, settings);
  }
}

function poisonDisposition(result: { reason: string; bodyStart: string }): Disposition {
  const message = "poison record: not a valid turn event, for the dead letters";
  return {
    action: "dead_letter",
    outcome: "poison",
    reason: result.reason,
    level: "error",
    message,
    fields: { reason: result.reason, body: result.bodyStart },
    metric: "PoisonRecords",
    issues: [{ name: "PoisonRecord", message, fields: { reason: result.reason } }],
    // Handed back, it would come back until the queue's redrive policy moved it, and the
    // valid records of its thread in each batch would wait behind it: logged and counted
    // above, it is dropped instead.
    otherwise: {
      action: "ack",
      outcome: "poison",
      unsentMessage: "poison record not dead-lettered: acked and dropped, its body logged above",
      ...quiet,
    },
  };
}

/** A disposition's report when the disposition it falls back to has already logged, counted and reported. */
const quiet = { level: "info", message: "", fields: {}, issues: [] } as const;

function notStarted(message: string, fields: Record<string, unknown>): HandBack {
  return {
    action: "hand_back",
    outcome: "requeued",
    reason: "no_time",
    delaySeconds: 0,
    level: "info",
    message,
    fields,
    metric: "RecordsNotStarted",
    issues: [],
  };
}

/**
 * The start of the dead-letter reason of a job that failed for good: its body is a valid
 * turn event (`dlq redrive` sends it back after a fix), unlike a poison record's.
 */
export const JOB_FAILED_FOR_GOOD = "job failed for good: ";

function failedDisposition(error: unknown, receiveCount: number, settings: DispositionSettings): Disposition {
  const described = describeError(error);
  if (isNotRetryable(error)) {
    // The worker dead-letters it itself: handed back at once, it would be retried at once
    // for as long as the queue keeps it, forever on a queue without a redrive policy.
    const retryInSeconds = backoffSeconds(receiveCount, settings);
    const message = "digest job failed for good: sent to the dead letters";
    return {
      action: "dead_letter",
      outcome: "failed",
      reason: `${JOB_FAILED_FOR_GOOD}${described.errorCode ?? described.errorName ?? "error"}: ${described.error}`,
      level: "error",
      message,
      fields: described,
      metric: "FailedJobs",
      issues: [{ name: "DigestJobFailed", message, fields: {}, cause: error }],
      otherwise: {
        action: "hand_back",
        outcome: "failed",
        delaySeconds: retryInSeconds,
        unsentMessage: "failed job not dead-lettered: handed back after the backoff",
        ...quiet,
        fields: { retryInSeconds },
      },
    };
  }
  const retryInSeconds = backoffSeconds(receiveCount, settings);
  const message = "digest job failed: the queue retries it";
  return {
    action: "hand_back",
    outcome: "failed",
    delaySeconds: retryInSeconds,
    level: "error",
    message,
    fields: { ...described, retryInSeconds },
    metric: "FailedJobs",
    issues: [{ name: "DigestJobFailed", message, fields: { retryInSeconds }, cause: error }],
  };
}

function finishedDisposition(
  outcome: DigestJobOutcome,
  receiveCount: number,
  settings: DispositionSettings,
): Disposition {
  if (outcome.status === "skipped" && outcome.reason === "out_of_time") {
    // Stopped for the clock before any call: nothing was done, so it goes back at once
    // for an invocation with time to run it, rather than waiting for the nightly sweep.
    return notStarted("not run: too little time left for a digest call", outcomeSummary(outcome));
  }
  if (
    outcome.status === "skipped" &&
    (outcome.requeueAfterSeconds !== undefined || outcome.reason in REQUEUE_RULES)
  ) {
    return requeueDisposition(outcome, outcome.requeueAfterSeconds ?? 0, receiveCount, settings);
  }
  return {
    action: "ack",
    outcome: outcome.status,
    job: outcome,
    level: "info",
    message: "digest job finished",
    fields: outcomeSummary(outcome),
    issues: outcomeIssues(outcome, settings.fallbackAlarmRate),
  };
}

function requeueDisposition(
  outcome: DigestJobOutcome & { status: "skipped" },
  delaySeconds: number,
  receiveCount: number,
  settings: DispositionSettings,
): Disposition {
  const { reason, rule } = requeueRuleOf(outcome.reason);
  const handBack = { action: "hand_back", outcome: "requeued", reason, delaySeconds } as const;
  if (rule.capped === undefined || receiveCount < settings.maxLockRequeueReceives) {
    return {
      ...handBack,
      level: "info",
      message: rule.handedBack,
      fields: { delaySeconds },
      metric: rule.metric,
      issues: [],
    };
  }
  const unrecorded = {
    ...handBack,
    level: "warn",
    message: rule.seenTurnUnrecorded ?? "",
    fields: {},
    issues: [],
  } as const;
  return {
    action: "ack",
    outcome: outcome.status,
    job: outcome,
    level: "warn",
    message: rule.capped ?? "",
    fields: outcomeSummary(outcome),
    metric: `${rule.metric}Capped`,
    issues: [],
    ...(rule.recordSeenTurnAtCap ? { recordSeenTurn: { otherwise: unrecorded } } : {}),
  };
}

/** A finished job's outcome an operator must see: a refused tenant, a fallback rate over the alarm. */
function outcomeIssues(outcome: DigestJobOutcome, fallbackAlarmRate: number): IssueSpec[] {
  const issues: IssueSpec[] = [];
  if (outcome.status === "skipped" && outcome.reason === "not_owner") {
    issues.push({
      name: "TenantRefused",
      message: "digest job refused: its org does not own the thread (or the owner is unknown)",
      fields: {},
    });
  }
  if (outcome.digestedPages > 0 && outcome.fallbacks / outcome.digestedPages > fallbackAlarmRate) {
    issues.push({
      name: "DigestFallbackRateHigh",
      message: "digest fallback rate above the alarm threshold",
      fields: { fallbackRate: outcome.fallbacks / outcome.digestedPages, fallbackAlarmRate },
    });
  }
  return issues;
}
