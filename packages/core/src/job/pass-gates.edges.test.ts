import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { Metric, ThreadOwnership } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { createJobContext, type DigestJobPorts } from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";
import { admitJob, passGates } from "./pass-gates";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

function context(
  options: Partial<DigestJobOptions> = {},
  ports: Partial<DigestJobPorts> = {},
  payload: typeof job = job,
) {
  const metrics: Metric[] = [];
  const warnings: { message: string; fields: unknown }[] = [];
  const store = createInMemoryDigestStore();
  const full: DigestJobPorts = {
    checkpoints: { readThread: async () => [] },
    store,
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
    metrics: { record: (metric) => metrics.push(metric) },
    logger: { warn: (message, fields) => warnings.push({ message, fields }) },
    ...ports,
  };
  return { store, metrics, warnings, context: createJobContext(payload, full, resolveJobOptions(options)) };
}

const owner = (ownership: ThreadOwnership) => ({ threadOwner: { ownerOf: async () => ownership } });

describe("admitJob", () => {
  it("drops a job under the kill switch without asking for the thread's owner", async () => {
    let asked = 0;
    const { context: disabled } = context(
      { disabled: true },
      {
        threadOwner: {
          ownerOf: async () => {
            asked++;
            return { status: "owned", orgId: "acme" };
          },
        },
      },
    );
    expect(await admitJob(disabled)).toMatchObject({ status: "skipped", reason: "disabled" });
    expect(asked).toBe(0);
  });

  it("admits a job whose tool output is exactly the trigger", async () => {
    const { context: atTrigger } = context({ triggerChars: job.rawToolChars });
    expect(await admitJob(atTrigger)).toBeUndefined();
    const { context: below } = context({ triggerChars: job.rawToolChars + 1 });
    expect(await admitJob(below)).toMatchObject({ status: "skipped", reason: "below_trigger" });
  });

  it("admits a job whose org owns the thread", async () => {
    const { context: owned, warnings } = context({}, owner({ status: "owned", orgId: "acme" }));
    expect(await admitJob(owned)).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it("refuses a job of another org, logging the owner it found", async () => {
    const { context: other, warnings, metrics } = context({}, owner({ status: "owned", orgId: "rival" }));
    expect(await admitJob(other)).toMatchObject({ status: "skipped", reason: "not_owner" });
    expect(warnings).toEqual([
      {
        message: "job refused: its org does not own the thread",
        fields: { orgId: "acme", threadId: "thread-1", owner: "rival" },
      },
    ]);
    expect(metrics).toEqual([
      { name: "SkippedJobs", value: 1, unit: "Count", dimensions: { reason: "not_owner" } },
    ]);
  });

  it.each([
    [{ status: "unknown" } as const, "unknown"],
    [{ status: "conflicting", orgIds: ["acme", "rival"] } as const, "conflicting"],
  ])("refuses a job whose thread has no single owner (%o), logging why", async (ownership, logged) => {
    const { context: unowned, warnings } = context({}, owner(ownership));
    expect(await admitJob(unowned)).toMatchObject({ status: "skipped", reason: "not_owner" });
    expect(warnings.map((warning) => warning.fields)).toEqual([
      { orgId: "acme", threadId: "thread-1", owner: logged },
    ]);
  });
});

describe("passGates", () => {
  it("lets a job on when no lock is wired or the lock is free", async () => {
    expect(await passGates(context().context)).toBeUndefined();
    expect(await passGates(context({}, { lock: { isHeld: async () => false } }).context)).toBeUndefined();
  });

  it("skips a held turn lock with the set delay, recording a pass that covers nothing", async () => {
    const { context: locked, store } = context(
      { lockRequeueDelaySeconds: 45 },
      { lock: { isHeld: async () => true } },
    );
    expect(await passGates(locked)).toMatchObject({
      status: "skipped",
      reason: "turn_lock",
      requeueAfterSeconds: 45,
    });
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "skipped",
      reason: "turn_lock",
      coveredTurnEndedAt: null,
      latestTurnEndedAt: at,
    });
  });

  it("skips a job a pass already covered as nothing new, before peeking at the lock", async () => {
    let peeks = 0;
    const { context: covered, store } = context(
      {},
      {
        lock: {
          isHeld: async () => {
            peeks++;
            return true;
          },
        },
      },
    );
    await store.recordPass("acme", "thread-1", { status: "done", reason: null, coveredTurnEndedAt: at, at });
    expect(await passGates(covered)).toMatchObject({ status: "skipped", reason: "nothing_new" });
    expect(peeks).toBe(0);
  });
});
