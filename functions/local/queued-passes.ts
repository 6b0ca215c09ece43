import type { Message } from "@context-cleaner/assembler";
import { createTurnEventPublisher, type TurnEventOutcome } from "@context-cleaner/assembler/events";
import {
  createInMemoryCheckpointReader,
  type DigestJobOptions,
  type DigestJobOutcome,
  NO_TURN_LOCK,
} from "@context-cleaner/core";
import { createInProcessDigestQueue, type DigestQueue } from "@context-cleaner/core/queue";
import type { FunctionLogger, FunctionMetrics } from "@context-cleaner/core/worker";
import {
  createDigestHandler,
  type DigestHandler,
  inProcessSqsClient,
  startLocalWorker,
} from "@context-cleaner/core/worker";
import type { BetweenTurnsRoute, BetweenTurnsWorker, TurnEnd } from "@context-cleaner/demo";

/** Defaults of {@link QueuedPassesOptions}. */
export const QUEUED_PASSES_DEFAULTS = {
  /** How long the local worker waits after an empty receive: short, so a turn waits little. */
  pollIntervalMs: 10,
} as const;

/** What happened to one turn's event on its way through the queue. */
export interface QueuedPass {
  orgId: string;
  threadId: string;
  /** 1-based: the how-many-th turn of the thread ended. */
  turn: number;
  /** The publisher's outcome. */
  published: TurnEventOutcome;
  /** The receive count the handler saw the message with; absent when it was never received. */
  receivedCount?: number;
  /** The digest handler's job outcome; absent when no job finished for the event. */
  outcome?: DigestJobOutcome;
}

export interface QueuedPassesOptions {
  /** Told of each pass once it is over (a line per pass in the demo). */
  onPass?: (pass: QueuedPass) => void;
  /** Where the handler's and the worker's warnings and errors go. @default console.error */
  warn?: (line: string) => void;
  /** The publisher's trigger. @default the job's trigger (120,000 raw tool chars) */
  triggerChars?: number;
  /** @default 10 */
  pollIntervalMs?: number;
}

export interface QueuedPasses extends BetweenTurnsRoute {
  /** The queue the events go through. */
  readonly queue: DigestQueue;
  /** Every pass so far, in order. */
  readonly passes: readonly QueuedPass[];
  /** Invocations of the digest handler so far. */
  readonly invocations: number;
}

/**
 * The embedded default of the post-turn path, for the demo: each ended turn is published
 * by the runtime's turn-event publisher into an in-process SQS FIFO queue, and a local
 * worker running alongside the turns receives it and invokes the digest function's own
 * handler, which runs the digest job over the turn's checkpoint and writes the rows to the
 * demo's store. A pass resolves once the worker finds the queue empty again, so the next
 * turn loads the rows that pass wrote and the figures stay the same run to run.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose publisher, worker and pass promises share its queue and maps; each closure is short
export function createQueuedPasses(
  worker: BetweenTurnsWorker,
  options: QueuedPassesOptions = {},
): QueuedPasses {
  const warn = options.warn ?? ((line: string) => console.error(line));
  const queue = createInProcessDigestQueue({ clock: worker.clock });
  const checkpoints = new Map<string, readonly Message[]>();
  const received = new Map<string, number>();
  const finished = new Map<string, DigestJobOutcome>();
  const turnsEnded = new Map<string, number>();
  const passes: QueuedPass[] = [];

  const report =
    (level: string) =>
    (message: string, ...attributes: Record<string, unknown>[]) =>
      warn(`  ${level}: ${message} ${JSON.stringify(Object.assign({}, ...attributes))}`);
  const logger: FunctionLogger = { info: () => {}, warn: report("warn"), error: report("error") };
  const metrics: FunctionMetrics = { record: () => {}, flush: () => {} };
  const jobOptions: Partial<DigestJobOptions> | undefined = worker.options;
  const digest = createDigestHandler({
    ports: {
      checkpoints: createInMemoryCheckpointReader(checkpoints),
      store: worker.store,
      digester: worker.digester,
      clock: worker.clock,
      lock: NO_TURN_LOCK,
    },
    queue,
    logger,
    metrics,
    // The demo prints its issues among its own lines rather than as stack traces on stderr.
    issues: (issue) => warn(`  issue: ${issue.name}: ${issue.message} ${JSON.stringify(issue.fields)}`),
    ...(jobOptions ? { jobOptions } : {}),
    onJobFinished: (outcome, messageId) => finished.set(messageId, outcome),
  });
  const handler: DigestHandler = (event, context) => {
    for (const record of event.Records) {
      received.set(record.messageId, Number(record.attributes.ApproximateReceiveCount));
    }
    return digest(event, context);
  };
  const localWorker = startLocalWorker({
    queue,
    handler,
    pollIntervalMs: options.pollIntervalMs ?? QUEUED_PASSES_DEFAULTS.pollIntervalMs,
    onError: (error) => warn(`  error: local worker: ${String(error)}`),
  });
  const publisher = createTurnEventPublisher({
    queueUrl: "in-process",
    sqs: inProcessSqsClient(queue),
    disabled: false,
    ...(options.triggerChars === undefined
      ? jobOptions?.triggerChars === undefined
        ? {}
        : { triggerChars: jobOptions.triggerChars }
      : { triggerChars: options.triggerChars }),
    logger: { warn: (message, details) => warn(`  warn: ${message} ${JSON.stringify(details)}`) },
  });

  async function runPass(turn: TurnEnd): Promise<DigestJobOutcome | undefined> {
    const key = `${turn.orgId}\u0000${turn.threadId}`;
    const turnNumber = (turnsEnded.get(key) ?? 0) + 1;
    turnsEnded.set(key, turnNumber);
    // The checkpoint as the turn left it: what the handler's job reads.
    checkpoints.set(turn.threadId, turn.messages);
    const published = await publisher.publishTurnEnded({
      orgId: turn.orgId,
      threadId: turn.threadId,
      rawToolChars: turn.rawToolChars,
      turnEndedAt: turn.turnEndedAt,
    });
    const pass: QueuedPass = { orgId: turn.orgId, threadId: turn.threadId, turn: turnNumber, published };
    if (published.status === "sent") {
      // The worker polls on its own; the turn waits until it has drained the queue.
      await localWorker.idle();
      const receivedCount = received.get(published.messageId);
      const outcome = finished.get(published.messageId);
      if (receivedCount !== undefined) pass.receivedCount = receivedCount;
      if (outcome) pass.outcome = outcome;
    }
    passes.push(pass);
    options.onPass?.(pass);
    return pass.outcome;
  }

  return {
    queue,
    passes,
    get invocations() {
      return localWorker.invocations;
    },
    runPass,
    description:
      "Post-turn path: each ended turn is published (turn-event publisher) into an in-process SQS FIFO queue;\n" +
      "a local worker polling it alongside the turns invokes the digest function's handler, which writes the rows.\n" +
      "The next turn starts once the queue is empty again. Each ↳ line: one event through the queue.",
    close: () => localWorker.stop(),
  };
}

const integer = (value: number) => value.toLocaleString("en-US");

/** One line per pass: the event published, received and handled, with the job's outcome. */
export function queuedPassLine(pass: QueuedPass): string {
  const head = `  ↳ ${pass.threadId} turn ${pass.turn} ended`;
  const { published } = pass;
  if (published.status === "skipped") return `${head} → not published (${published.reason})`;
  if (published.status === "failed") return `${head} → publish failed (${published.reason})`;
  const id = published.messageId.slice(0, 8);
  if (pass.receivedCount === undefined) return `${head} → sent ${id} → not received yet`;
  const receivedPart = `received (receive ${pass.receivedCount})`;
  const { outcome } = pass;
  if (!outcome) return `${head} → sent ${id} → ${receivedPart} → not finished: left to the queue`;
  const result =
    outcome.status === "skipped"
      ? `skipped (${outcome.reason})`
      : `${outcome.status}${outcome.reason ? ` (${outcome.reason})` : ""}, ${outcome.digestsWritten} rows, ${integer(outcome.charsSaved)} chars saved`;
  return `${head} → sent ${id} → ${receivedPart} → handled: ${result}`;
}
