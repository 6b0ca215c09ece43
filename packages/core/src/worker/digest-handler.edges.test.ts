import { turnEventGroupId } from "@context-cleaner/assembler/events";
import type { Context, SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { heavyThread } from "#test/core/fixtures/threads";
import { contextWith, turnRecordOf } from "#test/core/fixtures/turn-records";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { withFallback } from "../digesters/with-fallback";
import { DigestModelError, StoreInputError } from "../errors";
import type { DigestJobOutcome } from "../job/outcome";
import type { DigestModel, DigestStore, TurnLock } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import {
  createDigestHandler,
  type DigestHandlerDependencies,
  PoisonRecordError,
  RecordHandedBack,
} from "./digest-handler";
import { DISPOSITION_DEFAULTS, type DispositionSettings, dispositionOf } from "./disposition";
import type { FunctionIssue } from "./observability";
import { sqsEvent } from "./sqs-event";

const ORG = "org-edges";
const THREAD = "ground-lease";
const TURN_END = "2026-11-30T10:00:00.000Z";
const NOW = new Date("2026-11-30T10:05:00Z");

/** The record of one turn event of the ground-lease thread, sent a second after the turn ended. */
function turnRecord(overrides: Parameters<typeof turnRecordOf>[1] = {}) {
  return turnRecordOf(
    { orgId: ORG, threadId: THREAD, turnEndedAt: TURN_END },
    { sentAt: new Date("2026-11-30T10:00:01.000Z"), ...overrides },
  );
}

function setup(
  options: {
    store?: DigestStore;
    lock?: TurnLock;
    digester?: DigestModel;
    disabled?: boolean;
    jobOptions?: DigestHandlerDependencies["jobOptions"];
    changeVisibility?: (handle: string, seconds: number) => Promise<void>;
    deadLetters?: DigestHandlerDependencies["queue"]["deadLetters"] | null;
    addContext?: boolean;
    settings?: Pick<
      DigestHandlerDependencies,
      "maxLockRequeueReceives" | "minRemainingMsToStart" | "retryBaseSeconds" | "retryMaxSeconds"
    >;
  } = {},
) {
  const clock = manualClock(NOW);
  const store = options.store ?? createInMemoryDigestStore();
  const logger = recordingLogger();
  const contexts: Context[] = [];
  const metrics = recordingMetrics();
  const issues: FunctionIssue[] = [];
  const visibility: [string, number][] = [];
  const deadLettered: { fields: Record<string, string>; reason: string; sourceMessageId: string }[] = [];
  const outcomes: DigestJobOutcome[] = [];
  const deadLetters =
    options.deadLetters === null
      ? {}
      : {
          deadLetters: options.deadLetters ?? {
            send: async (fields: Record<string, string>, reason: string, sourceMessageId: string) => {
              deadLettered.push({ fields, reason, sourceMessageId });
              return { messageId: `dead-${deadLettered.length}` };
            },
          },
        };
  const dependencies: DigestHandlerDependencies = {
    ports: {
      checkpoints: createInMemoryCheckpointReader(new Map([[THREAD, heavyThread().messages]])),
      store,
      digester: options.digester ?? createExtractiveDigester(),
      clock,
      ...(options.lock ? { lock: options.lock } : {}),
    },
    queue: {
      changeVisibility:
        options.changeVisibility ??
        (async (handle, seconds) => {
          visibility.push([handle, seconds]);
        }),
      ...(deadLetters as Pick<DigestHandlerDependencies["queue"], "deadLetters">),
    },
    logger: options.addContext
      ? Object.assign(logger, { addContext: (context: Context) => void contexts.push(context) })
      : logger,
    metrics,
    issues: (issue) => issues.push(issue),
    disabled: () => options.disabled ?? false,
    jobOptions: options.jobOptions ?? { maxCallsPerJob: 1 },
    onJobFinished: (outcome) => outcomes.push(outcome),
    ...options.settings,
  };
  const handler = createDigestHandler(dependencies);
  return {
    store,
    logger,
    metrics,
    issues,
    visibility,
    deadLettered,
    outcomes,
    contexts,
    run: (event: SQSEvent, context: Context = contextWith()) => handler(event, context),
  };
}

/** The attributes of an event's first record, to change as a queue might send them. */
function attributesOf(event: SQSEvent): Record<string, string | undefined> {
  const [record] = event.Records;
  if (record === undefined) throw new Error("the event has no record");
  return record.attributes as unknown as Record<string, string | undefined>;
}

const failedIds = (response: { batchItemFailures: { itemIdentifier: string }[] }) =>
  response.batchItemFailures.map((failure) => failure.itemIdentifier);

describe("digest handler: each record's fate", () => {
  it("acks a finished job, tells onJobFinished of it with its message id, and flushes the metrics once", async () => {
    const { metrics, logger, issues, outcomes, run } = setup({ disabled: true });
    const response = await run(sqsEvent([turnRecord({ messageId: "m-0" })]));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(outcomes.map((outcome) => outcome.reason)).toEqual(["disabled"]);
    expect(metrics.count("SkippedJobs", { reason: "disabled" })).toBe(1);
    expect(metrics.flushes).toBe(1);
    expect(logger.at("warn")).toEqual([]);
    expect(issues).toEqual([]);
  });

  it("ignores an onJobFinished that throws, logging it", async () => {
    const clock = manualClock(NOW);
    const logger = recordingLogger();
    const handler = createDigestHandler({
      ports: {
        checkpoints: createInMemoryCheckpointReader(new Map()),
        store: createInMemoryDigestStore(),
        digester: createExtractiveDigester(),
        clock,
      },
      queue: { changeVisibility: async () => {} },
      logger,
      metrics: recordingMetrics(),
      issues: () => {},
      disabled: () => true,
      onJobFinished: () => {
        throw new Error("observer broke");
      },
    });
    const response = await handler(sqsEvent([turnRecord({ messageId: "m-o" })]), contextWith());
    expect(failedIds(response)).toEqual([]);
    expect(logger.at("warn")).toMatchObject([
      { message: "onJobFinished threw: ignored", attributes: { messageId: "m-o", error: "observer broke" } },
    ]);
  });

  it("reports a job refused because its org does not own the thread, with the record's ids", async () => {
    const issues: FunctionIssue[] = [];
    const logger = recordingLogger();
    const handler = createDigestHandler({
      ports: {
        checkpoints: createInMemoryCheckpointReader(new Map()),
        store: createInMemoryDigestStore(),
        digester: createExtractiveDigester(),
        clock: manualClock(NOW),
        threadOwner: { ownerOf: async () => ({ status: "owned", orgId: "another-org" }) },
      },
      queue: { changeVisibility: async () => {} },
      logger,
      metrics: recordingMetrics(),
      issues: (issue) => issues.push(issue),
    });
    const response = await handler(sqsEvent([turnRecord({ messageId: "m-t" })]), contextWith());
    expect(failedIds(response)).toEqual([]);
    expect(issues.map((issue) => [issue.name, issue.message, issue.fields])).toEqual([
      [
        "TenantRefused",
        "digest job refused: its org does not own the thread (or the owner is unknown)",
        { orgId: ORG, threadId: THREAD, turnEndedAt: TURN_END, messageId: "m-t", receiveCount: 1 },
      ],
    ]);
    // Without an onJobFinished, nothing is told and nothing is logged as thrown.
    expect(logger.at("warn")).toEqual([]);
  });

  it("fails a job that throws: logged, counted, reported with its cause and handed back for the backoff", async () => {
    const store: DigestStore = {
      ...createInMemoryDigestStore(),
      getPass: async () => {
        throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
      },
    };
    const { logger, metrics, issues, visibility, run } = setup({ store });
    const response = await run(sqsEvent([turnRecord({ messageId: "m-e", receiptHandle: "h-e" })]));
    expect(failedIds(response)).toEqual(["m-e"]);
    expect(visibility).toEqual([["h-e", 30]]);
    expect(metrics.count("FailedJobs")).toBe(1);
    expect(logger.at("error")).toMatchObject([
      {
        message: "digest job failed: the queue retries it",
        attributes: { messageId: "m-e", orgId: ORG, error: "connection reset", retryInSeconds: 30 },
      },
    ]);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      name: "DigestJobFailed",
      message: "digest job failed: the queue retries it",
    });
    expect((issues[0]?.cause as Error | undefined)?.message).toBe("connection reset");
  });

  it("counts and reports a poison record, with its reason, and acks it", async () => {
    const { metrics, issues, logger, run } = setup();
    const response = await run(sqsEvent([{ body: "{", groupId: "g", messageId: "m-j" }]));
    expect(failedIds(response)).toEqual([]);
    expect(metrics.metrics).toEqual([
      { name: "PoisonRecords", value: 1, unit: "Count" },
      {
        name: "RecordDuration",
        dimensions: { outcome: "poison" },
        value: expect.any(Number),
        unit: "Milliseconds",
      },
    ]);
    expect(issues.map((issue) => [issue.name, issue.message])).toEqual([
      ["PoisonRecord", "poison record: not a valid turn event, for the dead letters"],
    ]);
    // Only the ids the record has: before its body is read, no org, thread or turn.
    expect(Object.keys(issues[0]?.fields ?? {}).sort()).toEqual(["messageId", "reason", "receiveCount"]);
    expect(String(logger.at("error")[0]?.attributes.reason)).toMatch(/^body is not JSON \(/);
  });

  it("goes on with other threads while one is handed back", async () => {
    const other = "thread-without-checkpoint";
    const { visibility, outcomes, run } = setup({
      lock: { isHeld: async (_orgId, threadId) => threadId === THREAD },
    });
    const event = sqsEvent([
      turnRecord({ messageId: "locked", receiptHandle: "h-l" }),
      turnRecord({ messageId: "free", groupId: turnEventGroupId(ORG, other), event: { threadId: other } }),
    ]);
    expect(failedIds(await run(event))).toEqual(["locked"]);
    expect(visibility).toEqual([["h-l", 60]]);
    expect(outcomes.map((outcome) => outcome.reason)).toEqual(["no_checkpoint"]);
  });
});

describe("digest handler: what an operator reads of a finished job", () => {
  it("logs a finished job with the record's ids and every figure of its outcome, no reason when it has none", async () => {
    const { logger, outcomes, run } = setup({ jobOptions: {} });
    const event = sqsEvent([turnRecord({ messageId: "m-1" })]);
    expect(failedIds(await run(event))).toEqual([]);
    const [outcome] = outcomes;
    expect(outcome?.status).toBe("done");
    const finished = logger.at("info").filter((entry) => entry.message === "digest job finished");
    expect(finished).toHaveLength(1);
    expect(finished[0]?.attributes).toStrictEqual({
      messageId: "m-1",
      receiveCount: 1,
      orgId: ORG,
      threadId: THREAD,
      turnEndedAt: TURN_END,
      status: "done",
      digestsWritten: outcome?.digestsWritten,
      calls: outcome?.calls,
      costUsd: outcome?.costUsd,
      reused: outcome?.reused,
      fallbacks: outcome?.fallbacks,
      failedCalls: outcome?.failedCalls,
      deferred: outcome?.deferred,
      charsSaved: outcome?.charsSaved,
    });
    expect(outcome?.digestsWritten).toBeGreaterThan(0);
    expect(outcome?.charsSaved).toBeGreaterThan(0);
  });

  it("logs the reason of a job that has one, and hands the invocation's context to a logger that takes it", async () => {
    const { logger, contexts, run } = setup({ disabled: true, addContext: true });
    const context = contextWith();
    await run(sqsEvent([turnRecord({ messageId: "m-2", receiveCount: 2 })]), context);
    expect(contexts).toEqual([context]);
    expect(logger.at("info")[0]).toEqual({
      level: "info",
      message: "digest job finished",
      attributes: expect.objectContaining({
        messageId: "m-2",
        receiveCount: 2,
        status: "skipped",
        reason: "disabled",
      }),
    });
  });

  it("reads a record without a receive count as its first receive", async () => {
    const { logger, run } = setup({ disabled: true });
    const event = sqsEvent([turnRecord()]);
    delete attributesOf(event).ApproximateReceiveCount;
    await run(event);
    expect(logger.at("info")[0]?.attributes).toMatchObject({ receiveCount: 1 });
  });
});

describe("digest handler: coalescing on the queue's send time", () => {
  // A pass that would save too little records its skip as covering the thread's event.
  const skipAll = { minCharsPerPass: Number.MAX_SAFE_INTEGER };

  it("covers the worker's time at the job's start for a record with a send time", async () => {
    const { store, run } = setup({ jobOptions: skipAll });
    await run(sqsEvent([turnRecord()]));
    expect(await store.getPass(ORG, THREAD)).toMatchObject({
      reason: "below_min_chars",
      coveredTurnEndedAt: NOW,
    });
  });

  it.each([
    ["missing", undefined],
    ["zero", "0"],
    ["not a number", "soon"],
  ])("covers the turn's end for a record whose send time is %s", async (_label, sent) => {
    const { store, run } = setup({ jobOptions: skipAll });
    const event = sqsEvent([turnRecord()]);
    const attributes = attributesOf(event);
    if (sent === undefined) delete attributes.SentTimestamp;
    else attributes.SentTimestamp = sent;
    await run(event);
    expect(await store.getPass(ORG, THREAD)).toMatchObject({
      reason: "below_min_chars",
      coveredTurnEndedAt: new Date(TURN_END),
    });
  });
});

describe("digest handler: time left", () => {
  it("starts a record with exactly the minimum time left", async () => {
    const { metrics, outcomes, visibility, run } = setup({ disabled: true });
    const response = await run(sqsEvent([turnRecord()]), contextWith(30_000));
    expect(failedIds(response)).toEqual([]);
    expect(outcomes.map((outcome) => outcome.reason)).toEqual(["disabled"]);
    expect(metrics.count("RecordsNotStarted")).toBe(0);
    expect(visibility).toEqual([]);
  });

  it("hands back a record with less, logging the time left; the minimum can be set", async () => {
    const { logger, metrics, visibility, outcomes, run } = setup({
      disabled: true,
      settings: { minRemainingMsToStart: 45_000 },
    });
    const event = sqsEvent([turnRecord({ receiptHandle: "h-1" })]);
    const response = await run(event, contextWith(44_999));
    expect(failedIds(response)).toEqual([event.Records[0]?.messageId]);
    expect(outcomes).toEqual([]);
    expect(metrics.count("RecordsNotStarted")).toBe(1);
    expect(visibility).toEqual([["h-1", 0]]);
    expect(logger.at("info")[0]).toMatchObject({
      message: "not started: too little time left in this invocation",
      attributes: { orgId: ORG, threadId: THREAD, remainingMs: 44_999 },
    });
    expect(logger.at("error")).toEqual([]);
  });

  it("logs a job that stopped for the clock before any call and hands it back at once", async () => {
    const { logger, metrics, visibility, store, run } = setup();
    const event = sqsEvent([turnRecord({ receiptHandle: "h-2" })]);
    // Enough to start (30 s), too little for one call and the commit.
    const response = await run(event, contextWith(40_000));
    expect(failedIds(response)).toHaveLength(1);
    expect(visibility).toEqual([["h-2", 0]]);
    expect(metrics.count("RecordsNotStarted")).toBe(1);
    expect(logger.at("info").map((entry) => entry.message)).toEqual([
      "not run: too little time left for a digest call",
    ]);
    expect(logger.at("info")[0]?.attributes).toMatchObject({ status: "skipped", reason: "out_of_time" });
    expect(await store.getPass(ORG, THREAD)).toMatchObject({ status: "skipped", reason: "out_of_time" });
  });
});

describe("digest handler: a pass the clock cut short", () => {
  it("acks a pass that wrote digests before its time ran out", async () => {
    const { outcomes, visibility, metrics, run } = setup({ jobOptions: { maxCallsPerJob: 5 } });
    let reads = 0;
    // Time for the first call (reads: the handler's check, the lease, the first admission), not the next.
    const context = { ...contextWith(), getRemainingTimeInMillis: () => (++reads <= 3 ? 300_000 : 40_000) };
    const response = await run(sqsEvent([turnRecord()]), context);
    expect(failedIds(response)).toEqual([]);
    expect(outcomes).toMatchObject([{ status: "partial", reason: "out_of_time", calls: 1 }]);
    expect(visibility).toEqual([]);
    expect(metrics.count("RecordsNotStarted")).toBe(0);
  });
});

describe("digest handler: handing records back", () => {
  it("logs a record whose visibility cannot be changed and still reports it failed", async () => {
    const { logger, run } = setup({
      lock: { isHeld: async () => true },
      changeVisibility: async () => {
        throw new Error("queue throttled");
      },
    });
    const event = sqsEvent([turnRecord({ messageId: "m-3" })]);
    expect(failedIds(await run(event))).toEqual(["m-3"]);
    expect(logger.at("warn")).toEqual([
      {
        level: "warn",
        message: "visibility not changed: the record comes back after its visibility timeout",
        attributes: expect.objectContaining({ messageId: "m-3", threadId: THREAD, error: "queue throttled" }),
      },
    ]);
  });

  it("logs each hand-back for the turn lock with its delay, and caps at the receive set", async () => {
    const { logger, metrics, visibility, run } = setup({
      lock: { isHeld: async () => true },
      settings: { maxLockRequeueReceives: 2 },
    });
    expect(
      failedIds(await run(sqsEvent([turnRecord({ receiptHandle: "h-4", receiveCount: 1 })]))),
    ).toHaveLength(1);
    expect(visibility).toEqual([["h-4", 60]]);
    expect(logger.at("info")[0]).toMatchObject({
      message: "a turn is running: handed back to the queue",
      attributes: { messageId: expect.any(String), delaySeconds: 60 },
    });
    expect(failedIds(await run(sqsEvent([turnRecord({ receiveCount: 2 })])))).toEqual([]);
    expect(metrics.count("LockRequeues")).toBe(1);
    expect(metrics.count("LockRequeuesCapped")).toBe(1);
    expect(logger.at("warn")[0]).toMatchObject({
      message: "a turn is still running: left to the nightly sweep",
      attributes: { status: "skipped", reason: "turn_lock" },
    });
  });

  it("logs a hand-back while another run holds the thread", async () => {
    const store = createInMemoryDigestStore();
    await store.claimThread(ORG, THREAD, { owner: "other-run", at: NOW, leaseMs: 900_000 });
    const { logger, metrics, visibility, run } = setup({ store });
    const response = await run(sqsEvent([turnRecord({ receiptHandle: "h-5" })]));
    expect(failedIds(response)).toHaveLength(1);
    expect(visibility).toEqual([["h-5", 60]]);
    expect(metrics.count("ClaimRequeues")).toBe(1);
    expect(logger.at("info")[0]).toMatchObject({
      message: "another run holds the thread: handed back to the queue",
      attributes: { delaySeconds: 60 },
    });
  });

  it("hands a capped claimed record back when its turn cannot be recorded", async () => {
    const inner = createInMemoryDigestStore();
    await inner.claimThread(ORG, THREAD, { owner: "other-run", at: NOW, leaseMs: 900_000 });
    const store: DigestStore = {
      ...inner,
      recordLatestTurn: async () => {
        throw new Error("database unreachable");
      },
    };
    const { logger, metrics, visibility, outcomes, run } = setup({ store });
    const response = await run(sqsEvent([turnRecord({ receiptHandle: "h-6", receiveCount: 3 })]));
    expect(failedIds(response)).toHaveLength(1);
    expect(visibility).toEqual([["h-6", 60]]);
    expect(outcomes).toEqual([]);
    expect(metrics.count("ClaimRequeuesCapped")).toBe(0);
    expect(logger.at("warn")).toMatchObject([
      {
        message: "turn not recorded: handed back to the queue",
        attributes: { error: "database unreachable" },
      },
    ]);
  });

  it("records a capped claimed record's turn as the thread's latest, at the worker's time", async () => {
    const store = createInMemoryDigestStore();
    await store.claimThread(ORG, THREAD, { owner: "other-run", at: NOW, leaseMs: 900_000 });
    const { logger, metrics, run } = setup({ store });
    const later = "2026-11-30T10:03:00.000Z";
    expect(
      failedIds(await run(sqsEvent([turnRecord({ receiveCount: 3, event: { turnEndedAt: later } })]))),
    ).toEqual([]);
    expect(await store.getPass(ORG, THREAD)).toMatchObject({ latestTurnEndedAt: new Date(later) });
    expect(logger.at("warn")).toMatchObject([
      {
        message: "another run still holds the thread: its turn is recorded for the nightly sweep",
        attributes: { threadId: THREAD, receiveCount: 3, status: "skipped", reason: "claimed" },
      },
    ]);
    expect(metrics.count("ClaimRequeuesCapped")).toBe(1);
  });

  it("hands a thread's later records back with the delay of the one handed back, logging each", async () => {
    const { logger, visibility, run } = setup({ lock: { isHeld: async () => true } });
    const event = sqsEvent([
      turnRecord({ receiptHandle: "first", messageId: "a" }),
      turnRecord({
        receiptHandle: "second",
        messageId: "b",
        event: { turnEndedAt: "2026-11-30T10:01:00.000Z" },
      }),
    ]);
    expect(failedIds(await run(event))).toEqual(["a", "b"]);
    expect(visibility).toEqual([
      ["first", 60],
      ["second", 60],
    ]);
    expect(logger.at("info").map((entry) => [entry.message, entry.attributes.messageId])).toEqual([
      ["a turn is running: handed back to the queue", "a"],
      ["not started: an earlier record of its thread in this batch did not finish", "b"],
    ]);
  });
});

describe("digest handler: poison records", () => {
  it("dead-letters a poison record with its body, group, deduplication id and reason, logging at most 1,000 chars of it", async () => {
    const { logger, deadLettered, run } = setup();
    const body = JSON.stringify({ orgId: ORG, threadId: THREAD, padding: "x".repeat(2_000) });
    const event = sqsEvent([{ body, groupId: "g-1", deduplicationId: "d-1", messageId: "m-p" }]);
    expect(failedIds(await run(event))).toEqual([]);
    expect(deadLettered).toHaveLength(1);
    expect(deadLettered[0]).toMatchObject({
      fields: { body, groupId: "g-1", deduplicationId: "d-1" },
      sourceMessageId: "m-p",
    });
    expect(deadLettered[0]?.reason).toMatch(/^invalid digest job payload: .*rawToolChars/);
    const [entry] = logger.at("error");
    expect(entry?.message).toBe("poison record: not a valid turn event, for the dead letters");
    expect(entry?.attributes.body).toBe(body.slice(0, 1_000));
    expect(entry?.attributes.reason).toBe(deadLettered[0]?.reason);
  });

  it("dead-letters a record without group or deduplication id under an empty group and its message id", async () => {
    const { deadLettered, run } = setup();
    const event = sqsEvent([{ body: "[]", groupId: "g", messageId: "m-q" }]);
    const attributes = event.Records[0]?.attributes as {
      MessageGroupId?: string;
      MessageDeduplicationId?: string;
    };
    delete attributes.MessageGroupId;
    delete attributes.MessageDeduplicationId;
    expect(failedIds(await run(event))).toEqual([]);
    expect(deadLettered[0]?.fields).toEqual({ body: "[]", groupId: "", deduplicationId: "m-q" });
  });

  it("acks a poison record when the queue has no dead letters, saying so", async () => {
    const { logger, visibility, issues, run } = setup({ deadLetters: null });
    const event = sqsEvent([{ body: "{", groupId: "g", receiptHandle: "h-p", messageId: "m-r" }]);
    expect(failedIds(await run(event))).toEqual([]);
    expect(visibility).toEqual([]);
    expect(logger.at("warn")[0]?.message).toBe(
      "poison record not dead-lettered: acked and dropped, its body logged above",
    );
    expect(logger.at("warn")[0]?.attributes).toMatchObject({
      messageId: "m-r",
      error: "the digest queue has no dead-letter queue",
    });
    expect(issues.map((issue) => [issue.name, issue.fields])).toEqual([
      [
        "PoisonRecord",
        { messageId: "m-r", receiveCount: 1, reason: expect.stringMatching(/^body is not JSON/) },
      ],
    ]);
  });

  it("accepts a turn further ahead of the clock when the job options allow it", async () => {
    const { deadLettered, outcomes, run } = setup({
      disabled: true,
      jobOptions: { maxTurnClockSkewSeconds: 3_600 },
    });
    const ahead = "2026-11-30T10:30:00.000Z";
    expect(failedIds(await run(sqsEvent([turnRecord({ event: { turnEndedAt: ahead } })])))).toEqual([]);
    expect(deadLettered).toEqual([]);
    expect(outcomes.map((outcome) => outcome.reason)).toEqual(["disabled"]);
  });
});

describe("digest handler: failed jobs", () => {
  it("reports a failed job with the ids of its record, its turn end included, and backs off by the set steps", async () => {
    const inner = createInMemoryDigestStore();
    const store: DigestStore = {
      ...inner,
      getPass: async () => {
        throw new Error("connection reset");
      },
    };
    const { issues, visibility, run } = setup({
      store,
      settings: { retryBaseSeconds: 10, retryMaxSeconds: 35 },
    });
    await run(sqsEvent([turnRecord({ receiptHandle: "h-f", messageId: "m-f", receiveCount: 2 })]));
    await run(sqsEvent([turnRecord({ receiptHandle: "h-g", messageId: "m-g", receiveCount: 3 })]));
    expect(visibility).toEqual([
      ["h-f", 20],
      ["h-g", 35],
    ]);
    expect(issues[0]?.fields).toEqual({
      orgId: ORG,
      threadId: THREAD,
      turnEndedAt: TURN_END,
      messageId: "m-f",
      receiveCount: 2,
      retryInSeconds: 20,
    });
  });

  it("keeps a record handed back on purpose apart from a failure", () => {
    const handedBack = new RecordHandedBack("claimed", 60);
    expect(handedBack).toMatchObject({ name: "RecordHandedBack", reason: "claimed", delaySeconds: 60 });
    expect(handedBack.message).toBe("record handed back to the queue (claimed), due again in 60 s");
  });
});

describe("digest handler: fallback alarm", () => {
  const down: DigestModel = {
    id: "primary",
    digest: async () => {
      throw new DigestModelError("rejected", { reason: "client_error", status: 401 });
    },
  };

  it("reports a fallback rate over the alarm with the record's ids, the rate and the alarm", async () => {
    const { issues, outcomes, run } = setup({ digester: withFallback(down, createExtractiveDigester()) });
    await run(sqsEvent([turnRecord({ messageId: "m-a" })]));
    expect(outcomes[0]?.fallbacks).toBeGreaterThan(0);
    expect(issues.map((issue) => [issue.name, issue.message, issue.fields])).toEqual([
      [
        "DigestFallbackRateHigh",
        "digest fallback rate above the alarm threshold",
        {
          orgId: ORG,
          threadId: THREAD,
          turnEndedAt: TURN_END,
          messageId: "m-a",
          receiveCount: 1,
          fallbackRate: 1,
          fallbackAlarmRate: 0.5,
        },
      ],
    ]);
  });

  it("reports no issue at a fallback rate equal to the alarm rate", async () => {
    const { issues, outcomes, run } = setup({
      digester: withFallback(down, createExtractiveDigester()),
      jobOptions: { maxCallsPerJob: 1, fallbackAlarmRate: 1 },
    });
    await run(sqsEvent([turnRecord()]));
    expect(outcomes[0]?.digestedPages).toBeGreaterThan(0);
    expect(outcomes[0]?.fallbacks).toBe(outcomes[0]?.digestedPages);
    expect(issues).toEqual([]);
  });
});

describe("PoisonRecordError", () => {
  it("names itself and says why the record is poison", () => {
    const error = new PoisonRecordError("body is not JSON");
    expect(error).toMatchObject({ name: "PoisonRecordError", reason: "body is not JSON" });
    expect(error.message).toBe("poison record: body is not JSON");
  });
});

/** When a record whose job threw `error` on its `receive`-th receive is handed back, or undefined if it is not. */
function retryDelay(error: unknown, receive: number, settings: DispositionSettings = DISPOSITION_DEFAULTS) {
  const disposition = dispositionOf({ kind: "failed", error }, receive, settings);
  return disposition.action === "hand_back" ? disposition.delaySeconds : undefined;
}

describe("the backoff after a failed job: edges", () => {
  it("dead-letters an error that says it is not retryable, whatever the receive; backs off for one that is", () => {
    expect(
      dispositionOf({ kind: "failed", error: new StoreInputError("org_id", "is empty") }, 1).action,
    ).toBe("dead_letter");
    expect(dispositionOf({ kind: "failed", error: { retryable: false } }, 4).action).toBe("dead_letter");
    expect(retryDelay({ retryable: true }, 1)).toBe(30);
  });

  it("backs off for an undefined error as for one of unknown kind", () => {
    expect(retryDelay(undefined, 1)).toBe(30);
  });

  it("backs off for a null error as for one of unknown kind", () => {
    expect(retryDelay(null, 2)).toBe(60);
  });

  it("stops doubling after 30 steps", () => {
    const settings = { ...DISPOSITION_DEFAULTS, retryBaseSeconds: 1, retryMaxSeconds: Number.MAX_VALUE };
    expect(retryDelay(new Error("x"), 31, settings)).toBe(2 ** 30);
    expect(retryDelay(new Error("x"), 100, settings)).toBe(2 ** 30);
  });
});
