import { describe, expect, it } from "vitest";
import { DigestModelError } from "../errors";
import type { DigestModel, DigestRequest, DigestResult, Metric, PageDigest } from "../ports";
import { createExtractiveDigester } from "./extractive-digester";
import { withFallback } from "./with-fallback";

const request: DigestRequest = {
  toolName: "read_document",
  sourceLabel: "file_id=d1",
  pages: [
    {
      toolCallId: "a",
      content: "Base rent is $1,250,000 per year under this lease.",
      provenanceArgs: {},
      reread: "r",
    },
    {
      toolCallId: "b",
      content: "Tenant shall maintain insurance of $5,000,000 at all times.",
      provenanceArgs: {},
      reread: "r",
    },
  ],
};

/** A recording fake model answering with fixed pages, or throwing. */
function fakeModel(answer: PageDigest[] | Error): DigestModel & { calls: DigestRequest[] } {
  const calls: DigestRequest[] = [];
  return {
    id: "fake",
    calls,
    async digest(input: DigestRequest): Promise<DigestResult> {
      calls.push(input);
      if (answer instanceof Error) throw answer;
      const usage = {
        inputTokens: 10,
        outputTokens: 5,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
      };
      return { pages: answer, model: "fake-model", usage, costUsd: 0.01 };
    },
  };
}

describe("withFallback", () => {
  it("passes a valid primary result through untouched", async () => {
    const pages = [
      { toolCallId: "a", bullets: { amounts: ["rent $1,250,000"] } },
      { toolCallId: "b", bullets: { obligations: ["insurance $5,000,000"] } },
    ];
    const metrics: Metric[] = [];
    const result = await withFallback(fakeModel(pages), createExtractiveDigester(), {
      metrics: { record: (metric) => metrics.push(metric) },
    }).digest(request);
    expect(result.pages).toEqual(pages);
    expect(result.fallback).toBeUndefined();
    expect(metrics).toEqual([]);
  });

  it("re-digests only the pages whose bullets were all invented or missing", async () => {
    const primary = fakeModel([
      { toolCallId: "a", bullets: { amounts: ["rent $1,250,000"] } },
      { toolCallId: "b", bullets: { amounts: ["insurance $9,000,000"] } },
    ]);
    const fallback = createExtractiveDigester();
    const result = await withFallback(primary, fallback).digest(request);
    expect(result.fallback).toEqual({ reason: "contract", pages: 1 });
    expect(result.pages[0]).toEqual({ toolCallId: "a", bullets: { amounts: ["rent $1,250,000"] } });
    expect(result.pages[1]?.model).toBe("extractive");
    expect(result.costUsd).toBe(0.01);
  });

  it("does not fall back when the caller aborted", async () => {
    const aborted = new DigestModelError("aborted", { reason: "aborted" });
    const model = withFallback(fakeModel(aborted), createExtractiveDigester());
    await expect(model.digest(request)).rejects.toBe(aborted);
  });

  it("re-throws an error that is not a digest failure (a bug) instead of hiding it behind the fallback", async () => {
    const metrics: Metric[] = [];
    const model = withFallback(fakeModel(new TypeError("bug")), createExtractiveDigester(), {
      metrics: { record: (metric) => metrics.push(metric) },
    });
    await expect(model.digest(request)).rejects.toThrow(TypeError);
    expect(metrics).toEqual([]);
  });

  it("adds what a billed but broken primary answer cost to the fallback's cost", async () => {
    const model = withFallback(
      fakeModel(new DigestModelError("bad tool input", { reason: "contract", costUsd: 0.0123 })),
      createExtractiveDigester(),
    );
    const result = await model.digest(request);
    expect(result.fallback).toEqual({ reason: "contract", pages: 2 });
    expect(result.costUsd).toBeCloseTo(0.0123, 6);
  });
});
