import { createToolPolicy } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { buildHeavyThread } from "#test/core/fixtures/heavy-thread";
import { classifyThread } from "../classify/classify-thread";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { DigestModelError } from "../errors";
import type { DigestModel, DigestRequest, DigestResult } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import { digestedRow } from "./build-rows";
import { type DigestCall, runDigestCall } from "./digest-call";
import { toRequest } from "./group-requests";
import { createJobContext } from "./job-context";
import { type DigestJobOptions, resolveJobOptions } from "./options";

const at = new Date("2026-11-30T10:00:00.000Z");
const job = { orgId: "acme", threadId: "thread-1", rawToolChars: 200_000, turnEndedAt: at.toISOString() };
const fixture = buildHeavyThread({
  name: "digest-call",
  seed: 4,
  titles: ["Ground Lease"],
  documentChars: 60_000,
  pageChars: 15_000,
});
const group = classifyThread(fixture.messages, createToolPolicy(), {
  recencyKeepExchanges: 1,
}).candidates.slice(0, 3);
const request = toRequest(group);
const usage = { inputTokens: 3_000, outputTokens: 600, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };

function setup(digest: DigestModel["digest"], options: Partial<DigestJobOptions> = {}) {
  const context = createJobContext(
    job,
    {
      checkpoints: { readThread: async () => [] },
      store: createInMemoryDigestStore(),
      digester: { id: "test", digest },
      clock: fixedClock(at),
    },
    resolveJobOptions(options),
  );
  const call: DigestCall = { group, request, reservedUsd: 0.5, costUsd: 0, rows: [] };
  return { context, call };
}

/** The extractive digester's answer to `request`, billed `costUsd`, with `usage`. */
async function answer(
  digestRequest: DigestRequest,
  extra: Partial<DigestResult> = {},
): Promise<DigestResult> {
  const result = await createExtractiveDigester().digest(digestRequest);
  return { ...result, model: "m-1", usage, costUsd: 0.3, ...extra };
}

describe("runDigestCall", () => {
  it("the fixture gives a group of three pages, each digestible to something shorter", () => {
    expect(group).toHaveLength(3);
  });

  it("writes one row per page, the usage and cost shared between them, and counts the pages digested", async () => {
    const { context, call } = setup((digestRequest) => answer(digestRequest));
    await runDigestCall(context, call);
    expect(call.costUsd).toBe(0.3);
    expect(call.error).toBeUndefined();
    expect(call.rows.map((row) => row.toolCallId)).toEqual(
      group.map((candidate) => candidate.message.toolCallId),
    );
    for (const row of call.rows) {
      expect(row).toMatchObject({ model: "m-1", inputTokens: 1_000, outputTokens: 200 });
      expect(row.costUsd).toBeCloseTo(0.1, 12);
    }
    expect(context.stats).toMatchObject({ digestedPages: 3, fallbacks: 0, failedCalls: 0, deferred: 0 });
  });

  it("renders each row from its own page's source and the job's caps", async () => {
    const options = { digestCharCap: 700, digestCharCapMax: 900 };
    const { context, call } = setup((digestRequest) => answer(digestRequest), options);
    await runDigestCall(context, call);
    const result = await answer(request);
    const expected = group.map(
      (candidate, position) =>
        digestedRow(job.threadId, candidate, {
          page: result.pages[position] as DigestResult["pages"][number],
          result,
          source: request.pages[position]?.content as string,
          pagesInCall: 3,
          caps: options,
        }).row,
    );
    expect(call.rows).toEqual(expected);
  });

  it("matches pages by tool call id when the model answers out of order", async () => {
    const { context, call } = setup(async (digestRequest) => {
      const result = await answer(digestRequest);
      return { ...result, pages: [...result.pages].reverse() };
    });
    await runDigestCall(context, call);
    const inOrder = setup((digestRequest) => answer(digestRequest));
    await runDigestCall(inOrder.context, inOrder.call);
    expect(call.rows).toEqual(inOrder.call.rows);
  });

  it("matches pages by position when the model's ids do not match, and writes no row for a missing page", async () => {
    const { context, call } = setup(async (digestRequest) => {
      const result = await answer(digestRequest);
      return {
        ...result,
        pages: result.pages.slice(0, 2).map((page) => ({ ...page, toolCallId: "unknown" })),
      };
    });
    await runDigestCall(context, call);
    expect(call.rows.map((row) => row.toolCallId)).toEqual(
      group.slice(0, 2).map((candidate) => candidate.message.toolCallId),
    );
    expect(context.stats.digestedPages).toBe(3);
  });

  it("counts the pages the fallback digester made", async () => {
    const { context, call } = setup((digestRequest) =>
      answer(digestRequest, { fallback: { reason: "primary down", pages: 2 } }),
    );
    await runDigestCall(context, call);
    expect(context.stats).toMatchObject({ digestedPages: 3, fallbacks: 2 });
  });

  it("counts bullets the caps dropped", async () => {
    const { context, call } = setup(
      async (digestRequest) => {
        const result = await answer(digestRequest);
        const many = Array.from({ length: 40 }, (_, index) => `point ${index} ${"x".repeat(60)}`);
        return { ...result, pages: result.pages.map((page) => ({ ...page, bullets: { points: many } })) };
      },
      { digestCharCap: 400, digestCharCapMax: 400 },
    );
    await runDigestCall(context, call);
    expect(context.stats.droppedBullets).toBeGreaterThan(0);
  });

  it("defers the pages of a failed call, counts it, and keeps what the broken response was billed", async () => {
    const { context, call } = setup(async () => {
      throw new DigestModelError("broken", { reason: "contract", costUsd: 0.2 });
    });
    await runDigestCall(context, call);
    expect(call).toMatchObject({ costUsd: 0.2, rows: [] });
    expect(call.error).toBeUndefined();
    expect(context.stats).toMatchObject({ failedCalls: 1, deferred: 3, digestedPages: 0 });
  });

  it("keeps any other error on the call and counts nothing", async () => {
    const bug = new Error("a bug");
    const { context, call } = setup(async () => {
      throw bug;
    });
    await runDigestCall(context, call);
    expect(call.error).toBe(bug);
    expect(call).toMatchObject({ costUsd: 0, rows: [] });
    expect(context.stats).toMatchObject({ failedCalls: 0, deferred: 0, digestedPages: 0 });
  });

  it("aborts the call after digestCallTimeoutMs", async () => {
    let signal: AbortSignal | undefined;
    const { context, call } = setup(
      (_request, options) => {
        signal = options?.signal;
        return new Promise((_resolve, reject) => {
          options?.signal?.addEventListener("abort", () =>
            reject(new DigestModelError("aborted", { reason: "aborted" })),
          );
        });
      },
      { digestCallTimeoutMs: 30 },
    );
    const started = Date.now();
    await runDigestCall(context, call);
    expect(signal?.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(context.stats.failedCalls).toBe(1);
  });
});
