import { randomUUID } from "node:crypto";
import type { PolicyMode } from "@context-cleaner/assembler";
import type { PassReason, PassStatus } from "@context-cleaner/assembler/internal";
import type {
  CheckpointReader,
  Clock,
  DigestModel,
  DigestRow,
  DigestStore,
  Logger,
  MetricsSink,
  MetricUnit,
  ThreadOwner,
  TurnLock,
} from "../ports";
import type { DigestJobOptions } from "./options";
import { type DigestJobOutcome, type DigestJobStats, emptyStats, type SkipReason } from "./outcome";
import type { DigestJobPayload } from "./payload";

/** The ports a digest job runs on. */
export interface DigestJobPorts {
  checkpoints: CheckpointReader;
  store: DigestStore;
  digester: DigestModel;
  clock: Clock;
  /**
   * The thread's owner, checked before any I/O but the trigger's: a payload naming another
   * org is refused as `not_owner`. Deployed workers always wire one (functions/digest);
   * leave it out only where the payload is built in the same process from a thread it
   * owns (the CLI's one-shot `clean`, tests).
   * @default no check: the payload's org is trusted
   */
  threadOwner?: ThreadOwner;
  /** @default no lock: the job never waits for a turn */
  lock?: TurnLock;
  /** @default no metrics */
  metrics?: MetricsSink;
  /** Warnings, e.g. a fallback rate that looks like an outage. @default none */
  logger?: Logger;
  /**
   * The time left before the function running the job is stopped, in ms (in Lambda,
   * `context.getRemainingTimeInMillis`). The digest stage starts no call that might not end
   * in time, and the thread's lease lasts no longer than the function can.
   * @default no deadline
   */
  remainingTimeMs?: () => number;
}

/** How the job's event reached the worker. */
export interface JobDelivery {
  /**
   * When the queue accepted the event (SQS `SentTimestamp`): one clock for every runtime
   * host, so turns are coalesced on it rather than on the host's `turnEndedAt`.
   * @default none: turns are coalesced on `turnEndedAt`
   */
  queuedAt?: Date;
  /**
   * Whether the job may hand its event back when the checkpoint it reads does not show the
   * turn the event announced yet (skipped `checkpoint_behind`, `requeueAfterSeconds`
   * `checkpointWaitSeconds`). The digest handler allows it until the record's last try;
   * without it the pass goes on with the checkpoint as it is and covers nothing.
   * @default false
   */
  mayWaitForCheckpoint?: boolean;
}

/** What every stage of one job reads and the stats it adds to. */
export interface JobContext {
  readonly job: DigestJobPayload;
  readonly turnEndedAt: Date;
  /**
   * Where the job's event stands in the thread's order, for coalescing: a pass record
   * covering it (`coveredTurnEndedAt` at or after it) makes the job `nothing_new`. The
   * queue's send time when known, else the turn's end.
   */
  readonly position: Date;
  /**
   * What a pass of this job records as covered. For a queued event that announces its turn,
   * its queue time plus a millisecond: the pass reads a checkpoint that shows the announced
   * turn (the job waits for it), hence every turn whose event was queued before, but maybe
   * not the turn of an event queued just after (a runtime may publish before it writes its
   * checkpoint). For a queued event without an announcement, the worker's time as the job
   * started, before it read the thread. Else the turn's end.
   */
  readonly coveredAt: Date;
  /**
   * Whether a pass record's covered instant covers this job's event. A turn end is covered
   * by itself (a redelivery of the turn a pass covered); a queue time only by a pass that
   * started strictly after it, since within one millisecond the order is unknown.
   */
  readonly covers: (covered: Date | null | undefined) => boolean;
  readonly ports: DigestJobPorts;
  readonly options: DigestJobOptions;
  readonly stats: DigestJobStats;
  /** Epoch ms at which the job started, for the duration metric. */
  readonly startedAt: number;
  /** This run's id: the owner of the thread's lease while it holds it. */
  readonly runId: string;
  /** The org's mode: `shadow` digests as `on` does and counts what the digests would save. */
  readonly mode: PolicyMode;
  /** How the job's event reached the worker. */
  readonly delivery: JobDelivery;
  /**
   * Set when the pass goes on with a checkpoint that does not show the turn its event
   * announced (no more waits): the pass then records no coverage, so the turn stays
   * uncovered for the next event or the nightly sweep.
   */
  announcedTurnMissing: boolean;
}

/**
 * Whether a pass that finished its work records its coverage: not when it read a checkpoint
 * without its announced turn, nor for a mid-turn event, whose pass leaves the turn's latest
 * exchanges raw (the turn-ended event's pass still covers the whole turn).
 */
function recordsCoverage(context: JobContext, covered: boolean): boolean {
  return covered && !context.announcedTurnMissing && context.job.midTurn !== true;
}

export function createJobContext(
  job: DigestJobPayload,
  ports: DigestJobPorts,
  options: DigestJobOptions,
  mode: PolicyMode = options.disabled ? "off" : "on",
  delivery: JobDelivery = {},
): JobContext {
  const turnEndedAt = new Date(job.turnEndedAt);
  const queued = delivery.queuedAt !== undefined && !Number.isNaN(delivery.queuedAt.getTime());
  const announced = job.messageCount !== undefined || job.lastMessageId !== undefined;
  const queuedAt = delivery.queuedAt as Date;
  return {
    mode,
    job,
    turnEndedAt,
    position: queued ? new Date(queuedAt) : turnEndedAt,
    coveredAt: !queued ? turnEndedAt : announced ? new Date(queuedAt.getTime() + 1) : ports.clock.now(),
    covers: (covered) => {
      if (!covered) return false;
      const position = queued ? (delivery.queuedAt as Date) : turnEndedAt;
      return queued ? covered > position : covered >= position;
    },
    ports,
    options,
    stats: emptyStats(),
    startedAt: ports.clock.now().getTime(),
    runId: randomUUID(),
    delivery,
    announcedTurnMissing: false,
  };
}

export function recordMetric(
  context: JobContext,
  name: string,
  value: number,
  unit: MetricUnit = "Count",
  dimensions?: Record<string, string>,
): void {
  context.ports.metrics?.record({ name, value, unit, ...(dimensions ? { dimensions } : {}) });
}

/**
 * Writes the thread's pass record; `covered` moves the covered turn to this job's
 * `coveredAt`, unless the pass read a checkpoint without its announced turn or ran for a
 * mid-turn event.
 */
export function recordPass(
  context: JobContext,
  status: PassStatus,
  reason: PassReason | null,
  covered: boolean,
): Promise<void> {
  const { job, turnEndedAt, coveredAt, stats, ports } = context;
  return ports.store.recordPass(job.orgId, job.threadId, {
    status,
    reason,
    ...(recordsCoverage(context, covered) ? { coveredTurnEndedAt: coveredAt } : {}),
    turnEndedAt,
    rawToolChars: job.rawToolChars,
    digestsWritten: stats.digestsWritten,
    at: ports.clock.now(),
  });
}

/**
 * Commits the pass of a run that holds the thread's lease: the rows and the pass record
 * (as {@link recordPass} builds it) in one step, fenced by this run's id, and counts the
 * rows written. Returns false, having written nothing, when the run no longer holds the
 * lease (it lapsed, or another run took it over).
 */
export async function commitLeased(
  context: JobContext,
  rows: readonly DigestRow[],
  status: PassStatus,
  reason: PassReason | null,
  covered: boolean,
): Promise<boolean> {
  const { job, turnEndedAt, coveredAt, stats, ports } = context;
  const commit = await ports.store.commitLeasedPass(job.orgId, job.threadId, {
    owner: context.runId,
    rows,
    pass: {
      status,
      reason,
      ...(recordsCoverage(context, covered) ? { coveredTurnEndedAt: coveredAt } : {}),
      turnEndedAt,
      rawToolChars: job.rawToolChars,
      at: ports.clock.now(),
    },
  });
  if (commit.committed) stats.digestsWritten = commit.digestsWritten;
  return commit.committed;
}

/** The outcome of a skipped job, counted in the `SkippedJobs` metric by reason. */
export function skipped(
  context: JobContext,
  reason: SkipReason,
  extra: { requeueAfterSeconds?: number } = {},
): DigestJobOutcome {
  recordMetric(context, "SkippedJobs", 1, "Count", { reason });
  return { status: "skipped", reason, ...extra, ...context.stats };
}
