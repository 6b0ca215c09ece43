import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { withFallback } from "../digesters/with-fallback";
import { DigestModelError } from "../errors";
import type { DigestModel, Metric } from "../ports";
import type { DigestJobOptions } from "./options";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const fixture = buildHeavyThread({
  name: "fallback-rate",
  seed: 13,
  titles: ["Ground Lease", "Credit Agreement"],
  documentChars: 60_000,
  pageChars: 15_000,
});
const options: Partial<DigestJobOptions> = { maxPagesPerCall: 1, digestConcurrency: 1 };

const storage = usePgliteRepository();

/** A primary digester that fails the calls `fails(index)` picks, as a rejected request would. */
function flakyPrimary(fails: (index: number) => boolean): DigestModel {
  const inner = createExtractiveDigester();
  let index = 0;
  return {
    id: "primary",
    async digest(request) {
      if (fails(index++)) {
        throw new DigestModelError("digest call rejected (400)", { reason: "client_error", status: 400 });
      }
      return { ...(await inner.digest(request)), model: "primary" };
    },
  };
}

let counter = 0;
async function run(primary: DigestModel, extra: Partial<DigestJobOptions> = {}) {
  counter++;
  const metrics: Metric[] = [];
  const warnings: { message: string; attributes?: Readonly<Record<string, unknown>> }[] = [];
  const payload = {
    orgId: `fallback-org-${counter}`,
    threadId: "thread",
    rawToolChars: 1_000_000,
    turnEndedAt: at.toISOString(),
  };
  const outcome = await runDigestJob(
    payload,
    {
      checkpoints: createInMemoryCheckpointReader(new Map([[payload.threadId, fixture.messages]])),
      store: storage.repository,
      digester: withFallback(primary, createExtractiveDigester()),
      clock: fixedClock(at),
      metrics: { record: (metric) => metrics.push(metric) },
      logger: {
        warn: (message, attributes) => warnings.push({ message, ...(attributes ? { attributes } : {}) }),
      },
    },
    { ...options, ...extra },
  );
  const metric = (name: string) => metrics.filter((entry) => entry.name === name);
  return { outcome, metric, warnings, payload };
}

describe("the fallback-rate alarm", () => {
  it("reports DigestFallbacks and FallbackRate 1 and warns when every page fell back", async () => {
    const { outcome, metric, warnings, payload } = await run(flakyPrimary(() => true));
    expect(outcome.status).toBe("done");
    expect(outcome.digestedPages).toBeGreaterThan(1);
    expect(outcome.fallbacks).toBe(outcome.digestedPages);
    expect(metric("DigestFallbacks")).toEqual([
      { name: "DigestFallbacks", value: outcome.fallbacks, unit: "Count" },
    ]);
    expect(metric("FallbackRate")).toEqual([{ name: "FallbackRate", value: 1, unit: "None" }]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toMatch(/fallback rate above the alarm threshold/);
    expect(warnings[0]?.attributes).toEqual({
      orgId: payload.orgId,
      threadId: payload.threadId,
      digester: "primary+fallback:extractive",
      fallbackRate: 1,
      fallbacks: outcome.fallbacks,
      digestedPages: outcome.digestedPages,
      fallbackAlarmRate: 0.5,
    });
  });

  it("reports a healthy pass at rate 0 without a warning", async () => {
    const { outcome, metric, warnings } = await run(flakyPrimary(() => false));
    expect(outcome.fallbacks).toBe(0);
    expect(metric("DigestFallbacks")[0]?.value).toBe(0);
    expect(metric("FallbackRate")[0]?.value).toBe(0);
    expect(warnings).toEqual([]);
  });

  it("warns only above fallbackAlarmRate", async () => {
    const firstFails = () => flakyPrimary((index) => index === 0);
    const one = await run(firstFails());
    const rate = one.metric("FallbackRate")[0]?.value ?? 0;
    expect(rate).toBe(1 / one.outcome.digestedPages);
    expect(rate).toBeLessThanOrEqual(0.5);
    expect(one.warnings).toEqual([]);
    expect((await run(firstFails(), { fallbackAlarmRate: rate })).warnings).toEqual([]);
    expect((await run(firstFails(), { fallbackAlarmRate: rate - 0.01 })).warnings).toHaveLength(1);
  });
});
