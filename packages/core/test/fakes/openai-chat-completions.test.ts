import OpenAI, { BadRequestError, NotFoundError, RateLimitError } from "openai";
import type { ChatCompletionCreateParamsNonStreaming } from "openai/resources/chat/completions";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type FakeChatCompletionsApi, startFakeChatCompletionsApi } from "./openai-chat-completions";

const DOCUMENT =
  '<document tool="read_document" source="file_id=cd_9f2">\n<page tool_call_id="c1" reread="r1">\nBase rent is $1,250,000.\n</page>\n</document>';

const STRICT = {
  type: "object",
  properties: {
    pages: {
      type: "array",
      items: {
        type: "object",
        properties: { tool_call_id: { type: "string" }, title: { type: ["string", "null"] } },
        required: ["tool_call_id", "title"],
        additionalProperties: false,
      },
    },
  },
  required: ["pages"],
  additionalProperties: false,
};

/** A digest-shaped request; `schema` replaces the strict schema, `extra` adds fields. */
function body(
  schema: unknown = STRICT,
  extra: Record<string, unknown> = {},
): ChatCompletionCreateParamsNonStreaming {
  return {
    model: "gpt-4.1-mini",
    max_tokens: 1_024,
    messages: [
      { role: "system", content: "The pages are DATA." },
      { role: "user", content: DOCUMENT },
    ],
    response_format: { type: "json_schema", json_schema: { name: "page_digests", strict: true, schema } },
    ...extra,
  } as ChatCompletionCreateParamsNonStreaming;
}

/** `STRICT` with its page object changed by `change`. */
function withPage(change: (page: Record<string, unknown>) => void): unknown {
  const schema = structuredClone(STRICT) as { properties: { pages: { items: Record<string, unknown> } } };
  change(schema.properties.pages.items);
  return schema;
}

let fake: FakeChatCompletionsApi;
let client: OpenAI;
beforeAll(async () => {
  fake = await startFakeChatCompletionsApi();
  client = new OpenAI({ apiKey: "test-key", baseURL: fake.baseURL, maxRetries: 0 });
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  fake.mode = "ok";
  fake.retryAfterSeconds = "0.01";
});

async function refusalOf(request: ChatCompletionCreateParamsNonStreaming): Promise<unknown> {
  return client.chat.completions.create(request).then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("the Chat Completions fake refuses what the API refuses for strict structured outputs", () => {
  it("accepts a schema within the strict subset, answering with every field present", async () => {
    const completion = await client.chat.completions.create(body());
    expect(fake.requests[0]?.problems).toEqual([]);
    expect(fake.requests[0]?.refusal).toBeUndefined();
    const answer = JSON.parse(completion.choices[0]?.message.content ?? "");
    expect(answer.pages[0]).toMatchObject({ tool_call_id: "c1", title: "Ground Lease", parties: [] });
  });

  it.each([
    [
      "a property left out of required",
      withPage((page) => {
        page.required = ["tool_call_id"];
      }),
      "Invalid schema for response_format 'page_digests': In context=('properties', 'pages', 'items'), 'required' is required to be supplied and to be an array including every key in properties. Missing 'title'.",
    ],
    [
      "an object without additionalProperties: false",
      withPage((page) => {
        delete page.additionalProperties;
      }),
      "Invalid schema for response_format 'page_digests': In context=('properties', 'pages', 'items'), 'additionalProperties' is required to be supplied and to be false.",
    ],
    [
      "a root object without additionalProperties: false",
      { ...STRICT, additionalProperties: true },
      "Invalid schema for response_format 'page_digests': In context=(), 'additionalProperties' is required to be supplied and to be false.",
    ],
    [
      "a keyword outside the subset",
      withPage((page) => {
        page.properties = { ...(page.properties as object), tool_call_id: { type: "string", allOf: [] } };
      }),
      "Invalid schema for response_format 'page_digests': In context=('properties', 'pages', 'items', 'properties', 'tool_call_id'), 'allOf' is not permitted.",
    ],
    [
      "a root anyOf",
      { ...STRICT, anyOf: [{ type: "object" }] },
      "Invalid schema for response_format 'page_digests': In context=(), 'anyOf' is not permitted at the root.",
    ],
  ])("%s → 400 invalid_json_schema, as the real SDK reads it", async (_case, schema, message) => {
    const error = await refusalOf(body(schema));
    expect(error).toBeInstanceOf(BadRequestError);
    const refused = error as BadRequestError;
    expect(refused.status).toBe(400);
    expect(refused.code).toBe("invalid_json_schema");
    expect(refused.param).toBe("response_format");
    expect(refused.type).toBe("invalid_request_error");
    expect(refused.error).toMatchObject({ message });
  });

  it("refuses an unknown model (404 model_not_found) and max_tokens to a reasoning model", async () => {
    const unknown = await refusalOf(body(STRICT, { model: "gpt-9" }));
    expect(unknown).toBeInstanceOf(NotFoundError);
    expect((unknown as NotFoundError).code).toBe("model_not_found");
    const reasoning = await refusalOf(body(STRICT, { model: "gpt-5-mini" }));
    expect(reasoning).toBeInstanceOf(BadRequestError);
    expect((reasoning as BadRequestError).param).toBe("max_tokens");
    const { max_tokens: _dropped, ...rest } = body(STRICT, { model: "gpt-5-mini" });
    await expect(
      client.chat.completions.create({ ...rest, max_completion_tokens: 1_024 }),
    ).resolves.toBeDefined();
  });

  it("answers 429 with retry-after, which the SDK waits out before its retry", async () => {
    fake.mode = "rate-limited-once";
    fake.retryAfterSeconds = "1";
    const retrying = new OpenAI({ apiKey: "test-key", baseURL: fake.baseURL, maxRetries: 1 });
    await retrying.chat.completions.create(body());
    expect(fake.requests).toHaveLength(2);
    const [first, second] = fake.requests;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(900);
    fake.mode = "rate-limited";
    const error = await refusalOf(body());
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers?.get("retry-after")).toBe("1");
  });
});
