import { describe, expect, it } from "vitest";
import { fixedClock } from "../clock";
import type { Metric } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { createJobContext } from "./job-context";
import { resolveJobOptions } from "./options";
import { reportFallbacks } from "./report-fallbacks";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };

function setup(fallbacks: number, digestedPages: number, fallbackAlarmRate = 0.5) {
  const metrics: Metric[] = [];
  const warnings: { message: string; attributes?: Readonly<Record<string, unknown>> }[] = [];
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store: createInMemoryDigestStore(),
      digester: { id: "primary", digest: async () => Promise.reject(new Error("unused")) },
      clock: fixedClock(at),
      metrics: { record: (metric) => metrics.push(metric) },
      logger: {
        warn: (message, attributes) => warnings.push({ message, ...(attributes ? { attributes } : {}) }),
      },
    },
    resolveJobOptions({ fallbackAlarmRate }),
  );
  context.stats.fallbacks = fallbacks;
  context.stats.digestedPages = digestedPages;
  reportFallbacks(context);
  return { metrics, warnings };
}

describe("reportFallbacks", () => {
  it("reports nothing for a pass that digested no page", () => {
    expect(setup(0, 0)).toEqual({ metrics: [], warnings: [] });
  });

  it("counts the fallback pages and their share of the pages digested", () => {
    const { metrics, warnings } = setup(1, 4);
    expect(metrics).toEqual([
      { name: "DigestFallbacks", value: 1, unit: "Count" },
      { name: "FallbackRate", value: 0.25, unit: "None" },
    ]);
    expect(warnings).toEqual([]);
  });

  it("warns at a rate above the alarm threshold, naming the thread, the digester and the figures", () => {
    const { warnings } = setup(3, 4);
    expect(warnings).toEqual([
      {
        message: expect.stringContaining("fallback rate above the alarm threshold"),
        attributes: {
          orgId: "acme",
          threadId: "thread-1",
          digester: "primary",
          fallbackRate: 0.75,
          fallbacks: 3,
          digestedPages: 4,
          fallbackAlarmRate: 0.5,
        },
      },
    ]);
  });

  it("does not warn at exactly the threshold", () => {
    expect(setup(2, 4).warnings).toEqual([]);
  });
});
