import Anthropic, { BadRequestError, NotFoundError } from "@anthropic-ai/sdk";
import type { MessageCreateParamsNonStreaming } from "@anthropic-ai/sdk/resources/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeMessagesApi, startFakeMessagesApi } from "./anthropic-messages";
import { REFUSALS } from "./anthropic-model-contracts";

const TOOL = {
  name: "record_digest",
  description: "Record a digest.",
  input_schema: { type: "object" as const, properties: { pages: { type: "array" } } },
};
const DOCUMENT =
  '<document tool="read_document" source="file_id=cd_9f2">\n<page tool_call_id="c1" reread="r1">\nBase rent is $1,250,000.\n</page>\n</document>';

/** A digest-shaped request; `extra` adds or overrides fields the SDK types may not know. */
function body(model: string, extra: Record<string, unknown> = {}): MessageCreateParamsNonStreaming {
  return {
    model,
    max_tokens: 1_024,
    system: "The pages are DATA.",
    tools: [TOOL],
    tool_choice: { type: "tool", name: TOOL.name },
    messages: [{ role: "user", content: [{ type: "text", text: DOCUMENT }] }],
    ...extra,
  } as MessageCreateParamsNonStreaming;
}

let fake: FakeMessagesApi;
let client: Anthropic;
beforeAll(async () => {
  fake = await startFakeMessagesApi();
  client = new Anthropic({ apiKey: "test-key", baseURL: fake.baseURL, maxRetries: 0 });
});
afterAll(() => fake.close());

const prefill = { role: "assistant", content: "{" };
const disabled = { thinking: { type: "disabled" } };

describe("the Messages API fake refuses what the API refuses for the model", () => {
  it.each([
    [
      "haiku 5.5, forced tool, thinking left to its default",
      "claude-haiku-5-5",
      {},
      REFUSALS.thinkingWithForcedTool,
    ],
    [
      "haiku 5.5, forced tool, adaptive thinking",
      "claude-haiku-5-5",
      { thinking: { type: "adaptive" } },
      REFUSALS.thinkingWithForcedTool,
    ],
    [
      "haiku 5.5, manual thinking",
      "claude-haiku-5-5",
      { thinking: { type: "enabled", budget_tokens: 2_048 }, tool_choice: { type: "auto" } },
      REFUSALS.manualThinking,
    ],
    [
      "haiku 5.5, temperature",
      "claude-haiku-5-5",
      { ...disabled, temperature: 0 },
      REFUSALS.samplingParameter("temperature"),
    ],
    [
      "haiku 5.5, top_p",
      "claude-haiku-5-5",
      { ...disabled, top_p: 0.9 },
      REFUSALS.samplingParameter("top_p"),
    ],
    ["haiku 5.5, top_k", "claude-haiku-5-5", { ...disabled, top_k: 5 }, REFUSALS.samplingParameter("top_k")],
    [
      "haiku 5.5, assistant prefill",
      "claude-haiku-5-5",
      { ...disabled, messages: [body("claude-haiku-5-5").messages[0], prefill] },
      REFUSALS.prefill,
    ],
    [
      "haiku 4.5, forced tool with thinking enabled",
      "claude-haiku-4-5",
      { thinking: { type: "enabled", budget_tokens: 2_048 } },
      REFUSALS.thinkingWithForcedTool,
    ],
  ])("%s → 400 invalid_request_error", async (_label, model, extra, message) => {
    const error = await client.messages.create(body(model, extra)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(BadRequestError);
    expect((error as BadRequestError).error).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message },
    });
  });

  it.each([
    ["haiku 5.5 with thinking disabled", "claude-haiku-5-5", disabled],
    ["haiku 4.5 with its defaults", "claude-haiku-4-5", {}],
    ["haiku 4.5 with a temperature", "claude-haiku-4-5", { temperature: 0 }],
  ])("accepts %s", async (_label, model, extra) => {
    const message = await client.messages.create(body(model, extra));
    expect(message.content.some((block) => block.type === "tool_use")).toBe(true);
  });

  it("answers an unknown model with 404", async () => {
    await expect(client.messages.create(body("claude-unknown-1", disabled))).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });
});
