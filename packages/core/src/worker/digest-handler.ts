import { processPartialResponse, SqsFifoPartialProcessorAsync } from "@aws-lambda-powertools/batch";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import {
  DIGEST_JOB_DEFAULTS,
  type DigestJobOptions,
  type DigestJobOutcome,
  type DigestJobPayload,
  type DigestJobPorts,
  InvalidPayloadError,
  parseDigestJobPayload,
  runDigestJob,
  type TurnClockCheck,
} from "../index";
import type { DeadLetterQueue, DigestQueue } from "../queue/index";
import {
  consoleIssues,
  describeError,
  FunctionIssue,
  type FunctionLogger,
  type FunctionMetrics,
  type IssueReporter,
} from "./observability";

/** Defaults of {@link DigestHandlerDependencies}' settings. */
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

/**
 * When a record whose job failed with `error` on its `receiveCount`-th receive comes back:
 * after the backoff for a retryable error or one of unknown kind; at once for an error that
 * says it is not retryable (it reaches the dead letters within its receives, and its failed
 * pass record leaves the thread to the nightly sweep).
 */
export function retryDelaySeconds(
  error: unknown,
  receiveCount: number,
  settings: { retryBaseSeconds: number; retryMaxSeconds: number } = DIGEST_HANDLER_DEFAULTS,
): number {
  // Every context-cleaner error carries `retryable`; read as a field, it holds across copies of the package.
  if (typeof error === "object" && error !== null && (error as { retryable?: unknown }).retryable === false)
    return 0;
  const exponent = Math.min(Math.max(receiveCount, 1) - 1, 30);
  return Math.min(settings.retryMaxSeconds, settings.retryBaseSeconds * 2 ** exponent);
}

/** What the digest handler runs on; the edge (functions/digest.ts) builds it from the environment. */
export interface DigestHandlerDependencies {
  /** The job's ports; the handler adds `metrics`. */
  ports: Omit<DigestJobPorts, "metrics">;
  /**
   * The queue the records come from: the handler changes their visibility to hand them
   * back, and sends poison records to its dead letters (without them, a poison record is
   * handed back at once and reaches them through the queue's redrive policy).
   */
  queue: Pick<DigestQueue, "changeVisibility"> & { readonly deadLetters?: Pick<DeadLetterQueue, "send"> };
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  /**
   * Where a failed job, a poison record, a refused tenant and a fallback rate over the alarm
   * are reported as Error objects, besides their log line and metric (the invocation itself
   * succeeds). @default {@link consoleIssues}: `console.error(error)`, which the SST console's
   * Issues tab picks up
   */
  issues?: IssueReporter;
  /** The kill switch, read per record. @default never disabled */
  disabled?: () => boolean;
  /** The job's options. */
  jobOptions?: Partial<DigestJobOptions>;
  /** @default 3 */
  maxLockRequeueReceives?: number;
  /** @default 3 */
  maxCheckpointWaitReceives?: number;
  /** @default 30_000 */
  minRemainingMsToStart?: number;
  /** First step of the backoff after a failed job (see {@link retryDelaySeconds}). @default 30 */
  retryBaseSeconds?: number;
  /** @default 900 */
  retryMaxSeconds?: number;
  /**
   * Told of each job that finished (the record is acked), with the record's message id: an
   * embedded run reports the outcome of the event it published. A throw is logged and ignored.
   */
  onJobFinished?: (outcome: DigestJobOutcome, messageId: string) => void;
}

/**
 * How a record the handler started ended, the `outcome` dimension of its `RecordDuration`:
 * its job's status (`done`, `partial`, `skipped`, including the lock and claim skips acked
 * past their cap), `requeued` (handed back to the queue on purpose: a turn running,
 * another run's lease, too little time left), `failed` (its job threw) or `poison`.
 */
export type RecordOutcome = DigestJobOutcome["status"] | "requeued" | "failed" | "poison";

/** A Lambda handler of SQS FIFO batches with partial batch responses. */
export type DigestHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * A record handed back to the queue on purpose, to come back in `delaySeconds`: a turn was
 * running, another run held the thread, the checkpoint did not show the announced turn
 * yet, or too little time was left to run it. Reported as
 * a batch item failure so the event source mapping does not delete it, but neither logged
 * nor counted as a failure.
 */
export class RecordHandedBack extends Error {
  constructor(
    readonly reason: "turn_lock" | "claimed" | "no_time" | "checkpoint_behind",
    readonly delaySeconds: number,
  ) {
    super(`record handed back to the queue (${reason}), due again in ${delaySeconds} s`);
    this.name = "RecordHandedBack";
  }
}

/**
 * A record whose body is not a valid turn event (or whose turn ends too far ahead of the
 * worker's clock). It is sent to the dead letters with this reason and acked.
 */
export class PoisonRecordError extends Error {
  constructor(readonly reason: string) {
    super(`poison record: ${reason}`);
    this.name = "PoisonRecordError";
  }
}

/** The record's job, checked as the job will check it: a turn ending too far ahead of `clock` is poison too. */
function parseRecord(record: SQSRecord, clock: TurnClockCheck): DigestJobPayload {
  let body: unknown;
  try {
    body = JSON.parse(record.body);
  } catch (error) {
    throw new PoisonRecordError(`body is not JSON (${(error as Error).message})`);
  }
  try {
    return parseDigestJobPayload(body, clock);
  } catch (error) {
    if (error instanceof InvalidPayloadError) throw new PoisonRecordError(error.message);
    throw error;
  }
}

/** The record's SQS `SentTimestamp`, when it has a valid one: what the job coalesces turns on. */
function sentAt(record: SQSRecord): { queuedAt?: Date } {
  const sent = Number(record.attributes.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? { queuedAt: new Date(sent) } : {};
}

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
 * The digest function: one digest job per SQS record, in order, with partial batch
 * responses (Powertools' `SqsFifoPartialProcessorAsync` with `skipGroupOnError`: a record
 * that does not finish fails the rest of its thread's records in the batch, never the
 * other threads'). Per record:
 *
 * - an invalid body (not JSON, or not a turn event) is logged with its reason, counted
 *   (`PoisonRecords`), sent to the dead letters with its reason and acked: it has no
 *   ordering meaning, so the later records of its thread in the batch are still tried
 *   (if the dead letters cannot take it, it is handed back at once instead);
 * - too little time left: not started, handed back at once (`RecordsNotStarted`); so is a
 *   job that stopped for the clock before any call (`skipped/out_of_time`);
 * - the kill switch: the job drops it without I/O (`SkippedJobs{disabled}`), acked;
 * - skipped for the turn lock: handed back for the job's delay (`LockRequeues`), until
 *   {@link DIGEST_HANDLER_DEFAULTS.maxLockRequeueReceives}; then acked
 *   (`LockRequeuesCapped`), the pass record leaving it to the nightly sweep;
 * - skipped because the checkpoint does not show the turn the event announced yet: handed
 *   back for `checkpointWaitSeconds` (`CheckpointWaits`) until
 *   {@link DIGEST_HANDLER_DEFAULTS.maxCheckpointWaitReceives}, on which receive the job goes
 *   on with the checkpoint as it is (`CheckpointWaitsCapped`) and covers nothing;
 * - skipped because another run holds the thread's lease: the same, counted as
 *   `ClaimRequeues` and `ClaimRequeuesCapped`; before the ack its turn is raised as the
 *   thread's latest (nothing else of the holder's record changes), so the sweep finds it
 *   uncovered;
 * - a job that throws: logged, counted (`FailedJobs`) and handed back (the job itself
 *   recorded a failed pass, once its org was admitted) for
 *   {@link retryDelaySeconds}: a backoff for a retryable error, at once for one that is not.
 *
 * Every record it starts is timed on the ports' clock, from its start to its ack or hand-back
 * (the dead letters, the visibility change included), as `RecordDuration{outcome}` in
 * milliseconds (see {@link RecordOutcome}): unlike the job's `JobDuration`, which only a
 * pass that commits emits, it covers the skipped, handed-back, failed and poison records.
 *
 * A failed job, a poison record, a job refused as `not_owner` and a finished job whose
 * fallback rate is over `fallbackAlarmRate` are also reported to `issues` as Error objects
 * with the record's ids, since the invocation itself succeeds.
 *
 * Records of a thread skipped after one was handed back come back with it.
 */
export function createDigestHandler(dependencies: DigestHandlerDependencies): DigestHandler {
  const { ports, queue, logger, metrics } = dependencies;
  const maxLockRequeueReceives =
    dependencies.maxLockRequeueReceives ?? DIGEST_HANDLER_DEFAULTS.maxLockRequeueReceives;
  const maxCheckpointWaitReceives =
    dependencies.maxCheckpointWaitReceives ?? DIGEST_HANDLER_DEFAULTS.maxCheckpointWaitReceives;
  const minRemainingMsToStart =
    dependencies.minRemainingMsToStart ?? DIGEST_HANDLER_DEFAULTS.minRemainingMsToStart;
  const retry = {
    retryBaseSeconds: dependencies.retryBaseSeconds ?? DIGEST_HANDLER_DEFAULTS.retryBaseSeconds,
    retryMaxSeconds: dependencies.retryMaxSeconds ?? DIGEST_HANDLER_DEFAULTS.retryMaxSeconds,
  };
  const jobPorts: DigestJobPorts = { ...ports, metrics };
  const count = (name: string) => metrics.record({ name, value: 1, unit: "Count" });
  const issues = dependencies.issues ?? consoleIssues();
  const fallbackAlarmRate =
    dependencies.jobOptions?.fallbackAlarmRate ?? DIGEST_JOB_DEFAULTS.fallbackAlarmRate;

  /** The record's ids, for an issue: never its body. */
  function ids(log: Record<string, unknown>): Record<string, string | number> {
    const fields: Record<string, string | number> = {};
    for (const key of ["orgId", "threadId", "turnEndedAt", "messageId", "receiveCount"]) {
      const value = log[key];
      if (typeof value === "string" || typeof value === "number") fields[key] = value;
    }
    return fields;
  }

  /** Reports a finished job's outcome an operator must see: a refused tenant, a fallback rate over the alarm. */
  function reportOutcome(outcome: DigestJobOutcome, log: Record<string, unknown>): void {
    if (outcome.status === "skipped" && outcome.reason === "not_owner") {
      issues(
        new FunctionIssue(
          "TenantRefused",
          "digest job refused: its org does not own the thread (or the owner is unknown)",
          ids(log),
        ),
      );
    }
    if (outcome.digestedPages > 0 && outcome.fallbacks / outcome.digestedPages > fallbackAlarmRate) {
      issues(
        new FunctionIssue("DigestFallbackRateHigh", "digest fallback rate above the alarm threshold", {
          ...ids(log),
          fallbackRate: outcome.fallbacks / outcome.digestedPages,
          fallbackAlarmRate,
        }),
      );
    }
  }

  /** Makes a record visible again in `seconds`; a failure only delays it to its visibility timeout. */
  async function handBack(record: SQSRecord, seconds: number, log: Record<string, unknown>): Promise<void> {
    try {
      await queue.changeVisibility(record.receiptHandle, seconds);
    } catch (error) {
      logger.warn("visibility not changed: the record comes back after its visibility timeout", {
        ...log,
        ...describeError(error),
      });
    }
  }

  /**
   * Sends a poison record to the dead letters with its reason. A poison record has no
   * ordering meaning: once it is there it is acked, and the later records of its thread
   * in the batch are tried. When it cannot be sent, it is handed back at once instead, to
   * reach the dead letters through the queue's redrive policy (its thread's later records
   * in the batch come back with it).
   */
  async function deadLetter(
    record: SQSRecord,
    reason: string,
    log: Record<string, unknown>,
  ): Promise<boolean> {
    const fields = {
      body: record.body,
      groupId: record.attributes.MessageGroupId ?? "",
      deduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
    };
    try {
      if (queue.deadLetters === undefined) throw new Error("the digest queue has no dead-letter queue");
      await queue.deadLetters.send(fields, reason, record.messageId);
      return true;
    } catch (error) {
      logger.warn(
        "poison record not dead-lettered: handed back to reach the dead letters through the queue",
        {
          ...log,
          ...describeError(error),
        },
      );
      return false;
    }
  }

  /**
   * Raises the thread's latest seen turn to the job's (never back), leaving the lease
   * holder's status, covered turn and record time alone: its own pass still records.
   */
  async function recordSeenTurn(job: DigestJobPayload): Promise<void> {
    await ports.store.recordLatestTurn(job.orgId, job.threadId, {
      turnEndedAt: new Date(job.turnEndedAt),
      at: ports.clock.now(),
    });
  }

  /** Runs {@link handleRecord} and records its `RecordDuration{outcome}`, whatever the outcome. */
  async function timeRecord(
    record: SQSRecord,
    context: Context,
    handedBack: Map<string, number>,
  ): Promise<DigestJobOutcome | undefined> {
    const startedAt = ports.clock.now().getTime();
    // Stryker disable next-line ObjectLiteral: an unset poison flag reads as false, as the false it starts with
    const seen = { poison: false };
    // Stryker disable next-line StringLiteral: never read: the try and the catch both set the outcome before the finally records it
    let outcome: RecordOutcome = "failed";
    try {
      const finishedJob = await handleRecord(record, context, handedBack, seen);
      outcome = finishedJob === undefined ? "poison" : finishedJob.status;
      return finishedJob;
    } catch (error) {
      outcome = seen.poison ? "poison" : error instanceof RecordHandedBack ? "requeued" : "failed";
      throw error;
    } finally {
      metrics.record({
        name: "RecordDuration",
        value: Math.max(0, ports.clock.now().getTime() - startedAt),
        unit: "Milliseconds",
        dimensions: { outcome },
      });
    }
  }

  /** One record: returns its job's outcome, or nothing for a poison record dead-lettered; throws to leave it to the queue. */
  async function handleRecord(
    record: SQSRecord,
    context: Context,
    handedBack: Map<string, number>,
    seen: { poison: boolean },
  ): Promise<DigestJobOutcome | undefined> {
    const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
    const groupId = record.attributes.MessageGroupId ?? "";
    const log: Record<string, unknown> = { messageId: record.messageId, receiveCount };
    const giveBack = async (seconds: number) => {
      handedBack.set(groupId, seconds);
      await handBack(record, seconds, log);
    };

    let job: DigestJobPayload;
    try {
      job = parseRecord(record, {
        now: ports.clock.now(),
        ...(dependencies.jobOptions?.maxTurnClockSkewSeconds !== undefined
          ? { maxTurnClockSkewSeconds: dependencies.jobOptions.maxTurnClockSkewSeconds }
          : {}),
      });
    } catch (error) {
      seen.poison = true;
      const reason = error instanceof PoisonRecordError ? error.reason : String(error);
      logger.error("poison record: not a valid turn event, for the dead letters", {
        ...log,
        reason,
        body: record.body.slice(0, 1_000),
      });
      count("PoisonRecords");
      issues(
        new FunctionIssue("PoisonRecord", "poison record: not a valid turn event, for the dead letters", {
          ...ids(log),
          reason,
        }),
      );
      if (await deadLetter(record, reason, log)) return undefined;
      await giveBack(0);
      throw error;
    }
    Object.assign(log, { orgId: job.orgId, threadId: job.threadId, turnEndedAt: job.turnEndedAt });

    const remainingMs = context.getRemainingTimeInMillis();
    if (remainingMs < minRemainingMsToStart) {
      logger.info("not started: too little time left in this invocation", { ...log, remainingMs });
      count("RecordsNotStarted");
      await giveBack(0);
      // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
      throw new RecordHandedBack("no_time", 0);
    }

    let outcome: DigestJobOutcome;
    try {
      // The invocation's remaining time is the job's `remainingTimeMs` port; turns are
      // coalesced on the queue's send time.
      outcome = await runDigestJob(
        job,
        { ...jobPorts, remainingTimeMs: () => context.getRemainingTimeInMillis() },
        { ...dependencies.jobOptions, ...(dependencies.disabled?.() ? { disabled: true } : {}) },
        { ...sentAt(record), mayWaitForCheckpoint: receiveCount < maxCheckpointWaitReceives },
      );
    } catch (error) {
      const retryInSeconds = retryDelaySeconds(error, receiveCount, retry);
      logger.error("digest job failed: the queue retries it", {
        ...log,
        ...describeError(error),
        retryInSeconds,
      });
      count("FailedJobs");
      issues(
        new FunctionIssue(
          "DigestJobFailed",
          "digest job failed: the queue retries it",
          { ...ids(log), retryInSeconds },
          { cause: error },
        ),
      );
      await giveBack(retryInSeconds);
      throw error;
    }

    if (outcome.status === "skipped" && outcome.reason === "out_of_time") {
      // Stopped for the clock before any call: nothing was done, so it goes back at once
      // for an invocation with time to run it, rather than waiting for the nightly sweep.
      logger.info("not run: too little time left for a digest call", { ...log, ...outcomeSummary(outcome) });
      count("RecordsNotStarted");
      await giveBack(0);
      // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
      throw new RecordHandedBack("no_time", 0);
    }
    if (outcome.status === "skipped" && outcome.reason === "checkpoint_behind") {
      const delaySeconds = outcome.requeueAfterSeconds ?? 0;
      logger.info("the checkpoint does not show the announced turn yet: handed back to the queue", {
        ...log,
        delaySeconds,
      });
      count("CheckpointWaits");
      await giveBack(delaySeconds);
      // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
      throw new RecordHandedBack("checkpoint_behind", delaySeconds);
    }
    if (outcome.status === "skipped" && outcome.requeueAfterSeconds !== undefined) {
      const claimed = outcome.reason === "claimed";
      const metric = claimed ? "ClaimRequeues" : "LockRequeues";
      if (receiveCount < maxLockRequeueReceives) {
        logger.info(
          claimed
            ? "another run holds the thread: handed back to the queue"
            : "a turn is running: handed back to the queue",
          { ...log, delaySeconds: outcome.requeueAfterSeconds },
        );
        count(metric);
        await giveBack(outcome.requeueAfterSeconds);
        // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
        throw new RecordHandedBack(claimed ? "claimed" : "turn_lock", outcome.requeueAfterSeconds);
      }
      if (claimed) {
        // The run holding the lease covers the turn it was claimed for, not necessarily
        // this one: record this turn as the thread's latest, so the sweep finds it uncovered.
        try {
          await recordSeenTurn(job);
        } catch (error) {
          logger.warn("turn not recorded: handed back to the queue", { ...log, ...describeError(error) });
          await giveBack(outcome.requeueAfterSeconds);
          // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
          throw new RecordHandedBack("claimed", outcome.requeueAfterSeconds);
        }
        logger.warn("another run still holds the thread: its turn is recorded for the nightly sweep", {
          ...log,
          ...outcomeSummary(outcome),
        });
      } else {
        logger.warn("a turn is still running: left to the nightly sweep", {
          ...log,
          ...outcomeSummary(outcome),
        });
      }
      count(`${metric}Capped`);
      return finished(outcome, record.messageId, log);
    }
    logger.info("digest job finished", { ...log, ...outcomeSummary(outcome) });
    reportOutcome(outcome, log);
    return finished(outcome, record.messageId, log);
  }

  function finished(
    outcome: DigestJobOutcome,
    messageId: string,
    log: Record<string, unknown>,
  ): DigestJobOutcome {
    try {
      dependencies.onJobFinished?.(outcome, messageId);
    } catch (error) {
      logger.warn("onJobFinished threw: ignored", { ...log, ...describeError(error) });
    }
    return outcome;
  }

  /** Records the batch skipped after a record of their thread was handed back come back with it. */
  async function alignSkipped(
    event: SQSEvent,
    response: SQSBatchResponse,
    started: ReadonlySet<string>,
    handedBack: ReadonlyMap<string, number>,
  ): Promise<void> {
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const record of event.Records) {
      if (started.has(record.messageId) || !failed.has(record.messageId)) continue;
      const seconds = handedBack.get(record.attributes.MessageGroupId ?? "");
      const log = { messageId: record.messageId };
      logger.info("not started: an earlier record of its thread in this batch did not finish", log);
      if (seconds !== undefined) await handBack(record, seconds, log);
    }
  }

  return async (event, context) => {
    logger.addContext?.(context);
    const processor = new SqsFifoPartialProcessorAsync();
    const handedBack = new Map<string, number>();
    const started = new Set<string>();
    try {
      const response = await processPartialResponse(
        event,
        (record: SQSRecord) => {
          started.add(record.messageId);
          return timeRecord(record, context, handedBack);
        },
        processor,
        { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
      );
      await alignSkipped(event, response, started, handedBack);
      return response;
    } finally {
      metrics.flush();
    }
  };
}
