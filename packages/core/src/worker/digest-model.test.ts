import { InvalidOptionError } from "@context-cleaner/assembler";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type FakeChatCompletionsApi,
  startFakeChatCompletionsApi,
} from "#test/core/fakes/openai-chat-completions";
import type { DigestRequest, Metric } from "../ports";
import { digesterFor } from "./digest-model";

const page = "GROUND LEASE\nBase rent is $1,250,000 per year with a 2.5% escalator.";
const request: DigestRequest = {
  toolName: "read_document",
  sourceLabel: "file_id=cd_9f2",
  pages: [{ toolCallId: "c1", content: page, provenanceArgs: { file_id: "cd_9f2" }, reread: "r1" }],
};

let fake: FakeChatCompletionsApi;
beforeAll(async () => {
  fake = await startFakeChatCompletionsApi();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.mode = "ok";
});

function metricsSink() {
  const recorded: Metric[] = [];
  return { recorded, metrics: { record: (metric: Metric) => recorded.push(metric), flush: () => {} } };
}

const settings = () => ({
  OPENAI_COMPATIBLE_BASE_URL: fake.baseURL,
  OPENAI_COMPATIBLE_API_KEY: "sk-test",
  OPENAI_COMPATIBLE_MODEL: "gpt-4.1-mini",
  OPENAI_COMPATIBLE_PRICES: "0.4,1.6",
});

describe("the digest function's model digester", () => {
  it("openai-compatible: digests through the configured server, priced, with a counted fallback", async () => {
    const { recorded, metrics } = metricsSink();
    const digester = await digesterFor({
      digestModel: "openai-compatible",
      openAiCompatible: settings(),
      metrics,
    });
    expect(digester.id).toBe("openai-compatible:gpt-4.1-mini+fallback:extractive");
    expect(digester.estimateCostUsd?.(request)).toBeGreaterThan(0);
    const result = await digester.digest(request);
    expect(fake.requests).toHaveLength(1);
    expect(result.model).toBe("gpt-4.1-mini");
    expect(result.fallback).toBeUndefined();
    fake.mode = "refusal";
    const rescued = await digester.digest(request);
    expect(rescued.fallback).toEqual({ reason: "refusal", pages: 1 });
    expect(recorded).toEqual([
      { name: "digest_fallback", value: 1, unit: "Count", dimensions: { reason: "refusal" } },
    ]);
  });

  it("openai-compatible without its key (the secret's empty placeholder) fails naming the setting", async () => {
    const { metrics } = metricsSink();
    const missing = digesterFor({
      digestModel: "openai-compatible",
      openAiCompatible: { ...settings(), OPENAI_COMPATIBLE_API_KEY: "" },
      anthropicApiKey: "sk-ant",
      metrics,
    });
    await expect(missing).rejects.toThrow(InvalidOptionError);
    await expect(missing).rejects.toThrow(/OPENAI_COMPATIBLE_API_KEY/);
  });

  it("anthropic: the Anthropic digester with its fallback, or extractive only without a key", async () => {
    const { metrics } = metricsSink();
    expect((await digesterFor({ anthropicApiKey: "sk-ant", metrics })).id).toBe(
      "anthropic:claude-haiku-5-5+fallback:extractive",
    );
    expect((await digesterFor({ digestModel: "anthropic", openAiCompatible: settings(), metrics })).id).toBe(
      "extractive",
    );
    expect(fake.requests).toHaveLength(0);
  });
});
