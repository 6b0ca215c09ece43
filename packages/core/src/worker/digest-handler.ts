import { processPartialResponse, SqsFifoPartialProcessorAsync } from "@aws-lambda-powertools/batch";
import { redactedError } from "@context-cleaner/assembler/internal";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { CoreError, coreErrorMarker } from "../errors";
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
  DIGEST_HANDLER_DEFAULTS,
  type Disposition,
  type DispositionSettings,
  dispositionOf,
  type HandBack,
  type HandBackReason,
  type RecordOutcome,
  type RecordResult,
} from "./disposition";
import {
  consoleIssues,
  describeError,
  FunctionIssue,
  type FunctionLogger,
  type FunctionMetrics,
  type IssueReporter,
} from "./observability";

/** What the digest handler runs on; the edge (functions/digest.ts) builds it from the environment. */
export interface DigestHandlerDependencies {
  /** The job's ports; the handler adds `metrics`. */
  ports: Omit<DigestJobPorts, "metrics">;
  /**
   * The queue the records come from: the handler changes their visibility to hand them
   * back, and sends poison records to its dead letters (without them, or when they cannot
   * take one, a poison record is logged, counted and acked: it is dropped).
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
  /**
   * Aborted when the host stops (`context-cleaner worker` at SIGTERM): from then on no job
   * starts, and each record not yet started is handed back at once. @default never
   */
  shutdown?: AbortSignal;
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
  /** First step of the backoff after a failed job (see {@link DIGEST_HANDLER_DEFAULTS.retryBaseSeconds}). @default 30 */
  retryBaseSeconds?: number;
  /** @default 900 */
  retryMaxSeconds?: number;
  /**
   * Told of each job that finished (the record is acked), with the record's message id: an
   * embedded run reports the outcome of the event it published. A throw is logged and ignored.
   */
  onJobFinished?: (outcome: DigestJobOutcome, messageId: string) => void;
}

/** A Lambda handler of SQS FIFO batches with partial batch responses. */
export type DigestHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

const recordHandedBackMarker = coreErrorMarker("RecordHandedBack");
const recordHandedBackSymbol = Symbol.for(recordHandedBackMarker);

/**
 * A record handed back to the queue on purpose, to come back in `delaySeconds`: a turn was
 * running, another run held the thread, the checkpoint did not show the announced turn
 * yet, or too little time was left to run it. Reported as
 * a batch item failure so the event source mapping does not delete it, but neither logged
 * nor counted as a failure.
 */
export class RecordHandedBack extends CoreError {
  protected readonly [recordHandedBackSymbol] = true;

  constructor(
    readonly reason: HandBackReason,
    readonly delaySeconds: number,
  ) {
    super(`record handed back to the queue (${reason}), due again in ${delaySeconds} s`, {
      code: "record_handed_back",
      retryable: true,
    });
    this.name = "RecordHandedBack";
  }

  static override isInstance(error: unknown): error is RecordHandedBack {
    return CoreError.hasMarker(error, recordHandedBackMarker);
  }
}

const poisonRecordMarker = coreErrorMarker("PoisonRecordError");
const poisonRecordSymbol = Symbol.for(poisonRecordMarker);

/**
 * A record whose body is not a valid turn event (or whose turn ends too far ahead of the
 * worker's clock). It is sent to the dead letters with this reason and acked.
 */
export class PoisonRecordError extends CoreError {
  protected readonly [poisonRecordSymbol] = true;

  constructor(readonly reason: string) {
    super(`poison record: ${reason}`, { code: "poison_record", retryable: false });
    this.name = "PoisonRecordError";
  }

  static override isInstance(error: unknown): error is PoisonRecordError {
    return CoreError.hasMarker(error, poisonRecordMarker);
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

/** What the handler runs with, settled once: its dependencies and its settings. */
interface HandlerRun {
  dependencies: DigestHandlerDependencies;
  jobPorts: DigestJobPorts;
  settings: DispositionSettings;
  minRemainingMsToStart: number;
  maxCheckpointWaitReceives: number;
  issues: IssueReporter;
}

/** A record's log fields: its message id and receive count, then its job's ids once parsed. */
type RecordLog = Record<string, unknown>;

/** How a record was settled: acked (its job's outcome, if it ran) or handed back, with why for the batch response. */
type Settled =
  | { outcome: RecordOutcome; acked: true; job?: DigestJobOutcome }
  | { outcome: RecordOutcome; acked: false; failure: unknown };

/** The record's ids, for an issue: never its body. */
function ids(log: RecordLog): Record<string, string | number> {
  const fields: Record<string, string | number> = {};
  for (const key of ["orgId", "threadId", "turnEndedAt", "messageId", "receiveCount"]) {
    const value = log[key];
    if (typeof value === "string" || typeof value === "number") fields[key] = value;
  }
  return fields;
}

/**
 * What came of a record: parsed (poison if it is not a valid turn event), not started for
 * want of time, or its job run. `log` gains the job's ids once it is parsed.
 */
async function resultOf(
  record: SQSRecord,
  context: Context,
  run: HandlerRun,
  log: RecordLog & { receiveCount: number },
): Promise<{ result: RecordResult; job?: DigestJobPayload }> {
  const { dependencies, jobPorts } = run;
  let job: DigestJobPayload;
  try {
    const skew = dependencies.jobOptions?.maxTurnClockSkewSeconds;
    job = parseRecord(record, {
      now: jobPorts.clock.now(),
      ...(skew !== undefined ? { maxTurnClockSkewSeconds: skew } : {}),
    });
  } catch (error) {
    const reason = PoisonRecordError.isInstance(error) ? error.reason : String(error);
    return { result: { kind: "poison", reason, bodyStart: record.body.slice(0, 1_000) } };
  }
  Object.assign(log, { orgId: job.orgId, threadId: job.threadId, turnEndedAt: job.turnEndedAt });
  if (dependencies.shutdown?.aborted) return { result: { kind: "stopping" }, job };
  const remainingMs = context.getRemainingTimeInMillis();
  if (remainingMs < run.minRemainingMsToStart) return { result: { kind: "no_time", remainingMs }, job };
  try {
    // The invocation's remaining time is the job's `remainingTimeMs` port; turns are
    // coalesced on the queue's send time.
    const outcome = await runDigestJob(
      job,
      { ...jobPorts, remainingTimeMs: () => context.getRemainingTimeInMillis() },
      { ...dependencies.jobOptions, ...(dependencies.disabled?.() ? { disabled: true } : {}) },
      // The job may hand the record back to wait for its announced turn, on its first receives.
      { ...sentAt(record), mayWaitForCheckpoint: log.receiveCount < run.maxCheckpointWaitReceives },
    );
    return { result: { kind: "finished", outcome }, job };
  } catch (error) {
    return { result: { kind: "failed", error }, job };
  }
}

/** Logs, counts and reports what a disposition says, with the record's ids. */
function report(disposition: Disposition, log: RecordLog, run: HandlerRun): void {
  const { logger, metrics } = run.dependencies;
  logger[disposition.level](disposition.message, { ...log, ...disposition.fields });
  if (disposition.metric) metrics.record({ name: disposition.metric, value: 1, unit: "Count" });
  for (const issue of disposition.issues) {
    run.issues(
      new FunctionIssue(
        issue.name,
        issue.message,
        { ...ids(log), ...issue.fields },
        // The console prints the cause with the issue: a redacted copy, without its own cause.
        issue.cause === undefined ? undefined : { cause: redactedError(issue.cause) },
      ),
    );
  }
}

/** Makes a record visible again in `seconds`; a failure only delays it to its visibility timeout. */
async function changeVisibility(record: SQSRecord, seconds: number, log: RecordLog, run: HandlerRun) {
  try {
    await run.dependencies.queue.changeVisibility(record.receiptHandle, seconds);
  } catch (error) {
    run.dependencies.logger.warn(
      "visibility not changed: the record comes back after its visibility timeout",
      {
        ...log,
        ...describeError(error),
      },
    );
  }
}

/** Sends a record to the dead letters with its reason; false (logged with `unsentMessage`) when they cannot take it. */
async function sendToDeadLetters(
  record: SQSRecord,
  reason: string,
  unsentMessage: string,
  log: RecordLog,
  run: HandlerRun,
): Promise<boolean> {
  const { queue, logger } = run.dependencies;
  try {
    if (queue.deadLetters === undefined) throw new Error("the digest queue has no dead-letter queue");
    await queue.deadLetters.send(
      {
        body: record.body,
        groupId: record.attributes.MessageGroupId ?? "",
        deduplicationId: record.attributes.MessageDeduplicationId ?? record.messageId,
      },
      reason,
      record.messageId,
    );
    return true;
  } catch (error) {
    logger.warn(unsentMessage, { ...log, ...describeError(error) });
    return false;
  }
}

/** Raises the thread's latest seen turn to the job's (never back), leaving the lease holder's record alone. */
async function recordSeenTurn(job: DigestJobPayload, run: HandlerRun): Promise<void> {
  await run.jobPorts.store.recordLatestTurn(job.orgId, job.threadId, {
    turnEndedAt: new Date(job.turnEndedAt),
    at: run.jobPorts.clock.now(),
  });
}

/**
 * Does what the disposition says: hands the record back (its thread's later records in the
 * batch follow with the same delay), dead-letters it, or acks it.
 */
async function apply(
  disposition: Disposition,
  record: SQSRecord,
  job: DigestJobPayload | undefined,
  log: RecordLog,
  run: HandlerRun,
  handedBack: Map<string, number>,
): Promise<Disposition & { action: "ack" | "hand_back" }> {
  const handBack = async (back: HandBack) => {
    handedBack.set(record.attributes.MessageGroupId ?? "", back.delaySeconds);
    await changeVisibility(record, back.delaySeconds, log, run);
    return back;
  };
  if (disposition.action === "hand_back") return handBack(disposition);
  if (disposition.action === "dead_letter") {
    const { otherwise } = disposition;
    if (await sendToDeadLetters(record, disposition.reason, otherwise.unsentMessage, log, run)) {
      return { ...disposition, action: "ack" };
    }
    return otherwise.action === "hand_back" ? handBack(otherwise) : otherwise;
  }
  if (disposition.recordSeenTurn && job) {
    try {
      await recordSeenTurn(job, run);
    } catch (error) {
      const { otherwise } = disposition.recordSeenTurn;
      run.dependencies.logger[otherwise.level](otherwise.message, { ...log, ...describeError(error) });
      return handBack(otherwise);
    }
  }
  return disposition;
}

/**
 * One record: what came of it, its disposition, applied. Its log line comes before the
 * hand-back or dead letter, as the disposition's report; a seen turn is recorded first.
 */
async function handleRecord(
  record: SQSRecord,
  context: Context,
  run: HandlerRun,
  handedBack: Map<string, number>,
): Promise<Settled> {
  const receiveCount = Number(record.attributes.ApproximateReceiveCount) || 1;
  const log: RecordLog & { receiveCount: number } = { messageId: record.messageId, receiveCount };
  const { result, job } = await resultOf(record, context, run, log);
  const disposition = dispositionOf(result, receiveCount, run.settings);
  const reportFirst = disposition.action !== "ack" || disposition.recordSeenTurn === undefined;
  if (reportFirst) report(disposition, log, run);
  const applied = await apply(disposition, record, job, log, run, handedBack);
  if (!reportFirst && applied.action === "ack") report(disposition, log, run);
  if (applied.action === "hand_back") {
    return { outcome: applied.outcome, acked: false, failure: failureOf(result, applied) };
  }
  if (applied.job) finished(applied.job, record.messageId, log, run);
  return { outcome: applied.outcome, acked: true, ...(applied.job ? { job: applied.job } : {}) };
}

/** What a handed-back record throws for the batch response: the job's error, the poison, or the hand-back. */
function failureOf(result: RecordResult, handBack: HandBack): unknown {
  if (result.kind === "failed") return result.error;
  if (result.kind === "poison") return new PoisonRecordError(result.reason);
  // Stryker disable next-line StringLiteral: the reason of a hand-back only marks the record failed for the batch response; nothing reads it
  return new RecordHandedBack(handBack.reason ?? "no_time", handBack.delaySeconds);
}

/** Tells `onJobFinished` of a job whose record is acked; a throw is logged and ignored. */
function finished(outcome: DigestJobOutcome, messageId: string, log: RecordLog, run: HandlerRun): void {
  try {
    run.dependencies.onJobFinished?.(outcome, messageId);
  } catch (error) {
    run.dependencies.logger.warn("onJobFinished threw: ignored", { ...log, ...describeError(error) });
  }
}

/** Runs {@link handleRecord} and records its `RecordDuration{outcome}`, whatever the outcome. */
async function timeRecord(
  record: SQSRecord,
  context: Context,
  run: HandlerRun,
  handedBack: Map<string, number>,
): Promise<DigestJobOutcome | undefined> {
  const clock = run.jobPorts.clock;
  const startedAt = clock.now().getTime();
  // Stryker disable next-line StringLiteral: never read: handleRecord settles the outcome before the finally records it, or throws a bug
  let outcome: RecordOutcome = "failed";
  try {
    const settled = await handleRecord(record, context, run, handedBack);
    outcome = settled.outcome;
    if (!settled.acked) throw settled.failure;
    return settled.job;
  } finally {
    run.dependencies.metrics.record({
      name: "RecordDuration",
      value: Math.max(0, clock.now().getTime() - startedAt),
      unit: "Milliseconds",
      dimensions: { outcome },
    });
  }
}

/** Records the batch skipped after a record of their thread was handed back come back with it. */
async function alignSkipped(
  event: SQSEvent,
  response: SQSBatchResponse,
  started: ReadonlySet<string>,
  handedBack: ReadonlyMap<string, number>,
  run: HandlerRun,
): Promise<void> {
  const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  for (const record of event.Records) {
    if (started.has(record.messageId) || !failed.has(record.messageId)) continue;
    const seconds = handedBack.get(record.attributes.MessageGroupId ?? "");
    const log = { messageId: record.messageId };
    run.dependencies.logger.info(
      "not started: an earlier record of its thread in this batch did not finish",
      log,
    );
    if (seconds !== undefined) await changeVisibility(record, seconds, log, run);
  }
}

/**
 * The digest function: one digest job per SQS record, in order, with partial batch
 * responses (Powertools' `SqsFifoPartialProcessorAsync` with `skipGroupOnError`: a record
 * that does not finish fails the rest of its thread's records in the batch, never the
 * other threads'). What becomes of each record is {@link dispositionOf}'s decision, which
 * the handler applies:
 *
 * - an invalid body (not JSON, or not a turn event) is logged with its reason, counted
 *   (`PoisonRecords`), sent to the dead letters with its reason and acked: it has no
 *   ordering meaning, so the later records of its thread in the batch are still tried
 *   (if the dead letters cannot take it, it is acked all the same: dropped, logged and counted);
 * - too little time left, or the host stopping (`shutdown`): not started, handed back at
 *   once (`RecordsNotStarted`); so is a job that stopped for the clock before any call
 *   (`skipped/out_of_time`);
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
 * - a job that throws: logged and counted (`FailedJobs`; the job itself recorded a failed
 *   pass, once its org was admitted); for a retryable error or one of unknown kind, handed
 *   back after a backoff doubling from `retryBaseSeconds` up to `retryMaxSeconds`; for an
 *   error that says it is not retryable, sent to the dead letters (handed back after the
 *   backoff if that send fails).
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
  const run: HandlerRun = {
    dependencies,
    jobPorts: { ...dependencies.ports, metrics: dependencies.metrics },
    settings: {
      maxLockRequeueReceives:
        dependencies.maxLockRequeueReceives ?? DIGEST_HANDLER_DEFAULTS.maxLockRequeueReceives,
      retryBaseSeconds: dependencies.retryBaseSeconds ?? DIGEST_HANDLER_DEFAULTS.retryBaseSeconds,
      retryMaxSeconds: dependencies.retryMaxSeconds ?? DIGEST_HANDLER_DEFAULTS.retryMaxSeconds,
      fallbackAlarmRate: dependencies.jobOptions?.fallbackAlarmRate ?? DIGEST_JOB_DEFAULTS.fallbackAlarmRate,
    },
    minRemainingMsToStart:
      dependencies.minRemainingMsToStart ?? DIGEST_HANDLER_DEFAULTS.minRemainingMsToStart,
    maxCheckpointWaitReceives:
      dependencies.maxCheckpointWaitReceives ?? DIGEST_HANDLER_DEFAULTS.maxCheckpointWaitReceives,
    issues: dependencies.issues ?? consoleIssues(),
  };
  return async (event, context) => {
    dependencies.logger.addContext?.(context);
    const processor = new SqsFifoPartialProcessorAsync();
    const handedBack = new Map<string, number>();
    const started = new Set<string>();
    try {
      const response = await processPartialResponse(
        event,
        (record: SQSRecord) => {
          started.add(record.messageId);
          return timeRecord(record, context, run, handedBack);
        },
        processor,
        { context, skipGroupOnError: true, throwOnFullBatchFailure: false },
      );
      await alignSkipped(event, response, started, handedBack, run);
      return response;
    } finally {
      dependencies.metrics.flush();
    }
  };
}
