import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { DigestModelError } from "../errors";
import type { DigestModel, DigestRequest } from "../ports";
import type { DigestJobPorts } from "./job-context";
import type { DigestJobOptions } from "./options";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "deadline",
  seed: 9,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 75_000,
  pageChars: 15_000,
});
/** One page per call and one call at a time, so the calls line up with the fake clock below. */
const options: Partial<DigestJobOptions> = {
  maxPagesPerCall: 1,
  digestConcurrency: 1,
  digestCallTimeoutMs: 60_000,
  commitReserveMs: 10_000,
  minCharsPerPass: 1_000,
};

const storage = usePgliteRepository();

/** A digester whose every call uses up `costMs` of the function's (fake) remaining time. */
function timedDigester(remaining: { ms: number }, costMs: number) {
  const inner = createExtractiveDigester();
  const requests: DigestRequest[] = [];
  const digester: DigestModel = {
    id: "timed",
    async digest(request) {
      requests.push(request);
      remaining.ms -= costMs;
      return inner.digest(request);
    },
  };
  return { digester, requests };
}

let counter = 0;
function setup(digester: DigestModel, remainingTimeMs?: () => number) {
  counter++;
  const payload = {
    orgId: `deadline-org-${counter}`,
    threadId: "thread",
    rawToolChars: 1_000_000,
    turnEndedAt: at.toISOString(),
  };
  const ports: DigestJobPorts = {
    checkpoints: createInMemoryCheckpointReader(new Map([[payload.threadId, fixture.messages]])),
    store: storage.repository,
    digester,
    clock: fixedClock(at),
    ...(remainingTimeMs ? { remainingTimeMs } : {}),
  };
  return { payload, ports };
}

describe("a job that watches the function's remaining time", () => {
  it("starts no call once less than one call's timeout plus the commit reserve is left, writes what it has, and records partial out_of_time", async () => {
    const remaining = { ms: 150_000 };
    const { digester, requests } = timedDigester(remaining, 40_000);
    const { payload, ports } = setup(digester, () => remaining.ms);
    const outcome = await runDigestJob(payload, ports, options);
    // 150 s, 110 s and 70 s left: three calls fit (70 s = 60 s + 10 s); at 30 s the stage stops.
    expect(requests).toHaveLength(3);
    expect(outcome).toMatchObject({ status: "partial", reason: "out_of_time", calls: 3 });
    expect(outcome.deferred).toBeGreaterThan(0);
    const rows = await storage.repository.loadThreadDigests(payload.orgId, payload.threadId);
    expect(rows.size).toBe(outcome.digestsWritten);
    for (const request of requests) expect(rows.has(request.pages[0]?.toolCallId ?? "")).toBe(true);
    expect(await storage.repository.getPass(payload.orgId, payload.threadId)).toMatchObject({
      status: "partial",
      reason: "out_of_time",
      coveredTurnEndedAt: null,
      leaseOwner: null,
    });

    // The next delivery (or the sweep) with time to spare finishes the pass, without redoing the first calls.
    const next = timedDigester({ ms: Number.POSITIVE_INFINITY }, 0);
    const finish = await runDigestJob(
      payload,
      { ...ports, digester: next.digester, remainingTimeMs: () => 900_000 },
      options,
    );
    expect(finish).toMatchObject({ status: "done" });
    expect(finish.calls).toBeGreaterThan(0);
    expect(next.requests.map((request) => request.pages[0]?.toolCallId)).not.toContain(
      requests[0]?.pages[0]?.toolCallId,
    );
  });

  it("makes no call when the time is short from the start, and says so", async () => {
    const { digester, requests } = timedDigester({ ms: 0 }, 0);
    const { payload, ports } = setup(digester, () => 69_999);
    const outcome = await runDigestJob(payload, ports, options);
    expect(requests).toHaveLength(0);
    expect(outcome).toMatchObject({ reason: "out_of_time", calls: 0 });
    expect((await storage.repository.getPass(payload.orgId, payload.threadId))?.reason).toBe("out_of_time");
  });

  it("holds the thread's lease no longer than the function can run, plus a margin", async () => {
    const seen: (Date | null | undefined)[] = [];
    const inner = createExtractiveDigester();
    let payloadRef = { orgId: "", threadId: "" };
    const digester: DigestModel = {
      id: "lease-reader",
      async digest(request) {
        seen.push((await storage.repository.getPass(payloadRef.orgId, payloadRef.threadId))?.leaseExpiresAt);
        return inner.digest(request);
      },
    };
    const { payload, ports } = setup(digester, () => 120_000);
    payloadRef = payload;
    // The lease is timed by the database's clock (PGlite's is this process's), not the job's.
    const before = Date.now();
    await runDigestJob(payload, ports, { ...options, maxCallsPerJob: 1 });
    const after = Date.now();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.getTime()).toBeGreaterThanOrEqual(before + 180_000);
    expect(seen[0]?.getTime()).toBeLessThanOrEqual(after + 180_000);
  });

  it("aborts a call that outlives digestCallTimeoutMs: its pages wait for the next pass", async () => {
    const inner = createExtractiveDigester();
    let calls = 0;
    const digester: DigestModel = {
      id: "hanging-first",
      async digest(request, callOptions = {}) {
        calls++;
        if (calls > 1) return inner.digest(request);
        const signal = callOptions.signal;
        if (!signal) throw new Error("no abort signal given");
        await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
        throw new DigestModelError("digest call aborted", { reason: "aborted" });
      },
    };
    const { payload, ports } = setup(digester);
    const outcome = await runDigestJob(payload, ports, { ...options, digestCallTimeoutMs: 50 });
    expect(outcome).toMatchObject({ status: "partial", reason: "digest_failed", failedCalls: 1 });
    expect(outcome.calls).toBeGreaterThan(1);
  });
});
