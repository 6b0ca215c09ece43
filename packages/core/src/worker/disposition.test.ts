import { describe, expect, it } from "vitest";
import { DigestModelError, StoreInputError } from "../errors";
import { type DigestJobOutcome, emptyStats } from "../job/outcome";
import { DISPOSITION_DEFAULTS, type Disposition, dispositionOf, type RecordResult } from "./disposition";

function finished(outcome: Partial<DigestJobOutcome> & Pick<DigestJobOutcome, "status">): RecordResult {
  return { kind: "finished", outcome: { ...emptyStats(), ...outcome } as DigestJobOutcome };
}

const poison: RecordResult = { kind: "poison", reason: "body is not JSON", bodyStart: "{" };
const transient = new DigestModelError("overloaded", { reason: "server_error" });
const forGood = new StoreInputError("org_id", "is empty");

/** What a disposition comes to, in short: action, outcome, delay, metric, and what it falls back to. */
function shape(disposition: Disposition): Record<string, unknown> {
  return {
    action: disposition.action,
    outcome: disposition.outcome,
    ...("delaySeconds" in disposition ? { delay: disposition.delaySeconds } : {}),
    ...(disposition.metric ? { metric: disposition.metric } : {}),
    level: disposition.level,
    message: disposition.message,
    issues: disposition.issues.map((issue) => issue.name),
    ...(disposition.action === "dead_letter"
      ? {
          otherwise: disposition.otherwise.action,
          otherwiseDelay:
            "delaySeconds" in disposition.otherwise ? disposition.otherwise.delaySeconds : undefined,
        }
      : {}),
    ...(disposition.action === "ack" && disposition.recordSeenTurn ? { recordSeenTurn: true } : {}),
  };
}

describe("dispositionOf", () => {
  it.each<[string, RecordResult, number, Record<string, unknown>]>([
    [
      "a poison record is dead-lettered, else acked",
      poison,
      1,
      {
        action: "dead_letter",
        outcome: "poison",
        metric: "PoisonRecords",
        level: "error",
        message: "poison record: not a valid turn event, for the dead letters",
        issues: ["PoisonRecord"],
        otherwise: "ack",
        otherwiseDelay: undefined,
      },
    ],
    [
      "a record with too little time left goes back at once, not started",
      { kind: "no_time", remainingMs: 29_999 },
      1,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 0,
        metric: "RecordsNotStarted",
        level: "info",
        message: "not started: too little time left in this invocation",
        issues: [],
      },
    ],
    [
      "a record not started because the worker is stopping goes back at once",
      { kind: "stopping" },
      1,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 0,
        metric: "RecordsNotStarted",
        level: "info",
        message: "not started: the worker is stopping",
        issues: [],
      },
    ],
    [
      "a transient failure backs off by its receive",
      { kind: "failed", error: transient },
      3,
      {
        action: "hand_back",
        outcome: "failed",
        delay: 120,
        metric: "FailedJobs",
        level: "error",
        message: "digest job failed: the queue retries it",
        issues: ["DigestJobFailed"],
      },
    ],
    [
      "a failure for good is dead-lettered, else backed off",
      { kind: "failed", error: forGood },
      2,
      {
        action: "dead_letter",
        outcome: "failed",
        metric: "FailedJobs",
        level: "error",
        message: "digest job failed for good: sent to the dead letters",
        issues: ["DigestJobFailed"],
        otherwise: "hand_back",
        otherwiseDelay: 60,
      },
    ],
    [
      "a job stopped for the clock before any call goes back at once",
      finished({ status: "skipped", reason: "out_of_time" }),
      1,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 0,
        metric: "RecordsNotStarted",
        level: "info",
        message: "not run: too little time left for a digest call",
        issues: [],
      },
    ],
    [
      "a turn-lock skip under the cap goes back for the job's delay",
      finished({ status: "skipped", reason: "turn_lock", requeueAfterSeconds: 60 }),
      2,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 60,
        metric: "LockRequeues",
        level: "info",
        message: "a turn is running: handed back to the queue",
        issues: [],
      },
    ],
    [
      "a turn-lock skip at the cap is acked for the sweep",
      finished({ status: "skipped", reason: "turn_lock", requeueAfterSeconds: 60 }),
      3,
      {
        action: "ack",
        outcome: "skipped",
        metric: "LockRequeuesCapped",
        level: "warn",
        message: "a turn is still running: left to the nightly sweep",
        issues: [],
      },
    ],
    [
      "a claimed skip under the cap goes back for the claim's delay",
      finished({ status: "skipped", reason: "claimed", requeueAfterSeconds: 45 }),
      1,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 45,
        metric: "ClaimRequeues",
        level: "info",
        message: "another run holds the thread: handed back to the queue",
        issues: [],
      },
    ],
    [
      "a claimed skip at the cap records its turn, then is acked",
      finished({ status: "skipped", reason: "claimed", requeueAfterSeconds: 45 }),
      4,
      {
        action: "ack",
        outcome: "skipped",
        metric: "ClaimRequeuesCapped",
        level: "warn",
        message: "another run still holds the thread: its turn is recorded for the nightly sweep",
        issues: [],
        recordSeenTurn: true,
      },
    ],
    [
      "a job waiting for its announced turn goes back for the wait, whatever its receive (the job stops asking)",
      finished({ status: "skipped", reason: "checkpoint_behind", requeueAfterSeconds: 5 }),
      7,
      {
        action: "hand_back",
        outcome: "requeued",
        delay: 5,
        metric: "CheckpointWaits",
        level: "info",
        message: "the checkpoint does not show the announced turn yet: handed back to the queue",
        issues: [],
      },
    ],
    [
      "a finished job is acked",
      finished({ status: "partial", reason: "call_cap" }),
      1,
      { action: "ack", outcome: "partial", level: "info", message: "digest job finished", issues: [] },
    ],
    [
      "a refused tenant is acked and reported",
      finished({ status: "skipped", reason: "not_owner" }),
      1,
      {
        action: "ack",
        outcome: "skipped",
        level: "info",
        message: "digest job finished",
        issues: ["TenantRefused"],
      },
    ],
    [
      "a pass over the fallback alarm is acked and reported",
      finished({ status: "done", digestedPages: 4, fallbacks: 3 }),
      1,
      {
        action: "ack",
        outcome: "done",
        level: "info",
        message: "digest job finished",
        issues: ["DigestFallbackRateHigh"],
      },
    ],
    [
      "a pass at the fallback alarm is not reported",
      finished({ status: "done", digestedPages: 4, fallbacks: 2 }),
      1,
      { action: "ack", outcome: "done", level: "info", message: "digest job finished", issues: [] },
    ],
  ])("%s", (_name, result, receiveCount, expected) => {
    expect(shape(dispositionOf(result, receiveCount, DISPOSITION_DEFAULTS))).toEqual(expected);
  });

  it("falls back on the claimed rule's hand-back when the seen turn cannot be recorded, without counting it", () => {
    const disposition = dispositionOf(
      finished({ status: "skipped", reason: "claimed", requeueAfterSeconds: 45 }),
      3,
      DISPOSITION_DEFAULTS,
    );
    expect(disposition.action === "ack" && disposition.recordSeenTurn?.otherwise).toMatchObject({
      action: "hand_back",
      reason: "claimed",
      delaySeconds: 45,
      level: "warn",
      message: "turn not recorded: handed back to the queue",
    });
    expect(disposition.action === "ack" && disposition.recordSeenTurn?.otherwise.metric).toBeUndefined();
  });

  it("decides with the settings it is given: the cap and the backoff", () => {
    const settings = {
      ...DISPOSITION_DEFAULTS,
      maxLockRequeueReceives: 5,
      retryBaseSeconds: 10,
      retryMaxSeconds: 25,
    };
    const lock = finished({ status: "skipped", reason: "turn_lock", requeueAfterSeconds: 60 });
    expect(dispositionOf(lock, 4, settings).action).toBe("hand_back");
    expect(dispositionOf(lock, 5, settings).action).toBe("ack");
    const failed = dispositionOf({ kind: "failed", error: transient }, 3, settings);
    expect(failed.action === "hand_back" && failed.delaySeconds).toBe(25);
    expect(failed.fields).toMatchObject({ retryInSeconds: 25, errorName: "DigestModelError" });
  });

  it("logs a poison record's reason and the start of its body, and a finished job's figures", () => {
    expect(dispositionOf(poison, 1).fields).toEqual({ reason: "body is not JSON", body: "{" });
    expect(dispositionOf(finished({ status: "done", digestsWritten: 3 }), 1).fields).toMatchObject({
      status: "done",
      digestsWritten: 3,
    });
  });
});
