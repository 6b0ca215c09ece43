import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestStore, LeasedPassUpdate } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { claimThread, whileClaimed } from "./claim-thread";
import { createJobContext, type DigestJobPorts } from "./job-context";
import { resolveJobOptions } from "./options";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

type MemoryStore = ReturnType<typeof createInMemoryDigestStore>;

/** A run on the in-memory store, its commits and releases recorded in the order they happen. */
function setup(ports: Partial<DigestJobPorts> = {}, base: MemoryStore = memoryStore()) {
  const events: string[] = [];
  const commits: LeasedPassUpdate[] = [];
  const warnings: { message: string; fields: unknown }[] = [];
  const spied: DigestStore = {
    ...base,
    commitLeasedPass: async (orgId, threadId, commit) => {
      events.push("commit");
      commits.push(commit);
      return base.commitLeasedPass(orgId, threadId, commit);
    },
    releaseThread: async (orgId, threadId, owner) => {
      events.push("release");
      return base.releaseThread(orgId, threadId, owner);
    },
  };
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store: spied,
      digester: createExtractiveDigester(),
      clock: fixedClock(at),
      logger: { warn: (message, fields) => warnings.push({ message, fields }) },
      ...ports,
    },
    resolveJobOptions({}),
  );
  return { store: base, events, commits, warnings, context };
}

function memoryStore(): MemoryStore {
  return createInMemoryDigestStore({ clock: fixedClock(at) });
}

const broken = async (): Promise<never> => {
  throw new Error("the pass broke");
};

describe("whileClaimed: the failed pass, fenced by the lease", () => {
  it("records a failed pass under the lease, the turn uncovered, then releases it and rethrows", async () => {
    const { store, events, commits, warnings, context } = setup();
    expect(await claimThread(context)).toBeUndefined();
    await expect(whileClaimed(context, broken)).rejects.toThrow("the pass broke");
    expect(events).toEqual(["commit", "release"]);
    expect(commits).toEqual([
      expect.objectContaining({
        owner: context.runId,
        rows: [],
        pass: expect.objectContaining({ status: "failed" }),
      }),
    ]);
    expect(await store.getPass("acme", "thread-1")).toMatchObject({
      status: "failed",
      reason: null,
      coveredTurnEndedAt: null,
      digestsWritten: 0,
    });
    expect(await store.holdsLease("acme", "thread-1", context.runId)).toBe(false);
    expect(warnings).toEqual([]);
  });

  it("writes nothing once another run holds the lease, warning that the lease was lost", async () => {
    const { store, warnings, context } = setup();
    await store.claimThread("acme", "thread-1", { owner: "other", at, leaseMs: 60_000, turnEndedAt: at });
    const before = await store.getPass("acme", "thread-1");
    await expect(whileClaimed(context, broken)).rejects.toThrow("the pass broke");
    expect(await store.getPass("acme", "thread-1")).toEqual(before);
    expect(await store.holdsLease("acme", "thread-1", "other")).toBe(true);
    expect(warnings).toEqual([
      {
        message: "failed pass not recorded: the lease was lost to another run",
        fields: { orgId: "acme", threadId: "thread-1" },
      },
    ]);
  });

  it("logs a store error recording the failed pass and still rethrows the work's error", async () => {
    const failing: MemoryStore = {
      ...memoryStore(),
      commitLeasedPass: async () => {
        throw new Error("connection reset");
      },
    };
    const { warnings, context } = setup({}, failing);
    await expect(whileClaimed(context, broken)).rejects.toThrow("the pass broke");
    expect(warnings).toEqual([
      {
        message: "failed pass not recorded",
        fields: { orgId: "acme", threadId: "thread-1", error: "Error: connection reset" },
      },
    ]);
    // Without a logger, the store error is dropped and the work's error still propagates.
    const { context: silent } = setup({ logger: undefined }, failing);
    await expect(whileClaimed(silent, broken)).rejects.toThrow("the pass broke");
  });

  it("rethrows the work's error without a logger when the lease was lost", async () => {
    const { store, context } = setup({ logger: undefined });
    await store.claimThread("acme", "thread-1", { owner: "other", at, leaseMs: 60_000, turnEndedAt: at });
    await expect(whileClaimed(context, broken)).rejects.toThrow("the pass broke");
    expect(await store.getPass("acme", "thread-1")).toMatchObject({ status: "skipped", reason: "claimed" });
  });
});
