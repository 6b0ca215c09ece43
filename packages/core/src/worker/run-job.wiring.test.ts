import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { DigestJobPorts } from "../job/job-context";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { runJob } from "./run-job";

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

function ports(): DigestJobPorts {
  return {
    checkpoints: createInMemoryCheckpointReader(new Map([["thread", fixture.messages]])),
    store: createInMemoryDigestStore(),
    digester: createExtractiveDigester(),
    clock: fixedClock(at),
  };
}

describe("runJob", () => {
  it("runs the job with its options", async () => {
    expect(await runJob(payload(at), ports(), { options: { disabled: true } })).toMatchObject({
      status: "skipped",
      reason: "disabled",
    });
    expect(await runJob(payload(at), ports(), { options: { minCharsPerPass: 1 } })).toMatchObject({
      status: "done",
    });
  });

  it("gives the job the invocation's remaining time", async () => {
    const outcome = await runJob(payload(at), ports(), {
      options: { minCharsPerPass: 1 },
      remainingTimeMs: () => 1,
    });
    expect(outcome).toMatchObject({ reason: "out_of_time", calls: 0 });
  });

  it("coalesces on the queue's time when given: a pass that started after it covers a later turn end", async () => {
    const shared = ports();
    expect(await runJob(payload(at), shared, { options: { minCharsPerPass: 1 } })).toMatchObject({
      status: "done",
    });
    const later = new Date(at.getTime() + 1_000);
    const queuedBefore = new Date(at.getTime() - 1_000);
    expect(await runJob(payload(later), shared, { queuedAt: queuedBefore })).toMatchObject({
      status: "skipped",
      reason: "nothing_new",
    });
    expect(await runJob(payload(later), shared)).not.toMatchObject({ reason: "nothing_new" });
  });
});
