import {
  generateText,
  type LanguageModelMiddleware,
  type ModelMessage,
  stepCountIs,
  wrapLanguageModel,
} from "ai";
import { describe, expect, it } from "vitest";
import {
  earlierTurn,
  page,
  pageDigests,
  readDocument,
  readerModel,
} from "#test/assembler/fixtures/ai-sdk-reader-model";
import { fixtureDigest } from "#test/assembler/fixtures/provider-thread";
import type { AssemblyReport } from "../../assemble";
import { DIGEST_HEADER } from "../../contract/stubs";
import { type PolicyMode, validateOrgPolicy } from "../../org-policy";
import type { DigestMap } from "../../types";
import { contextCleanerMiddleware } from "./middleware";
import type { AiSdkMessageLike } from "./prompt-adapter";

type Prompt = Parameters<NonNullable<LanguageModelMiddleware["transformParams"]>>[0]["params"]["prompt"];
type Part = Record<string, unknown> & { type: string };

function resultValue(prompt: Prompt, toolCallId: string): unknown {
  for (const message of prompt) {
    if (message.role !== "tool") continue;
    for (const part of message.content) {
      if (part.type === "tool-result" && part.toolCallId === toolCallId)
        return (part.output as { value: unknown }).value;
    }
  }
  return undefined;
}

function isCondensed(message: Prompt[number]): boolean {
  return (
    message.role === "tool" &&
    message.content.some(
      (part) =>
        part.type === "tool-result" &&
        String((part.output as { value?: unknown }).value).startsWith(DIGEST_HEADER),
    )
  );
}

function pairingProblems(prompt: readonly AiSdkMessageLike[]): string[] {
  const problems: string[] = [];
  prompt.forEach((message, index) => {
    if (message.role !== "assistant" || typeof message.content === "string") return;
    const calls = (message.content as Part[])
      .filter((part) => part.type === "tool-call")
      .map((part) => part.toolCallId);
    if (calls.length === 0) return;
    const next = prompt[index + 1];
    const results =
      next?.role === "tool" && Array.isArray(next.content)
        ? (next.content as Part[])
            .filter((part) => part.type === "tool-result")
            .map((part) => part.toolCallId)
        : [];
    if (results.join() !== calls.join()) problems.push(`prompt[${index}] asked [${calls}], got [${results}]`);
  });
  return problems;
}

describe("contextCleanerMiddleware with an org policy loaded with the digests", () => {
  async function run(mode: PolicyMode | undefined) {
    const messages: ModelMessage[] = [
      ...earlierTurn("lease_445", 5),
      { role: "user", content: "Read memo_9 pages 2" },
    ];
    const reports: AssemblyReport[] = [];
    const provider = readerModel();
    const digests = pageDigests("lease_445", 5);
    const model = wrapLanguageModel({
      model: provider,
      middleware: contextCleanerMiddleware({
        digests: async () =>
          mode === undefined ? digests : { digests, policy: validateOrgPolicy({ mode }) },
        options: { disabled: false, onReport: (report) => reports.push(report) },
      }),
    });
    await generateText({ model, messages, tools: { read_document: readDocument }, stopWhen: stepCountIs(5) });
    return { prompts: provider.doGenerateCalls.map(({ prompt }) => JSON.stringify(prompt)), reports };
  }

  it("shadow sends the provider exactly what off sends, and the callback gets the would-be savings", async () => {
    const off = await run("off");
    const shadow = await run("shadow");
    const on = await run(undefined);
    expect(shadow.prompts).toEqual(off.prompts);
    expect(on.prompts[0]).not.toBe(off.prompts[0]);
    expect(off.reports.every((report) => report.mode === "off" && report.shadow === undefined)).toBe(true);
    expect(shadow.reports.map((report) => report.mode)).toEqual(shadow.reports.map(() => "shadow"));
    expect(shadow.reports[0]?.shadow?.substitutions).toBe(on.reports[0]?.substitutions);
    expect(shadow.reports[0]?.shadow?.wouldSaveChars).toBe(
      (off.reports[0]?.assembledChars ?? 0) - (on.reports[0]?.assembledChars ?? 0),
    );
    expect(shadow.reports[0]?.shadow?.wouldSaveChars).toBeGreaterThan(0);
  });
});

describe("contextCleanerMiddleware with generateText", () => {
  it("sends the provider condensed earlier pages on every step; the caller's messages stay untouched", async () => {
    const messages: ModelMessage[] = [
      ...earlierTurn("lease_445", 5),
      ...earlierTurn("nda_3", 4),
      { role: "user", content: "Read memo_9 pages 2" },
    ];
    const snapshot = structuredClone(messages);
    const digests = pageDigests("lease_445", 5);
    let loads = 0;
    const before: Prompt[] = [];
    const recorder: LanguageModelMiddleware = {
      specificationVersion: "v4",
      transformParams: async ({ params }) => {
        before.push(params.prompt);
        return params;
      },
    };
    const provider = readerModel();
    const model = wrapLanguageModel({
      model: provider,
      middleware: [
        recorder,
        contextCleanerMiddleware({
          digests: async () => {
            loads++;
            return digests;
          },
          options: { disabled: false },
        }),
      ],
    });

    const result = await generateText({
      model,
      system: "You are a careful legal assistant.",
      messages,
      tools: { read_document: readDocument },
      stopWhen: stepCountIs(5),
    });

    expect(result.text).toBe("Done.");
    expect(provider.doGenerateCalls).toHaveLength(3);
    expect(loads).toBe(1);
    provider.doGenerateCalls.forEach(({ prompt }, step) => {
      for (let index = 0; index < 5; index++) {
        expect(resultValue(prompt, `lease_445_p${index}`)).toBe(fixtureDigest(`lease_445_p${index}`));
      }
      expect(resultValue(prompt, "nda_3_p3")).toBe(page("nda_3", 3));
      expect(pairingProblems(prompt)).toEqual([]);
      // Untouched messages are the very objects the SDK built; rebuilt ones keep their other parts.
      const original = before[step] as Prompt;
      expect(prompt).toHaveLength(original.length);
      prompt.forEach((message, index) => {
        const source = original[index];
        if (isCondensed(message)) {
          expect(message).not.toBe(source);
          expect(message.content[0]).toMatchObject({ type: "tool-result", toolName: "read_document" });
        } else {
          expect(message).toBe(source);
        }
      });
    });
    // The active turn's reads reach the provider raw.
    expect(resultValue(provider.doGenerateCalls[2]?.prompt ?? [], "memo_9_p1")).toBe(page("memo_9", 1));
    expect(messages).toEqual(snapshot);
  });

  it("passes each step's report, with its ledger, to onReport: the first step is the turn's start", async () => {
    const messages: ModelMessage[] = [
      ...earlierTurn("lease_445", 5),
      { role: "user", content: "Read memo_9 pages 2" },
    ];
    const reports: AssemblyReport[] = [];
    const model = wrapLanguageModel({
      model: readerModel(),
      middleware: contextCleanerMiddleware({
        digests: pageDigests("lease_445", 5),
        lastCall: { at: 0, condensedIds: [] },
        now: () => new Date(1_000),
        options: { disabled: false, onReport: (report) => reports.push(report) },
      }),
    });
    await generateText({ model, messages, tools: { read_document: readDocument }, stopWhen: stepCountIs(5) });
    expect(reports.length).toBeGreaterThan(1);
    expect(reports[0]?.ledger.batch).toMatchObject({ status: "applied", reason: "pays" });
    expect(reports[0]?.ledger.condensedIds.length).toBeGreaterThan(0);
    expect(reports[0]?.ledger.condensedIds.every((id) => id.startsWith("lease_445_p"))).toBe(true);
    for (const report of reports.slice(1)) {
      expect(report.ledger.batch.status).not.toBe("applied");
      expect(report.ledger.condensedIds).toEqual(reports[0]?.ledger.condensedIds);
    }
  });

  it("passes the prompt through untouched (same objects) with no digests and nothing to clean", async () => {
    const provider = readerModel();
    const before: Prompt[] = [];
    const model = wrapLanguageModel({
      model: provider,
      middleware: [
        {
          specificationVersion: "v4",
          transformParams: async ({ params }) => {
            before.push(params.prompt);
            return params;
          },
        },
        contextCleanerMiddleware({ options: { disabled: false } }),
      ],
    });
    await generateText({
      model,
      prompt: "Read memo_9 pages 2",
      tools: { read_document: readDocument },
      stopWhen: stepCountIs(5),
    });
    expect(provider.doGenerateCalls.length).toBeGreaterThan(1);
    expect(provider.doGenerateCalls).toHaveLength(before.length);
    provider.doGenerateCalls.forEach(({ prompt }, step) => {
      expect(prompt).toHaveLength(before[step]?.length ?? -1);
      prompt.forEach((message, index) => {
        expect(message).toBe(before[step]?.[index]);
      });
    });
  });

  it("reports a failing digest loader and answers without digests", async () => {
    const errors: unknown[] = [];
    const provider = readerModel();
    const model = wrapLanguageModel({
      model: provider,
      middleware: contextCleanerMiddleware({
        digests: async () => {
          throw new Error("database down");
        },
        onLoadError: (error) => errors.push(error),
        // A backoff of this test's own: the process's would skip the loaders of the tests after it.
        loadBackoff: {},
        options: { disabled: false },
      }),
    });
    const result = await generateText({
      model,
      prompt: "Read memo_9 pages 2",
      tools: { read_document: readDocument },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe("Done.");
    expect(errors).toHaveLength(1);
  });

  it("never fails a step for digests that are not a Map or an onReport that throws; it reports them", async () => {
    for (const broken of ["not-a-map", "report-throws"] as const) {
      const errors: unknown[] = [];
      const model = wrapLanguageModel({
        model: readerModel(),
        middleware: contextCleanerMiddleware({
          digests: async () => (broken === "not-a-map" ? ({} as unknown as DigestMap) : new Map()),
          onLoadError: (error) => errors.push(error),
          onError: (error) => errors.push(error),
          options: {
            disabled: false,
            ...(broken === "report-throws"
              ? {
                  onReport: () => {
                    throw new Error("metrics sink down");
                  },
                }
              : {}),
          },
        }),
      });
      const result = await generateText({
        model,
        prompt: "Read memo_9 pages 2",
        tools: { read_document: readDocument },
        stopWhen: stepCountIs(5),
      });
      expect(result.text).toBe("Done.");
      expect(errors.length).toBeGreaterThan(0);
    }
  });

  it("skips a loader that failed for the turns that follow, says so once naming the cause, and loads once it works", async () => {
    const loadBackoff = {};
    let nowMs = Date.parse("2026-12-01T10:00:00Z");
    let calls = 0;
    let down = true;
    const errors: unknown[] = [];
    // One middleware per turn, as the AI SDK's users make them, sharing the backoff's settings.
    const turnAt = async (seconds: number) => {
      nowMs += seconds * 1000;
      const model = wrapLanguageModel({
        model: readerModel(),
        middleware: contextCleanerMiddleware({
          digests: async () => {
            calls++;
            if (down) {
              throw new Error("database unreachable", {
                cause: Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), {
                  code: "ECONNREFUSED",
                }),
              });
            }
            return new Map() as DigestMap;
          },
          loadBackoff,
          now: () => new Date(nowMs),
          onLoadError: (error) => errors.push(error),
          options: { disabled: false },
        }),
      });
      const result = await generateText({
        model,
        prompt: "Read memo_9 pages 2",
        tools: { read_document: readDocument },
        stopWhen: stepCountIs(5),
      });
      expect(result.text).toBe("Done.");
    };
    await turnAt(0);
    await turnAt(10);
    await turnAt(10);
    expect(calls).toBe(1);
    expect(errors).toHaveLength(1);
    expect((errors[0] as Error).message).toMatch(
      /^loading the thread's digests failed \(connect ECONNREFUSED 127\.0\.0\.1:5432\): it is skipped for 30 s/,
    );
    down = false;
    await turnAt(11);
    await turnAt(1);
    expect(calls).toBe(3);
    expect(errors).toHaveLength(1);
  });
});
