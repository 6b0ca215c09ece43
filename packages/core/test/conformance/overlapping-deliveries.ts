import { setTimeout as sleep } from "node:timers/promises";
import type { DigestRepository } from "@context-cleaner/db";
import { describe, expect, it } from "vitest";
import { createInMemoryCheckpointReader } from "../../src/checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../../src/clock";
import { createExtractiveDigester } from "../../src/digesters/extractive-digester";
import { runDigestJob } from "../../src/job/run-digest-job";
import type { DigestModel, DigestRequest } from "../../src/ports";
import { buildHeavyThread } from "../fixtures/heavy-thread";

const COST_PER_CALL = 0.05;
const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "overlap",
  seed: 7,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 60_000,
  pageChars: 15_000,
});
const rawToolChars = fixture.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? String(message.content).length : 0),
  0,
);

/** A paid digester that records its calls; each call yields to the event loop for a while, as a network call does. */
function paidRecordingDigester(): DigestModel & { requests: DigestRequest[] } {
  const inner = createExtractiveDigester();
  const requests: DigestRequest[] = [];
  return {
    id: "paid-recording",
    requests,
    estimateCostUsd: () => COST_PER_CALL,
    async digest(request) {
      requests.push(request);
      await sleep(20);
      return { ...(await inner.digest(request)), model: "paid-recording", costUsd: COST_PER_CALL };
    },
  };
}

let counter = 0;

/**
 * Overlapping deliveries of one event pay once: the same job run three times at once
 * against one store. Run against every engine (PGlite in the unit tier, a Postgres server
 * in the services tier), since the claim's atomicity is the database's.
 */
export function describeOverlappingDeliveries(engine: string, repository: () => DigestRepository): void {
  describe(`overlapping deliveries on ${engine}`, () => {
    it("three concurrent runs of one payload make one run's paid calls, and release the lease", async () => {
      counter++;
      const orgId = `overlap-org-${counter}-${Date.now()}`;
      const threadId = `overlap-thread-${counter}`;
      const digester = paidRecordingDigester();
      const ports = {
        checkpoints: createInMemoryCheckpointReader(new Map([[threadId, fixture.messages]])),
        store: repository(),
        digester,
        clock: fixedClock(at),
      };
      const payload = { orgId, threadId, rawToolChars, turnEndedAt: at.toISOString() };
      const outcomes = await Promise.all(
        [1, 2, 3].map(() => runDigestJob(payload, ports, { maxPagesPerCall: 1 })),
      );

      const paying = outcomes.filter((outcome) => outcome.calls > 0);
      expect(paying).toHaveLength(1);
      expect(paying[0]?.status).toBe("done");
      const payingCalls = paying[0]?.calls ?? 0;
      expect(payingCalls).toBeGreaterThan(1);
      expect(digester.requests).toHaveLength(payingCalls);
      for (const outcome of outcomes.filter((entry) => entry.calls === 0)) {
        expect(outcome.status).toBe("skipped");
        expect(["claimed", "nothing_new"]).toContain(outcome.reason);
      }
      const spend = await repository().getSpend(orgId, "2026-11-30");
      expect(spend).toEqual({ reservedUsd: 0, spentUsd: Number((payingCalls * COST_PER_CALL).toFixed(6)) });
      expect(await repository().getPass(orgId, threadId)).toMatchObject({
        status: "done",
        coveredTurnEndedAt: at,
        leaseOwner: null,
        leaseExpiresAt: null,
      });
    });
  });
}
