import { setTimeout as sleep } from "node:timers/promises";
import type { DigestQueue, ReceivedDigestMessage } from "../queue/index";
import { createDigestHandler, type DigestHandler, type DigestHandlerDependencies } from "./digest-handler";
import { lambdaContext } from "./lambda-context";
import { LOCAL_QUEUE_ARN, sqsRecord } from "./sqs-event";

/** Defaults of {@link LocalWorkerOptions}. */
export const LOCAL_WORKER_DEFAULTS = {
  /** Messages per receive, as the Lambda subscription's batch size. */
  batchSize: 10,
  /** How long an empty receive waits before the next. */
  pollIntervalMs: 1_000,
  /** Each invocation's deadline, as the digest function's timeout. */
  functionTimeoutMs: 300_000,
  /** How long a receive waits for a message (long polling; the in-process queue never waits). */
  waitTimeSeconds: 0,
  /** Polling loops, as concurrent invocations of the function. */
  concurrency: 1,
} as const;

/** Options of {@link startLocalWorker}: the digest handler, or the dependencies to build it. */
export type LocalWorkerOptions = {
  /** The queue to poll: the in-process queue, or any `DigestQueue`. */
  queue: DigestQueue;
  /** @default 10 */
  batchSize?: number;
  /** @default 1000 */
  pollIntervalMs?: number;
  /** @default 300_000 */
  functionTimeoutMs?: number;
  /**
   * Long polling, 0–20 s: a receive waits this long for a message before it answers empty.
   * An empty receive is followed by a pause of what is left of `pollIntervalMs`. @default 0
   */
  waitTimeSeconds?: number;
  /** How long the received messages stay invisible. @default the queue's */
  visibilityTimeoutSeconds?: number;
  /**
   * Polling loops, each receiving and invoking on its own, as concurrent invocations of the
   * function (the queue never hands one thread's messages to two at once). @default 1
   */
  concurrency?: number;
  /** The function name in each invocation's `Context`. @default "context-cleaner-digest-local" */
  functionName?: string;
  /** Told of a receive, delete or invocation that threw. Must not throw. @default console.error */
  onError?: (error: unknown) => void;
} & (
  | { handler: DigestHandler; dependencies?: never }
  | { dependencies: Omit<DigestHandlerDependencies, "queue">; handler?: never }
);

/** A running worker. */
export interface LocalWorker {
  /**
   * Resolves at the first receive started after this call that finds the queue empty while
   * no loop is running a batch.
   */
  idle(): Promise<void>;
  /**
   * Stops polling: a waiting receive is abandoned; in an invocation in progress the running
   * job finishes and the records not yet started are handed back at once (with the
   * dependencies given, not a handler); its successful records are deleted. Resolves when
   * every loop has ended.
   */
  stop(): Promise<void>;
  /** Invocations of the handler so far. */
  readonly invocations: number;
}

function toRecord(message: ReceivedDigestMessage) {
  return sqsRecord({
    body: message.body,
    groupId: message.groupId,
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    deduplicationId: message.deduplicationId,
    receiveCount: message.receiveCount,
    sentAt: message.sentAt,
    eventSourceARN: LOCAL_QUEUE_ARN,
  });
}

/** What one delivered batch came to. */
export interface DeliveredBatch {
  /** The messages received and handed to the handler. */
  received: ReceivedDigestMessage[];
  /** Message ids the handler reported failed (left to the queue); the rest were deleted. */
  failed: string[];
}

/**
 * One round of Lambda's SQS event source mapping for already received messages: invokes
 * the handler with them as an `SQSEvent` and a fresh `Context`, then deletes those it did
 * not report failed. A handler that throws fails the whole batch.
 */
export async function invokeBatch(
  queue: Pick<DigestQueue, "delete">,
  handler: DigestHandler,
  messages: ReceivedDigestMessage[],
  options: { functionTimeoutMs?: number; functionName?: string; onError?: (error: unknown) => void } = {},
): Promise<DeliveredBatch> {
  const timeoutMs = options.functionTimeoutMs ?? LOCAL_WORKER_DEFAULTS.functionTimeoutMs;
  const functionName = options.functionName ?? "context-cleaner-digest-local";
  let failed: ReadonlySet<string>;
  try {
    const response = await handler(
      { Records: messages.map(toRecord) },
      lambdaContext({ functionName, timeoutMs }),
    );
    failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
  } catch (error) {
    options.onError?.(error);
    failed = new Set(messages.map((message) => message.messageId));
  }
  for (const message of messages) {
    if (failed.has(message.messageId)) continue;
    try {
      await queue.delete(message.receiptHandle);
    } catch (error) {
      options.onError?.(error);
    }
  }
  return { received: messages, failed: [...failed] };
}

/**
 * Receives one batch and delivers it with {@link invokeBatch}.
 * @returns the batch, or `undefined` when the queue had no visible message.
 */
export async function deliverOnce(
  queue: DigestQueue,
  handler: DigestHandler,
  options: {
    batchSize?: number;
    /** How long the received messages stay invisible. @default the queue's */
    visibilityTimeoutSeconds?: number;
    functionTimeoutMs?: number;
    onError?: (error: unknown) => void;
  } = {},
): Promise<DeliveredBatch | undefined> {
  const messages = await queue.receive(
    options.batchSize ?? LOCAL_WORKER_DEFAULTS.batchSize,
    options.visibilityTimeoutSeconds === undefined
      ? {}
      : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds },
  );
  if (messages.length === 0) return undefined;
  return invokeBatch(queue, handler, messages, options);
}

/**
 * The digest function without Lambda, for embedded runs: a loop that plays the part of
 * Lambda's SQS event source mapping. It receives a batch, invokes the same handler as the
 * Lambda function with an `SQSEvent` and a `Context` whose deadline is the function's
 * timeout, deletes the records that succeeded and leaves the failed ones to the queue (the
 * handler has already set the visibility of those it handed back).
 *
 * @example
 * const queue = createInProcessDigestQueue();
 * const worker = startLocalWorker({ queue, dependencies: { ports, logger: console, metrics } });
 * // … publishTurnEnded with inProcessSqsClient(queue) …
 * await worker.stop();
 */
export function startLocalWorker(options: LocalWorkerOptions): LocalWorker {
  const concurrency = options.concurrency ?? LOCAL_WORKER_DEFAULTS.concurrency;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`);
  }
  const stopping = new AbortController();
  const onError =
    options.onError ?? ((error: unknown) => console.error("context-cleaner local worker:", error));
  const loop: PollLoop = {
    queue: options.queue,
    // Built here, the handler starts no new job once stop() is called.
    handler:
      options.handler ??
      createDigestHandler({ ...options.dependencies, queue: options.queue, shutdown: stopping.signal }),
    batchSize: options.batchSize ?? LOCAL_WORKER_DEFAULTS.batchSize,
    pollIntervalMs: options.pollIntervalMs ?? LOCAL_WORKER_DEFAULTS.pollIntervalMs,
    receiveOptions: {
      waitTimeSeconds: options.waitTimeSeconds ?? LOCAL_WORKER_DEFAULTS.waitTimeSeconds,
      signal: stopping.signal,
      ...(options.visibilityTimeoutSeconds === undefined
        ? {}
        : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
    },
    invokeOptions: {
      functionTimeoutMs: options.functionTimeoutMs ?? LOCAL_WORKER_DEFAULTS.functionTimeoutMs,
      ...(options.functionName === undefined ? {} : { functionName: options.functionName }),
    },
    stopping: stopping.signal,
    report: (error) => {
      try {
        onError(error);
      } catch {
        // A failing error sink must not stop the loop.
      }
    },
    state: { idleWaiters: [], receives: 0, invocations: 0, busy: 0 },
  };
  const { state } = loop;
  const running = Promise.all(Array.from({ length: concurrency }, () => poll(loop))).then(() => {
    for (const waiter of state.idleWaiters) waiter.resolve();
    state.idleWaiters = [];
  });
  return {
    idle: () =>
      stopping.signal.aborted
        ? Promise.resolve()
        : new Promise<void>((resolve) => state.idleWaiters.push({ after: state.receives, resolve })),
    async stop() {
      stopping.abort();
      await running;
    },
    get invocations() {
      return state.invocations;
    },
  };
}

/** What the polling loops of one local worker share. */
interface PollLoop {
  queue: DigestQueue;
  handler: DigestHandler;
  batchSize: number;
  pollIntervalMs: number;
  receiveOptions: { waitTimeSeconds: number; signal: AbortSignal; visibilityTimeoutSeconds?: number };
  invokeOptions: { functionTimeoutMs: number; functionName?: string };
  stopping: AbortSignal;
  report: (error: unknown) => void;
  state: {
    /** Each waiter resolves at the first empty receive that started after it was registered. */
    idleWaiters: { after: number; resolve: () => void }[];
    receives: number;
    invocations: number;
    /** Loops running a batch now: the queue is idle only when an empty receive finds none. */
    busy: number;
  };
}

function pause(ms: number, stopping: AbortSignal): Promise<void> {
  return ms <= 0 ? Promise.resolve() : sleep(ms, undefined, { signal: stopping }).catch(() => undefined);
}

/** Resolves the idle waiters registered before `receive`, which found the queue empty with no batch running. */
function resolveIdle(state: PollLoop["state"], receive: number): void {
  const due = state.idleWaiters.filter((waiter) => waiter.after < receive);
  state.idleWaiters = state.idleWaiters.filter((waiter) => waiter.after >= receive);
  for (const waiter of due) waiter.resolve();
}

/** One polling loop: receive, invoke, delete, until the worker stops. */
async function poll(loop: PollLoop): Promise<void> {
  const { queue, state, stopping } = loop;
  while (!stopping.aborted) {
    let messages: ReceivedDigestMessage[];
    const receive = ++state.receives;
    const startedAt = Date.now();
    try {
      messages = await queue.receive(loop.batchSize, loop.receiveOptions);
    } catch (error) {
      // A receive abandoned by stop() is not a failure.
      if (stopping.aborted) break;
      loop.report(error);
      await pause(loop.pollIntervalMs, stopping);
      continue;
    }
    if (messages.length === 0) {
      if (state.busy === 0) resolveIdle(state, receive);
      await pause(loop.pollIntervalMs - (Date.now() - startedAt), stopping);
      continue;
    }
    state.invocations += 1;
    state.busy += 1;
    try {
      // Not abandoned on stop: the batch runs to its end, as an invocation in progress does
      // (the handler starts none of its records not yet started).
      await invokeBatch(queue, loop.handler, messages, { ...loop.invokeOptions, onError: loop.report });
    } finally {
      state.busy -= 1;
    }
  }
}
