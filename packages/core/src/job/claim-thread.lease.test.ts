import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestStore, ThreadClaimRequest } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { claimThread, whileClaimed } from "./claim-thread";
import { createJobContext, type DigestJobPorts } from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

function setup(options: Partial<DigestJobOptions> = {}, ports: Partial<DigestJobPorts> = {}) {
  const inner = createInMemoryDigestStore();
  const claims: ThreadClaimRequest[] = [];
  const releases: string[] = [];
  const warnings: { message: string; fields: unknown }[] = [];
  const store: DigestStore = {
    ...inner,
    claimThread: (orgId, threadId, claim) => {
      claims.push(claim);
      return inner.claimThread(orgId, threadId, claim);
    },
    releaseThread: (orgId, threadId, owner) => {
      releases.push(owner);
      return inner.releaseThread(orgId, threadId, owner);
    },
  };
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store,
      digester: createExtractiveDigester(),
      clock: fixedClock(at),
      logger: { warn: (message, fields) => warnings.push({ message, fields }) },
      ...ports,
    },
    resolveJobOptions(options),
  );
  return { inner, store, claims, releases, warnings, context };
}

describe("claimThread: the lease", () => {
  it("claims for this run, at the worker's time, for the job's turn, for leaseDurationMs without a deadline", async () => {
    const { claims, context } = setup({ leaseDurationMs: 120_000 });
    expect(await claimThread(context)).toBeUndefined();
    expect(claims).toEqual([{ owner: context.runId, at, leaseMs: 120_000, turnEndedAt: at }]);
  });

  it.each([
    ["the function's time left plus a minute, rounded up", 100_000.2, 160_001],
    ["leaseDurationMs when the function has more time than that", 2_000_000, 600_000],
    ["a minute once the function's time is up", -5, 60_000],
  ])("lasts %s", async (_label, remaining, leaseMs) => {
    const { claims, context } = setup({ leaseDurationMs: 600_000 }, { remainingTimeMs: () => remaining });
    await claimThread(context);
    expect(claims.map((claim) => claim.leaseMs)).toEqual([leaseMs]);
  });

  it("skips a held lease with the set requeue delay", async () => {
    const { inner, context } = setup({ claimRequeueDelaySeconds: 25 });
    await inner.claimThread("acme", "thread-1", { owner: "other", at, leaseMs: 60_000 });
    expect(await claimThread(context)).toMatchObject({
      status: "skipped",
      reason: "claimed",
      requeueAfterSeconds: 25,
    });
  });
});

describe("claimThread: coverage read with the claim", () => {
  it("skips as nothing new when a pass covered the turn by the time of the claim, releasing the lease", async () => {
    const { inner, releases, context } = setup();
    await inner.recordPass("acme", "thread-1", { status: "done", reason: null, coveredTurnEndedAt: at, at });
    expect(await claimThread(context)).toMatchObject({ status: "skipped", reason: "nothing_new" });
    expect(releases).toEqual([context.runId]);
  });
});

describe("whileClaimed", () => {
  it("releases this run's lease after the work and returns its outcome", async () => {
    const { releases, context } = setup();
    const outcome = { status: "done" as const, ...context.stats };
    await expect(whileClaimed(context, async () => outcome)).resolves.toBe(outcome);
    expect(releases).toEqual([context.runId]);
  });

  it("returns the work's outcome when the release fails after it, logging the failed release", async () => {
    const failing = {
      ...createInMemoryDigestStore(),
      releaseThread: async () => {
        throw new Error("connection reset");
      },
    };
    const { context, warnings } = setup({}, { store: failing });
    const outcome = { status: "done" as const, ...context.stats };
    await expect(whileClaimed(context, async () => outcome)).resolves.toBe(outcome);
    expect(warnings).toEqual([
      {
        message: "could not release the thread's lease after its pass; it lapses on its own",
        fields: { orgId: "acme", threadId: "thread-1", error: "Error: connection reset" },
      },
    ]);
    // Without a logger, the failed release is dropped just the same.
    const { context: silent } = setup({}, { store: failing, logger: undefined });
    await expect(whileClaimed(silent, async () => outcome)).resolves.toBe(outcome);
  });

  it("rethrows the work's error when the release fails too, logging the failed release", async () => {
    const { context, warnings } = setup(
      {},
      {
        store: {
          ...createInMemoryDigestStore(),
          releaseThread: async () => {
            throw new Error("connection reset");
          },
        },
      },
    );
    // The run holds the lease, as after its claim: the failed pass is recorded under it.
    expect(await claimThread(context)).toBeUndefined();
    await expect(
      whileClaimed(context, async () => {
        throw new Error("the pass broke");
      }),
    ).rejects.toThrow("the pass broke");
    expect(warnings).toEqual([
      {
        message: "could not release the thread's lease after a failed pass; it lapses on its own",
        fields: { orgId: "acme", threadId: "thread-1", error: "Error: connection reset" },
      },
    ]);
  });
});
