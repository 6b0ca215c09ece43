import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestModel, DigestRow, DigestStore } from "../ports";
import type { DigestJobOptions } from "./options";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const day = "2026-11-30";
const fixture = buildHeavyThread({
  name: "concurrency",
  seed: 5,
  titles: ["Ground Lease", "Credit Agreement", "Guaranty"],
  documentChars: 75_000,
  pageChars: 15_000,
});
/** One page per call, so the thread makes many calls. */
const onePagePerCall: Partial<DigestJobOptions> = { maxPagesPerCall: 1, maxCallsPerJob: 50 };

const storage = usePgliteRepository();

/** Event-loop turns each call waits, by call index: calls end in a different order than they start. */
const TURNS = [40, 1, 25, 3, 60, 2, 15, 0, 33, 7, 50, 5, 20, 9];

/** A digester that ends its calls out of order, counts calls in flight, and bills `costUsd` per call. */
function outOfOrderDigester(options: { estimateUsd?: number; costUsd?: number; failAt?: number } = {}) {
  const inner = createExtractiveDigester();
  const log = { started: [] as string[], finished: [] as string[], inFlight: 0, maxInFlight: 0 };
  const digester: DigestModel = {
    id: "out-of-order",
    ...(options.estimateUsd ? { estimateCostUsd: () => options.estimateUsd as number } : {}),
    async digest(request) {
      const index = log.started.length;
      const id = request.pages[0]?.toolCallId ?? "";
      log.started.push(id);
      log.inFlight++;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      for (let turn = 0; turn < (TURNS[index % TURNS.length] ?? 0); turn++) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      log.inFlight--;
      log.finished.push(id);
      if (index === options.failAt) throw new Error("a bug in the digester");
      return { ...(await inner.digest(request)), model: "out-of-order", costUsd: options.costUsd ?? 0 };
    },
  };
  return { digester, log };
}

let counter = 0;
async function run(digester: DigestModel, options: Partial<DigestJobOptions>) {
  counter++;
  const orgId = `concurrency-org-${counter}`;
  const threadId = "thread";
  const upserted: DigestRow[][] = [];
  const store: DigestStore = {
    ...storage.repository,
    commitLeasedPass: (org, thread, commit) => {
      upserted.push([...commit.rows]);
      return storage.repository.commitLeasedPass(org, thread, commit);
    },
  };
  const ports = {
    checkpoints: createInMemoryCheckpointReader(new Map([[threadId, fixture.messages]])),
    store,
    digester,
    clock: fixedClock(at),
  };
  const payload = { orgId, threadId, rawToolChars: 1_000_000, turnEndedAt: at.toISOString() };
  const outcome = runDigestJob(payload, ports, { ...onePagePerCall, ...options });
  return { outcome, orgId, upserted };
}

describe("the digest stage under bounded concurrency", () => {
  it("keeps at most digestConcurrency calls in flight and writes the same rows in the same order as one at a time", async () => {
    const concurrent = outOfOrderDigester();
    const four = await run(concurrent.digester, { digestConcurrency: 4 });
    const sequential = outOfOrderDigester();
    const one = await run(sequential.digester, { digestConcurrency: 1 });
    expect((await four.outcome).status).toBe("done");
    expect((await one.outcome).status).toBe("done");

    expect(concurrent.log.started.length).toBeGreaterThan(8);
    expect(concurrent.log.maxInFlight).toBe(4);
    expect(sequential.log.maxInFlight).toBe(1);
    // The calls ended out of order, yet the rows come out in request order, byte for byte.
    expect(concurrent.log.finished).not.toEqual(concurrent.log.started);
    const written = (upserted: DigestRow[][]) =>
      upserted.flat().map((row) => [row.toolCallId, row.digest, row.contentSha256]);
    expect(written(four.upserted)).toEqual(written(one.upserted));
    expect(
      four.upserted
        .flat()
        .filter((row) => row.kind === "digest")
        .map((row) => row.toolCallId),
    ).toEqual(concurrent.log.started);
  });

  it("admits exactly maxCallsPerJob calls under concurrency and defers the rest", async () => {
    const { digester, log } = outOfOrderDigester();
    const { outcome } = await run(digester, { digestConcurrency: 4, maxCallsPerJob: 5 });
    expect(await outcome).toMatchObject({ status: "partial", reason: "call_cap", calls: 5 });
    expect(log.started).toHaveLength(5);
    expect((await outcome).deferred).toBeGreaterThan(0);
  });

  it("never overspends the budget and stops at the same call whatever the concurrency", async () => {
    // Each call reserves 0.10 and costs 0.04: three reservations fit 0.35, a fourth does not.
    const budget = { dailyBudgetUsd: 0.35 };
    const concurrent = outOfOrderDigester({ estimateUsd: 0.1, costUsd: 0.04 });
    const four = await run(concurrent.digester, { ...budget, digestConcurrency: 4 });
    const sequential = outOfOrderDigester({ estimateUsd: 0.1, costUsd: 0.04 });
    const one = await run(sequential.digester, { ...budget, digestConcurrency: 1 });
    for (const [job, log] of [
      [four, concurrent.log],
      [one, sequential.log],
    ] as const) {
      expect(await job.outcome).toMatchObject({ status: "partial", reason: "budget", calls: 3 });
      expect(log.started).toHaveLength(3);
      expect(await storage.repository.getSpend(job.orgId, day)).toEqual({ reservedUsd: 0, spentUsd: 0.12 });
    }
    expect(sequential.log.started).toEqual(concurrent.log.started);
  });

  it("on an unexpected error, starts nothing more, waits for the calls in flight, settles every reservation, then throws", async () => {
    const { digester, log } = outOfOrderDigester({ estimateUsd: 0.1, costUsd: 0.04, failAt: 1 });
    const { outcome, orgId } = await run(digester, { digestConcurrency: 3 });
    await expect(outcome).rejects.toThrow(/a bug in the digester/);
    expect(log.inFlight).toBe(0);
    // Call 1 ends first (1 turn); by then calls 0-2 had started, and at most one more slot opened.
    expect(log.started.length).toBeLessThanOrEqual(4);
    const spend = await storage.repository.getSpend(orgId, day);
    expect(spend.reservedUsd).toBe(0);
    expect(spend.spentUsd).toBeCloseTo(0.04 * (log.started.length - 1), 9);
  });

  it("refuses a digestConcurrency that is not a positive integer", async () => {
    const { digester } = outOfOrderDigester();
    await expect((await run(digester, { digestConcurrency: 0 })).outcome).rejects.toThrow(
      /digestConcurrency/,
    );
  });
});
