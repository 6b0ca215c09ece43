import { turnEventGroupId } from "@context-cleaner/assembler/events";
import { describe, expect, it } from "vitest";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestJobOptions } from "../job/options";
import type { DigestJobOutcome } from "../job/outcome";
import type { DigestJobPayload } from "../job/payload";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { createDigestHandler, type DigestHandlerDependencies } from "./digest-handler";
import { lambdaContext } from "./lambda-context";
import { sqsEvent } from "./sqs-event";

// How the digest handler starts a record's job: with the handler's job options, the
// invocation's remaining time as the job's `remainingTimeMs` port, and the record's send
// time as the time turns are coalesced on.

/**
 * Runs one record carrying `payload` through a digest handler on `ports` (which starts a
 * record whatever time is left) and returns the job's outcome as the handler reports it:
 * told to `onJobFinished` when acked, logged when handed back for lack of time.
 */
async function handle(
  payload: DigestJobPayload,
  ports: DigestHandlerDependencies["ports"],
  run: { options?: Partial<DigestJobOptions>; remainingTimeMs?: () => number; queuedAt?: Date } = {},
): Promise<Partial<DigestJobOutcome>> {
  const logger = recordingLogger();
  const finished: DigestJobOutcome[] = [];
  const handler = createDigestHandler({
    ports,
    queue: { changeVisibility: async () => {} },
    logger,
    metrics: recordingMetrics(),
    issues: () => {},
    jobOptions: run.options ?? {},
    onJobFinished: (outcome) => finished.push(outcome),
    minRemainingMsToStart: 0,
  });
  const event = sqsEvent([
    {
      body: JSON.stringify(payload),
      groupId: turnEventGroupId(payload.orgId, payload.threadId),
      ...(run.queuedAt ? { sentAt: run.queuedAt } : {}),
    },
  ]);
  const [record] = event.Records;
  if (record && !run.queuedAt) delete (record.attributes as { SentTimestamp?: string }).SentTimestamp;
  const context = {
    ...lambdaContext({ functionName: "digest", timeoutMs: 900_000 }),
    getRemainingTimeInMillis: run.remainingTimeMs ?? (() => 900_000),
  };
  await handler(event, context);
  const handedBack = logger
    .at("info")
    .find((entry) => entry.message === "not run: too little time left for a digest call");
  return finished[0] ?? (handedBack?.attributes as Partial<DigestJobOutcome>);
}

const timedThread = buildHeavyThread({
  name: "timed",
  seed: 3,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 80_000,
  pageChars: 16_000,
});
const timedRawToolChars = timedThread.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? String(message.content).length : 0),
  0,
);

function timedJob(remainingTimeMs?: () => number) {
  const ports = {
    checkpoints: createInMemoryCheckpointReader(new Map([["t", timedThread.messages]])),
    store: createInMemoryDigestStore(),
    digester: createExtractiveDigester(),
    clock: fixedClock(new Date("2026-11-30T10:00:00Z")),
  };
  const payload = {
    orgId: "acme",
    threadId: "t",
    rawToolChars: timedRawToolChars,
    turnEndedAt: "2026-11-30T10:00:00.000Z",
  };
  return handle(payload, ports, {
    options: { triggerChars: 0, minCharsPerPass: 0 },
    ...(remainingTimeMs ? { remainingTimeMs } : {}),
  });
}

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "run-job",
  seed: 9,
  titles: ["Ground Lease"],
  documentChars: 30_000,
  pageChars: 15_000,
});
const payload = (turnEndedAt: Date) => ({
  orgId: "acme",
  threadId: "thread",
  rawToolChars: 1_000_000,
  turnEndedAt: turnEndedAt.toISOString(),
});

function ports(): DigestHandlerDependencies["ports"] {
  return {
    checkpoints: createInMemoryCheckpointReader(new Map([["thread", fixture.messages]])),
    store: createInMemoryDigestStore(),
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
  };
}

describe("the digest handler starting a record's job", () => {
  it("hands the invocation's remaining time to the job, which starts no call it could not finish", async () => {
    const unhurried = await timedJob(() => 900_000);
    expect(unhurried.calls).toBeGreaterThan(0);
    const late = await timedJob(() => 1_000);
    expect(late.calls).toBe(0);
    expect(late.reason).toBe("out_of_time");
  });

  it("runs the job with its options", async () => {
    expect(await handle(payload(at), ports(), { options: { disabled: true } })).toMatchObject({
      status: "skipped",
      reason: "disabled",
    });
    expect(await handle(payload(at), ports(), { options: { minCharsPerPass: 1 } })).toMatchObject({
      status: "done",
    });
  });

  it("gives the job the invocation's remaining time", async () => {
    const outcome = await handle(payload(at), ports(), {
      options: { minCharsPerPass: 1 },
      remainingTimeMs: () => 1,
    });
    expect(outcome).toMatchObject({ reason: "out_of_time", calls: 0 });
  });

  it("coalesces on the queue's time when given: a pass that started after it covers a later turn end", async () => {
    const shared = ports();
    expect(await handle(payload(at), shared, { options: { minCharsPerPass: 1 } })).toMatchObject({
      status: "done",
    });
    const later = new Date(at.getTime() + 1_000);
    const queuedBefore = new Date(at.getTime() - 1_000);
    expect(await handle(payload(later), shared, { queuedAt: queuedBefore })).toMatchObject({
      status: "skipped",
      reason: "nothing_new",
    });
    // Without the queue's time the later turn end is not covered: the job goes past the
    // coalescing check and stops at the size check, the first pass having digested the pages.
    expect(await handle(payload(later), shared)).toMatchObject({
      status: "skipped",
      reason: "below_min_chars",
    });
  });
});
