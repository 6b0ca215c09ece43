import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestStore } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

function ports(store: DigestStore, warnings: { message: string; fields: unknown }[] = []) {
  return {
    checkpoints: { readThread: async () => [] },
    store,
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
    logger: {
      warn: (message: string, fields?: Record<string, unknown>) => void warnings.push({ message, fields }),
    },
  };
}

describe("runDigestJob: a pass that throws", () => {
  it("records the pass as failed, the turn uncovered, and rethrows", async () => {
    const inner = createInMemoryDigestStore();
    const store: DigestStore = {
      ...inner,
      claimThread: async () => {
        throw new Error("connection reset");
      },
    };
    await expect(runDigestJob(job, ports(store))).rejects.toThrow("connection reset");
    expect(await inner.getPass("acme", "thread-1")).toMatchObject({
      status: "failed",
      reason: null,
      coveredTurnEndedAt: null,
      latestTurnEndedAt: at,
    });
  });

  it("logs a failed pass it cannot record, and rethrows the job's own error", async () => {
    const warnings: { message: string; fields: unknown }[] = [];
    const store: DigestStore = {
      ...createInMemoryDigestStore(),
      getPass: async () => {
        throw new Error("connection reset");
      },
      recordPass: async () => {
        throw new Error("still down");
      },
    };
    await expect(runDigestJob(job, ports(store, warnings))).rejects.toThrow("connection reset");
    expect(warnings).toEqual([
      {
        message: "failed pass not recorded",
        fields: { orgId: "acme", threadId: "thread-1", error: "Error: still down" },
      },
    ]);
  });

  it("skips a job whose thread has no checkpoint, recording it and releasing the lease", async () => {
    const store = createInMemoryDigestStore();
    const outcome = await runDigestJob(job, {
      ...ports(store),
      checkpoints: { readThread: async () => null },
    });
    expect(outcome).toMatchObject({ status: "skipped", reason: "no_checkpoint" });
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "skipped",
      reason: "no_checkpoint",
      coveredTurnEndedAt: null,
    });
    expect(await store.claimThread("acme", "thread-1", { owner: "next", at, leaseMs: 1_000 })).toMatchObject({
      claimed: true,
    });
  });
});
