import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  digestPickArbitrary,
  digestsFor,
  renderAiSdk,
  renderAnthropic,
  renderOpenAI,
  threadSpecArbitrary,
} from "#test/assembler/fixtures/provider-thread";
import { type AssembleOptions, assembleModelView } from "../assemble";
import { contentText } from "../content";
import type { DigestMap, Message } from "../types";
import { aiSdkToNeutral, assembleAiSdkPrompt } from "./ai-sdk/prompt-adapter";
import { answerAiSdkReadOriginal, readOriginalToolSet } from "./ai-sdk/read-original-tool";
import {
  type AnthropicMessageLike,
  anthropicToNeutral,
  assembleAnthropicView,
} from "./anthropic/anthropic-adapter";
import { answerAnthropicReadOriginal, anthropicReadOriginalTool } from "./anthropic/read-original-tool";
import { assembleOpenAIView, type OpenAIMessageLike, openAIToNeutral } from "./openai/openai-adapter";
import { answerOpenAIReadOriginal, openAIReadOriginalTool } from "./openai/read-original-tool";

const NUM_RUNS = process.env.CI ? 300 : 100;

const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc.record({
  recencyKeepExchanges: fc.nat({ max: 3 }),
  historyBudgetChars: fc.oneof(fc.constant(undefined), fc.integer({ min: 200, max: 8_000 })),
  inline: fc.boolean(),
  disabled: fc.constant(false),
  readOriginal: fc.constant(true),
});

/** Every string anywhere in a value (message texts, block texts, tool outputs). */
function stringsIn(value: unknown, into: string[] = []): string[] {
  if (typeof value === "string") into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, into);
  else if (value !== null && typeof value === "object")
    for (const item of Object.values(value)) stringsIn(item, into);
  return into;
}

const HANDLE = /read_original\(tool_call_id=("(?:[^"\\]|\\.)*")\)/g;

/** The tool call ids the `read_original` handles of a view name. */
function handleIds(view: unknown): Set<string> {
  const ids = new Set<string>();
  for (const text of stringsIn(view))
    for (const match of text.matchAll(HANDLE)) ids.add(JSON.parse(match[1] as string));
  return ids;
}

/** The raw text of every tool result of a neutral thread, by call id. */
function rawResults(neutral: readonly Message[]): Map<string, string> {
  const raw = new Map<string, string>();
  for (const message of neutral) {
    if (message.role === "tool" && message.toolCallId !== "" && !raw.has(message.toolCallId))
      raw.set(message.toolCallId, contentText(message.content));
  }
  return raw;
}

interface Format {
  name: string;
  render: typeof renderAnthropic;
  toNeutral: (thread: never[]) => Message[];
  assemble: (thread: never[], digests: DigestMap, options: AssembleOptions) => { messages: unknown[] };
  /** The text the format's handler answers a call for `id` with. */
  answer: (thread: never[], id: string) => { text: string; error: boolean };
}

const FORMATS: Format[] = [
  {
    name: "Anthropic",
    render: renderAnthropic,
    toNeutral: (thread) => anthropicToNeutral(thread as AnthropicMessageLike[]),
    assemble: (thread, digests, options) =>
      assembleAnthropicView(thread as AnthropicMessageLike[], digests, {
        ...options,
        cacheBreakpoints: false,
      }),
    answer: (thread, id) => {
      const block = answerAnthropicReadOriginal({ id: "rr", input: { tool_call_id: id } }, thread);
      return { text: block.content, error: block.is_error === true };
    },
  },
  {
    name: "OpenAI",
    render: renderOpenAI,
    toNeutral: (thread) => openAIToNeutral(thread as OpenAIMessageLike[]),
    assemble: (thread, digests, options) =>
      assembleOpenAIView(thread as OpenAIMessageLike[], digests, options),
    answer: (thread, id) => {
      const message = answerOpenAIReadOriginal(
        { id: "rr", function: { arguments: JSON.stringify({ tool_call_id: id }) } },
        thread,
      );
      return { text: message.content, error: message.content.startsWith("[read_original error: ") };
    },
  },
  {
    name: "AI SDK",
    render: renderAiSdk,
    toNeutral: (thread) => aiSdkToNeutral(thread),
    assemble: (thread, digests, options) => assembleAiSdkPrompt(thread, digests, options),
    answer: (thread, id) => {
      const answer = answerAiSdkReadOriginal(thread, { tool_call_id: id });
      return { text: answer.text, error: !answer.ok };
    },
  },
];

describe("read_original handles through every provider format", () => {
  for (const format of FORMATS) {
    it(`${format.name}: the view keeps every handle the neutral view names; each names a result of the thread and returns it exactly`, () => {
      let followed = 0;
      fc.assert(
        fc.property(threadSpecArbitrary, digestPickArbitrary, optionsArbitrary, (spec, pick, options) => {
          const thread = format.render(spec) as never[];
          const neutral = format.toNeutral(thread);
          const digests = digestsFor(neutral, pick);
          const view = format.assemble(thread, digests, options);
          const neutralView = assembleModelView(neutral, digests, options);
          const ids = handleIds(view.messages);
          for (const id of handleIds(neutralView.messages)) expect(ids.has(id), id).toBe(true);
          const raw = rawResults(neutral);
          for (const id of ids) {
            expect(raw.has(id), `handle names ${id}, which has no result in the thread`).toBe(true);
            const answer = format.answer(thread, id);
            expect(answer.error).toBe(false);
            expect(answer.text.slice(answer.text.indexOf("\n") + 1)).toBe(raw.get(id));
            followed++;
          }
        }),
        { numRuns: NUM_RUNS },
      );
      expect(followed).toBeGreaterThan(NUM_RUNS);
    });

    it(`${format.name}: an unknown or empty id answers a tool error`, () => {
      const thread = format.render([{ kind: "user", text: "Start.", blocks: false }]) as never[];
      for (const id of ["call_404", ""]) expect(format.answer(thread, id).error).toBe(true);
    });
  }
});

describe("the provider tool definitions", () => {
  it("give the name, description and input schema in each provider's tools format", () => {
    expect(anthropicReadOriginalTool()).toMatchObject({
      name: "read_original",
      input_schema: { type: "object", required: ["tool_call_id"] },
    });
    expect(openAIReadOriginalTool({ toolName: "raw_result" })).toMatchObject({
      type: "function",
      function: { name: "raw_result", parameters: { type: "object", required: ["tool_call_id"] } },
    });
    expect(Object.keys(readOriginalToolSet())).toEqual(["read_original"]);
  });

  it("OpenAI: arguments that are not JSON answer a tool error", () => {
    const answer = answerOpenAIReadOriginal({ id: "rr", function: { arguments: "{tool_call_id" } }, []);
    expect(answer).toEqual({
      role: "tool",
      tool_call_id: "rr",
      content: "[read_original error: the arguments are not JSON]",
    });
  });
});
