import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { runJob } from "./run-job";

const thread = buildHeavyThread({
  name: "timed",
  seed: 3,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 80_000,
  pageChars: 16_000,
});
const rawToolChars = thread.messages.reduce(
  (sum, message) => sum + (message.role === "tool" ? String(message.content).length : 0),
  0,
);

function job(remainingTimeMs?: () => number) {
  const ports = {
    checkpoints: createInMemoryCheckpointReader(new Map([["t", thread.messages]])),
    store: createInMemoryDigestStore(),
    digester: createExtractiveDigester(),
    clock: fixedClock(new Date("2026-11-30T10:00:00Z")),
  };
  const payload = { orgId: "acme", threadId: "t", rawToolChars, turnEndedAt: "2026-11-30T10:00:00.000Z" };
  return runJob(payload, ports, {
    options: { triggerChars: 0, minCharsPerPass: 0 },
    ...(remainingTimeMs ? { remainingTimeMs } : {}),
  });
}

describe("runJob", () => {
  it("hands the invocation's remaining time to the job, which starts no call it could not finish", async () => {
    const unhurried = await job(() => 900_000);
    expect(unhurried.calls).toBeGreaterThan(0);
    const late = await job(() => 1_000);
    expect(late.calls).toBe(0);
    expect(late.reason).toBe("out_of_time");
  });
});
