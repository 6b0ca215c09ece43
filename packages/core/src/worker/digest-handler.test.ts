import { randomUUID } from "node:crypto";
import { turnEventDeduplicationId, turnEventGroupId } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { type ManualClock, manualClock } from "#test/core/fakes/manual-clock";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { heavyThread, rawToolChars } from "#test/core/fixtures/threads";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { withFallback } from "../digesters/with-fallback";
import { DigestModelError, StoreInputError } from "../errors";
import type { DigestJobPorts } from "../job/job-context";
import type { DigestModel, DigestStore, TurnLock } from "../ports";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { createDigestHandler, type DigestHandlerDependencies } from "./digest-handler";
import { DISPOSITION_DEFAULTS, type DispositionSettings, dispositionOf } from "./disposition";
import { lambdaContext } from "./lambda-context";
import { deliverOnce } from "./local-worker";
import type { FunctionIssue } from "./observability";
import { sqsEvent } from "./sqs-event";

type ThreadOwner = NonNullable<DigestJobPorts["threadOwner"]>;

const storage = usePgliteRepository();

/** One thread of a fresh org, its turn event and the queue message the publisher sends. */
function turn(threadId = "ground-lease", turnEndedAt = "2026-11-30T10:00:00.000Z") {
  const orgId = `org-${randomUUID()}`;
  const event = { orgId, threadId, rawToolChars: rawToolChars(heavyThread().messages), turnEndedAt };
  return {
    orgId,
    threadId,
    event,
    message: {
      body: JSON.stringify(event),
      groupId: turnEventGroupId(orgId, threadId),
      deduplicationId: turnEventDeduplicationId(orgId, threadId, turnEndedAt),
    },
  };
}

function setup(
  options: {
    store?: DigestStore;
    lock?: TurnLock;
    digester?: DigestModel;
    threadOwner?: ThreadOwner;
    disabled?: boolean;
    visibility?: DigestHandlerDependencies["queue"];
    deadLetters?: NonNullable<DigestHandlerDependencies["queue"]["deadLetters"]>;
    onJobFinished?: DigestHandlerDependencies["onJobFinished"];
    jobOptions?: DigestHandlerDependencies["jobOptions"];
    checkpoints?: DigestJobPorts["checkpoints"];
    clock?: ManualClock;
  } = {},
) {
  const clock = options.clock ?? manualClock(new Date("2026-11-30T10:05:00Z"));
  const queue = createInProcessDigestQueue({ clock, visibilityTimeoutSeconds: 600 });
  const logger = recordingLogger();
  const metrics = recordingMetrics();
  const issues: FunctionIssue[] = [];
  const dependencies: DigestHandlerDependencies = {
    ports: {
      checkpoints:
        options.checkpoints ??
        createInMemoryCheckpointReader(new Map([["ground-lease", heavyThread().messages]])),
      store: options.store ?? storage.repository,
      digester: options.digester ?? createExtractiveDigester(),
      clock,
      ...(options.lock ? { lock: options.lock } : {}),
      ...(options.threadOwner ? { threadOwner: options.threadOwner } : {}),
    },
    queue: options.visibility ?? {
      changeVisibility: queue.changeVisibility,
      deadLetters: options.deadLetters ?? queue.deadLetters,
    },
    logger,
    metrics,
    issues: (issue) => issues.push(issue),
    disabled: () => options.disabled ?? false,
    jobOptions: options.jobOptions ?? { maxCallsPerJob: 2 },
    ...(options.onJobFinished ? { onJobFinished: options.onJobFinished } : {}),
  };
  return { clock, queue, logger, metrics, issues, handler: createDigestHandler(dependencies) };
}

describe("createDigestHandler", () => {
  it("digests the thread of a record and acks it, logging the outcome and flushing metrics once", async () => {
    const { queue, logger, metrics, issues, handler } = setup();
    const { orgId, threadId, message } = turn();
    await queue.send(message);

    const batch = await deliverOnce(queue, handler);
    expect(batch?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(0);
    expect(await queue.receive(10)).toEqual([]);
    const finished = logger.at("info").find((entry) => entry.message === "digest job finished");
    expect(finished?.attributes).toMatchObject({
      orgId,
      threadId,
      status: "partial",
      reason: "call_cap",
      calls: 2,
    });
    expect(metrics.count("DigestsWritten")).toBeGreaterThan(0);
    expect(metrics.flushes).toBe(1);
    expect(logger.at("error")).toEqual([]);
    expect(issues).toEqual([]);
  });

  it("tells onJobFinished of each finished job with its message id; an observer that throws fails nothing", async () => {
    const told: { messageId: string; status: string; digestsWritten: number }[] = [];
    const { queue, logger, handler } = setup({
      onJobFinished: (outcome, messageId) => {
        told.push({ messageId, status: outcome.status, digestsWritten: outcome.digestsWritten });
        throw new Error("observer broke");
      },
    });
    const { orgId, threadId, message } = turn();
    const { messageId } = await queue.send(message);

    const batch = await deliverOnce(queue, handler);
    expect(batch?.failed).toEqual([]);
    const written = (await storage.repository.loadThreadDigests(orgId, threadId)).size;
    expect(told).toEqual([{ messageId, status: "partial", digestsWritten: written }]);
    expect(written).toBeGreaterThan(0);
    expect(await queue.receive(10)).toEqual([]);
    expect(logger.at("warn").map((entry) => entry.message)).toEqual(["onJobFinished threw: ignored"]);
  });

  it("dead-letters a poison record with its reason and acks it at once, logging, counting and reporting it, while other threads go on", async () => {
    const { queue, logger, metrics, issues, handler } = setup();
    const good = turn();
    await queue.send({
      body: JSON.stringify({ ...good.event, rawToolChars: "lots" }),
      groupId: "poison",
      deduplicationId: "p1",
    });
    await queue.send({ body: "{not json", groupId: "poison-2", deduplicationId: "p2" });
    await queue.send(good.message);

    const first = await deliverOnce(queue, handler);
    expect(first?.received).toHaveLength(3);
    expect(first?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(good.orgId, good.threadId)).size).toBeGreaterThan(0);
    expect(await queue.receive(10)).toEqual([]);
    const dead = await queue.deadLetters.receive(10);
    expect(dead.map((letter) => [letter.groupId, letter.receiveCount]).sort()).toEqual([
      ["poison", 1],
      ["poison-2", 1],
    ]);
    expect(dead.find((letter) => letter.groupId === "poison")?.deadLetterReason).toMatch(
      /rawToolChars: must be an integer ≥ 0, got a string/,
    );
    expect(dead.find((letter) => letter.groupId === "poison-2")?.deadLetterReason).toMatch(
      /^body is not JSON/,
    );
    expect(logger.at("error").map((entry) => String(entry.attributes.reason))).toHaveLength(2);
    expect(metrics.count("PoisonRecords")).toBe(2);
    expect(metrics.count("FailedJobs")).toBe(0);
    // Each is an Error object for the console's Issues tab, with its message id and reason, not its body.
    const poisonIds = first?.received
      .filter((record) => record.groupId.startsWith("poison"))
      .map((record) => record.messageId)
      .sort();
    expect(issues.map((issue) => issue.fields.messageId).sort()).toEqual(poisonIds);
    for (const issue of issues) {
      expect(issue).toBeInstanceOf(Error);
      expect(issue).toMatchObject({ name: "PoisonRecord", receiveCount: 1 });
      expect(String(issue.fields.reason)).toMatch(/rawToolChars|not JSON/);
      expect(Object.keys(issue.fields)).not.toContain("body");
    }
  });

  it("times every record it handles by outcome, the skipped, handed-back, failed and poison ones too", async () => {
    // Each port a record reaches moves the clock by its own step, so each record's time is known.
    const clock = manualClock(new Date("2026-11-30T10:05:00Z"));
    const finished = turn();
    const skipped = turn("gone");
    const failed = turn();
    const requeued = turn();
    const extractive = createExtractiveDigester();
    const readable = createInMemoryCheckpointReader(new Map([["ground-lease", heavyThread().messages]]));
    const { queue, metrics, handler } = setup({
      clock,
      digester: {
        id: extractive.id,
        async digest(request, options) {
          clock.advance(2);
          return extractive.digest(request, options);
        },
      },
      checkpoints: {
        async readThread(threadId) {
          if (threadId === "gone") clock.advance(5);
          return readable.readThread(threadId);
        },
      },
      store: {
        ...storage.repository,
        getPass: (orgId, threadId) => storage.repository.getPass(orgId, threadId),
        recordPass: (orgId, threadId, pass) => storage.repository.recordPass(orgId, threadId, pass),
        async commitLeasedPass(orgId, threadId, commit) {
          if (orgId !== failed.orgId || commit.rows.length === 0) {
            return storage.repository.commitLeasedPass(orgId, threadId, commit);
          }
          clock.advance(7);
          throw new Error("connection reset");
        },
      },
      lock: {
        async isHeld(orgId) {
          if (orgId !== requeued.orgId) return false;
          clock.advance(13);
          return true;
        },
      },
      deadLetters: {
        async send() {
          clock.advance(1);
          return { messageId: "dead-1" };
        },
      },
    });
    await queue.send({ body: "{not json", groupId: "poison", deduplicationId: "p" });
    for (const record of [finished, skipped, failed, requeued]) await queue.send(record.message);

    const batch = await deliverOnce(queue, handler);
    expect(batch?.received).toHaveLength(5);
    expect(batch?.failed).toHaveLength(2);
    const timed = metrics.metrics
      .filter((metric) => metric.name === "RecordDuration")
      .map((metric) => [metric.dimensions?.outcome, metric.value, metric.unit]);
    expect(timed.sort()).toEqual(
      [
        ["failed", 11_000, "Milliseconds"], // two digest calls, then the write that throws
        ["partial", 4_000, "Milliseconds"], // two digest calls (the call cap)
        ["poison", 1_000, "Milliseconds"],
        ["requeued", 13_000, "Milliseconds"],
        ["skipped", 5_000, "Milliseconds"], // no checkpoint
      ].sort(),
    );
    // The job's own duration covers only the pass that committed.
    expect(
      metrics.metrics.filter((metric) => metric.name === "JobDuration").map((metric) => metric.value),
    ).toEqual([4_000]);
  });

  it("tries the valid later records of a poison record's thread in the same batch, never dead-lettering them", async () => {
    const { queue, metrics, handler } = setup();
    const thread = turn();
    const poison = JSON.stringify({ ...thread.event, threadId: " padded " });
    await queue.send({
      body: poison,
      groupId: thread.message.groupId,
      deduplicationId: "poison",
    });
    await queue.send(thread.message);

    const batch = await deliverOnce(queue, handler);
    expect(batch?.received.map((message) => message.deduplicationId)).toEqual([
      "poison",
      thread.message.deduplicationId,
    ]);
    expect(batch?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(thread.orgId, thread.threadId)).size).toBeGreaterThan(
      0,
    );
    expect(await storage.repository.getPass(thread.orgId, thread.threadId)).toMatchObject({
      status: "partial",
    });
    const dead = await queue.deadLetters.receive(10);
    expect(dead.map((letter) => [letter.body, letter.groupId])).toEqual([[poison, thread.message.groupId]]);
    expect(metrics.count("PoisonRecords")).toBe(1);
  });

  it("acks a poison record it cannot dead-letter, after logging and counting it, and tries the valid records of its thread", async () => {
    const { queue, logger, metrics, handler } = setup({
      deadLetters: {
        send: async () => {
          throw new Error("dead-letter queue unreachable");
        },
      },
    });
    const thread = turn();
    await queue.send({ body: "{not json", groupId: thread.message.groupId, deduplicationId: "poison" });
    await queue.send(thread.message);
    const batch = await deliverOnce(queue, handler);
    expect(batch?.received).toHaveLength(2);
    expect(batch?.failed).toEqual([]);
    expect(await storage.repository.getPass(thread.orgId, thread.threadId)).toMatchObject({
      status: "partial",
    });
    expect(logger.at("error")[0]?.message).toBe(
      "poison record: not a valid turn event, for the dead letters",
    );
    expect(logger.at("warn")[0]).toMatchObject({
      message: "poison record not dead-lettered: acked and dropped, its body logged above",
      attributes: { error: "dead-letter queue unreachable" },
    });
    expect(metrics.count("PoisonRecords")).toBe(1);
    expect(metrics.metrics.filter((metric) => metric.name === "RecordDuration")[0]).toEqual({
      name: "RecordDuration",
      value: 0,
      unit: "Milliseconds",
      dimensions: { outcome: "poison" },
    });
    expect(await queue.receive(10)).toEqual([]);
  });

  it("takes a turn that ends far ahead of the clock for poison: no failed pass is recorded for the sweep to resend", async () => {
    const { queue, logger, metrics, handler } = setup();
    // The clock reads 10:05; the turn claims to end an hour later.
    const { orgId, threadId, message } = turn("ground-lease", "2026-11-30T11:05:00.000Z");
    await queue.send(message);
    expect((await deliverOnce(queue, handler))?.failed).toEqual([]);
    expect((await queue.deadLetters.receive(10)).map((letter) => letter.body)).toEqual([message.body]);
    expect(metrics.count("PoisonRecords")).toBe(1);
    expect(metrics.count("FailedJobs")).toBe(0);
    expect(String(logger.at("error")[0]?.attributes.reason)).toMatch(/ahead of the worker's clock/);
    expect(await storage.repository.getPass(orgId, threadId)).toBeNull();
  });

  it("drops a job under the kill switch, acked and counted, without touching storage", async () => {
    let storeCalls = 0;
    const store = new Proxy(storage.repository, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function"
          ? (...args: unknown[]) => {
              storeCalls += 1;
              return value.apply(target, args);
            }
          : value;
      },
    });
    const { queue, metrics, handler } = setup({ store, disabled: true });
    const { orgId, threadId, message } = turn();
    await queue.send(message);
    expect((await deliverOnce(queue, handler))?.failed).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);
    expect(metrics.count("SkippedJobs", { reason: "disabled" })).toBe(1);
    expect(metrics.metrics.filter((metric) => metric.name === "RecordDuration")).toEqual([
      { name: "RecordDuration", value: 0, unit: "Milliseconds", dimensions: { outcome: "skipped" } },
    ]);
    expect(storeCalls).toBe(0);
    expect(await storage.repository.getPass(orgId, threadId)).toBeNull();
  });

  it("hands a record back while a turn runs, without a failure, and past the cap leaves it to the sweep", async () => {
    const { clock, queue, logger, metrics, handler } = setup({ lock: { isHeld: async () => true } });
    const { orgId, threadId, message } = turn();
    await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    clock.advance(59);
    expect(await queue.receive(10)).toEqual([]);
    clock.advance(1);
    const second = await deliverOnce(queue, handler);
    expect(second?.received[0]?.receiveCount).toBe(2);
    expect(second?.failed).toHaveLength(1);
    clock.advance(60);
    const third = await deliverOnce(queue, handler);
    expect(third?.received[0]?.receiveCount).toBe(3);
    expect(third?.failed).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);
    expect(await queue.deadLetters.receive(10)).toEqual([]);

    expect(metrics.count("LockRequeues")).toBe(2);
    expect(metrics.count("LockRequeuesCapped")).toBe(1);
    expect(metrics.count("FailedJobs")).toBe(0);
    expect(logger.at("error")).toEqual([]);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({
      status: "skipped",
      reason: "turn_lock",
    });
    const leftBehind = await storage.repository.listLeftBehind({ limit: 1000 });
    expect(leftBehind.threads.find((thread) => thread.orgId === orgId)).toMatchObject({
      reason: "turn_lock",
    });
  });

  it("hands a record back while another run holds the thread, and past the cap records its turn for the sweep before acking, counted apart from the turn lock", async () => {
    const { orgId, threadId, message, event } = turn();
    const earlierTurn = new Date("2026-11-30T09:00:00Z");
    await storage.repository.recordPass(orgId, threadId, {
      status: "done",
      coveredTurnEndedAt: earlierTurn,
      at: earlierTurn,
    });
    const recordedAt = (await storage.repository.getPass(orgId, threadId))?.at;
    // Another run took the thread's lease (a run whose delivery timed out, or the sweep's).
    await storage.repository.claimThread(orgId, threadId, {
      owner: "the-other-run",
      at: new Date("2026-11-30T10:04:00Z"),
      leaseMs: 900_000,
    });
    const { clock, queue, logger, metrics, handler } = setup();
    await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    clock.advance(60);
    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    clock.advance(60);
    const third = await deliverOnce(queue, handler);
    expect(third?.received[0]?.receiveCount).toBe(3);
    expect(third?.failed).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);

    expect(metrics.count("ClaimRequeues")).toBe(2);
    expect(metrics.count("ClaimRequeuesCapped")).toBe(1);
    expect(metrics.count("LockRequeues")).toBe(0);
    expect(metrics.count("LockRequeuesCapped")).toBe(0);
    expect(logger.at("warn").map((entry) => entry.message)).toEqual([
      "another run still holds the thread: its turn is recorded for the nightly sweep",
    ]);
    // Only the latest turn moved: the holder's record keeps its status and time, and the
    // holder's own pass still records.
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({
      status: "done",
      reason: null,
      at: recordedAt,
      latestTurnEndedAt: new Date(event.turnEndedAt),
      coveredTurnEndedAt: earlierTurn,
      leaseOwner: "the-other-run",
    });
    await storage.repository.recordPass(orgId, threadId, {
      status: "partial",
      reason: "call_cap",
      at: new Date("2026-11-30T10:05:30Z"),
    });
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({ status: "partial" });
    const leftBehind = await storage.repository.listLeftBehind({ limit: 1000 });
    expect(leftBehind.threads.find((thread) => thread.orgId === orgId)).toMatchObject({ threadId });
  });

  it("coalesces turns on the queue's send time, not the runtime host's clock: a host ahead hides no later turn", async () => {
    const outcomes: string[] = [];
    const { clock, queue, handler } = setup({
      jobOptions: {},
      onJobFinished: (outcome) => outcomes.push(outcome.reason ?? outcome.status),
    });
    // A host 200 s ahead (within the 300 s the worker accepts) ends a turn; its pass covers the thread.
    const ahead = turn("ground-lease", "2026-11-30T10:08:20.000Z");
    await queue.send(ahead.message);
    await deliverOnce(queue, handler);
    expect(outcomes).toEqual(["done"]);

    // A minute later a host with a right clock ends a later turn of the same thread (its
    // stamp is earlier than the first host's), and a duplicate event of it follows.
    clock.advance(60);
    const later = { ...ahead.event, turnEndedAt: "2026-11-30T10:06:00.000Z" };
    await queue.send({ ...ahead.message, body: JSON.stringify(later), deduplicationId: "later-turn" });
    await queue.send({ ...ahead.message, body: JSON.stringify(later), deduplicationId: "later-turn-again" });
    clock.advance(1);
    await deliverOnce(queue, handler);
    await deliverOnce(queue, handler);
    // The later turn's pass runs; its duplicate, sent before that pass read the thread, is coalesced.
    expect(outcomes).toHaveLength(3);
    expect(outcomes[1]).not.toBe("nothing_new");
    expect(outcomes[2]).toBe("nothing_new");
  });

  it("hands a record back at once when its job stops for the clock before any call", async () => {
    const { queue, metrics, handler } = setup();
    const { orgId, threadId, message } = turn();
    await queue.send(message);
    // 50 s left: enough to start (30 s), too little for one call and the commit (70 s).
    const batch = await deliverOnce(queue, handler, { functionTimeoutMs: 50_000 });
    expect(batch?.failed).toHaveLength(1);
    expect(metrics.count("RecordsNotStarted")).toBe(1);
    expect(metrics.count("DigestCalls")).toBe(0);
    const retry = await deliverOnce(queue, handler);
    expect(retry?.received[0]?.receiveCount).toBe(2);
    expect(retry?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(0);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({
      status: "partial",
      reason: "call_cap",
    });
  });

  it("brings a thread's later records back with one handed back, while other threads go on", async () => {
    const locked = turn();
    const free = turn();
    const changes: [string, number][] = [];
    const { handler } = setup({
      lock: { isHeld: async (orgId) => orgId === locked.orgId },
      visibility: { changeVisibility: async (handle, seconds) => void changes.push([handle, seconds]) },
    });
    const laterEnd = "2026-11-30T10:01:00.000Z";
    const event = sqsEvent([
      { ...locked.message, receiptHandle: "locked-1" },
      {
        ...locked.message,
        body: JSON.stringify({ ...locked.event, turnEndedAt: laterEnd }),
        receiptHandle: "locked-2",
      },
      { ...free.message, receiptHandle: "free-1" },
    ]);
    const response = await handler(event, lambdaContext({ functionName: "digest", timeoutMs: 300_000 }));
    const [first, second] = event.Records;
    expect(response.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      first?.messageId,
      second?.messageId,
    ]);
    expect(changes).toEqual([
      ["locked-1", 60],
      ["locked-2", 60],
    ]);
    expect((await storage.repository.loadThreadDigests(free.orgId, free.threadId)).size).toBeGreaterThan(0);
  });

  it("fails a record whose job throws, for the queue to retry; logs, counts and records the pass as failed", async () => {
    let upserts = 0;
    const flaky: DigestStore = {
      ...storage.repository,
      getPass: (orgId, threadId) => storage.repository.getPass(orgId, threadId),
      recordPass: (orgId, threadId, pass) => storage.repository.recordPass(orgId, threadId, pass),
      async commitLeasedPass(orgId, threadId, commit) {
        upserts += 1;
        if (upserts === 1) throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
        return storage.repository.commitLeasedPass(orgId, threadId, commit);
      },
    };
    const { clock, queue, logger, metrics, issues, handler } = setup({ store: flaky });
    const { orgId, threadId, message } = turn();
    const { messageId } = await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    expect(metrics.count("FailedJobs")).toBe(1);
    // The invocation succeeds (a partial batch response): the console's Issues tab sees the
    // failure only as an Error object, with the record's ids and the error that failed the job.
    expect(issues).toHaveLength(1);
    expect(issues[0]).toBeInstanceOf(Error);
    expect(issues[0]).toMatchObject({
      name: "DigestJobFailed",
      message: "digest job failed: the queue retries it",
      fields: { orgId, threadId, messageId, receiveCount: 1, retryInSeconds: 30 },
      orgId,
      threadId,
      messageId,
    });
    expect((issues[0]?.cause as Error | undefined)?.message).toBe("connection reset");
    expect(logger.at("error")[0]).toMatchObject({
      message: "digest job failed: the queue retries it",
      attributes: { orgId, threadId, error: "connection reset", receiveCount: 1, retryInSeconds: 30 },
    });
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({ status: "failed" });
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBe(0);

    // Back after the first backoff step, not the 600 s visibility timeout.
    clock.advance(29);
    expect(await deliverOnce(queue, handler)).toBeUndefined();
    clock.advance(1);
    const retry = await deliverOnce(queue, handler);
    expect(retry?.received[0]?.receiveCount).toBe(2);
    expect(retry?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(0);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({ status: "partial" });
    expect(issues).toHaveLength(1);
  });

  it("reports a job refused because its org does not own the thread, with the record's ids", async () => {
    const threadOwner: ThreadOwner = { ownerOf: async () => ({ status: "owned", orgId: "another-org" }) };
    const { queue, metrics, issues, handler } = setup({ threadOwner });
    const { orgId, threadId, message } = turn();
    const { messageId } = await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toEqual([]);
    expect(metrics.count("SkippedJobs", { reason: "not_owner" })).toBe(1);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toBeInstanceOf(Error);
    expect(issues[0]).toMatchObject({ name: "TenantRefused", fields: { orgId, threadId, messageId } });
  });

  it("records no failed pass when the thread's owner cannot be read: the payload's org is not verified", async () => {
    const threadOwner: ThreadOwner = {
      ownerOf: async () => {
        throw Object.assign(new Error("owner table unreachable"), { retryable: true });
      },
    };
    const { queue, metrics, handler } = setup({ threadOwner });
    const { orgId, threadId, message } = turn();
    await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    expect(metrics.count("FailedJobs")).toBe(1);
    expect(await storage.repository.getPass(orgId, threadId)).toBeNull();
  });

  it("records a failed pass under the owner's org once the owner is verified", async () => {
    const { orgId, threadId, message } = turn();
    const threadOwner: ThreadOwner = { ownerOf: async () => ({ status: "owned", orgId }) };
    const broken: DigestStore = {
      ...storage.repository,
      getPass: (org, thread) => storage.repository.getPass(org, thread),
      recordPass: (org, thread, pass) => storage.repository.recordPass(org, thread, pass),
      claimThread: async () => {
        throw Object.assign(new Error("connection reset"), { code: "ECONNRESET" });
      },
    };
    const { queue, handler } = setup({ threadOwner, store: broken });
    await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toHaveLength(1);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({ status: "failed" });
  });

  it("reports a finished job whose fallback rate is over the alarm, and none under it", async () => {
    const down: DigestModel = {
      id: "primary",
      digest: async () => {
        throw new DigestModelError("rejected", { reason: "client_error", status: 401 });
      },
    };
    const { queue, issues, handler } = setup({ digester: withFallback(down, createExtractiveDigester()) });
    const { orgId, threadId, message } = turn();
    const { messageId } = await queue.send(message);

    expect((await deliverOnce(queue, handler))?.failed).toEqual([]);
    expect((await storage.repository.loadThreadDigests(orgId, threadId)).size).toBeGreaterThan(0);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toBeInstanceOf(Error);
    expect(issues[0]).toMatchObject({
      name: "DigestFallbackRateHigh",
      fields: { orgId, threadId, messageId, fallbackRate: 1, fallbackAlarmRate: 0.5 },
    });

    const healthy = setup({ digester: withFallback(createExtractiveDigester(), createExtractiveDigester()) });
    await healthy.queue.send(turn().message);
    expect((await deliverOnce(healthy.queue, healthy.handler))?.failed).toEqual([]);
    expect(healthy.issues).toEqual([]);
  });

  it("dead-letters a job that fails for good itself, with its reason, whatever the queue's redrive policy; backs off when it cannot", async () => {
    const refusing: DigestStore = {
      ...storage.repository,
      getPass: (orgId, threadId) => storage.repository.getPass(orgId, threadId),
      recordPass: (orgId, threadId, pass) => storage.repository.recordPass(orgId, threadId, pass),
      // Refuses the pass's rows; the failed pass (no rows) records.
      commitLeasedPass: async (orgId, threadId, commit) => {
        if (commit.rows.length > 0) throw new StoreInputError("tool_call_id", "is too long");
        return storage.repository.commitLeasedPass(orgId, threadId, commit);
      },
    };
    const { queue, logger, metrics, handler } = setup({ store: refusing });
    const { orgId, threadId, message } = turn();
    await queue.send(message);
    expect((await deliverOnce(queue, handler))?.failed).toEqual([]);
    expect(await queue.receive(10)).toEqual([]);
    const [letter] = await queue.deadLetters.receive(10);
    expect(letter?.body).toBe(message.body);
    expect(letter?.deadLetterReason).toMatch(/^job failed for good: invalid_storage_input: /);
    expect(logger.at("error")[0]).toMatchObject({
      message: "digest job failed for good: sent to the dead letters",
      attributes: { errorCode: "invalid_storage_input", retryable: false },
    });
    expect(metrics.count("FailedJobs")).toBe(1);
    expect(await storage.repository.getPass(orgId, threadId)).toMatchObject({ status: "failed" });

    const unsent = setup({
      store: refusing,
      deadLetters: {
        send: async () => {
          throw new Error("dead-letter queue unreachable");
        },
      },
    });
    await unsent.queue.send(turn().message);
    expect((await deliverOnce(unsent.queue, unsent.handler))?.failed).toHaveLength(1);
    expect(unsent.logger.at("warn")[0]).toMatchObject({
      message: "failed job not dead-lettered: handed back after the backoff",
      attributes: { error: "dead-letter queue unreachable" },
    });
    expect(await unsent.queue.receive(10)).toEqual([]);
    unsent.clock.advance(30);
    expect((await unsent.queue.receive(10))[0]?.receiveCount).toBe(2);
  });

  it("does not start a record with too little time left; it goes back at once", async () => {
    const { queue, metrics, handler } = setup();
    const { orgId, threadId, message } = turn();
    await queue.send(message);
    const batch = await deliverOnce(queue, handler, { functionTimeoutMs: 10_000 });
    expect(batch?.failed).toHaveLength(1);
    expect(metrics.count("RecordsNotStarted")).toBe(1);
    expect(metrics.metrics.filter((metric) => metric.name === "RecordDuration")).toEqual([
      { name: "RecordDuration", value: 0, unit: "Milliseconds", dimensions: { outcome: "requeued" } },
    ]);
    expect(await storage.repository.getPass(orgId, threadId)).toBeNull();
    const retry = await deliverOnce(queue, handler);
    expect(retry?.received[0]?.receiveCount).toBe(2);
    expect(retry?.failed).toEqual([]);
    expect(await storage.repository.getPass(orgId, threadId)).not.toBeNull();
  });
});

/** When a record whose job threw `error` on its `receive`-th receive is handed back, or undefined if it is not. */
function retryDelay(error: unknown, receive: number, settings: DispositionSettings = DISPOSITION_DEFAULTS) {
  const disposition = dispositionOf({ kind: "failed", error }, receive, settings);
  return disposition.action === "hand_back" ? disposition.delaySeconds : undefined;
}

describe("the backoff after a failed job", () => {
  it("doubles from 30 s with each receive up to 900 s, for retryable errors and errors of unknown kind", () => {
    const transient = Object.assign(new Error("connection reset"), { retryable: true });
    expect([1, 2, 3, 4, 5, 6].map((receive) => retryDelay(transient, receive))).toEqual([
      30, 60, 120, 240, 480, 900,
    ]);
    expect(retryDelay(new Error("unknown"), 2)).toBe(60);
    expect(retryDelay("not an error", 1)).toBe(30);
    expect(retryDelay(new Error("x"), 1_000)).toBe(900);
    expect(retryDelay(new Error("x"), 0)).toBe(30);
  });

  it("does not apply to an error that says it is not retryable: that job is dead-lettered", () => {
    expect(
      dispositionOf({ kind: "failed", error: new StoreInputError("org_id", "is empty") }, 1).action,
    ).toBe("dead_letter");
    expect(dispositionOf({ kind: "failed", error: { retryable: false } }, 3).action).toBe("dead_letter");
  });
});
