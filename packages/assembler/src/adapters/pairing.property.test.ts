import type Anthropic from "@anthropic-ai/sdk";
import type { BaseMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  anthropicPairingProblems,
  programmaticRunProblems,
} from "#test/assembler/fixtures/anthropic-pairing";
import {
  aiSdkEvents,
  anthropicEvents,
  langChainEvents,
  openAIEvents,
  type PairingEvent,
  pairingProblems,
  pairingSpecArbitrary,
  renderAiSdkPairing,
  renderAnthropicPairing,
  renderLangChainPairing,
} from "#test/assembler/fixtures/pairing-thread";
import { digestPickArbitrary, digestsFor, renderOpenAI } from "#test/assembler/fixtures/provider-thread";
import { type AssembleOptions, assembleModelView } from "../assemble";
import type { DigestMap, Message } from "../types";
import { aiSdkToNeutral, assembleAiSdkPrompt } from "./ai-sdk/prompt-adapter";
import { anthropicToNeutral, assembleAnthropicView } from "./anthropic/anthropic-adapter";
import { assembleLangChainView, fromLangChain } from "./langchain/langchain-adapter";
import { assembleOpenAIView, type OpenAIMessageLike, openAIToNeutral } from "./openai/openai-adapter";

const NUM_RUNS = process.env.CI ? 300 : 100;

/** A tight budget: the backstop cuts most threads, some down to the wall. */
const optionsArbitrary: fc.Arbitrary<AssembleOptions> = fc.record({
  recencyKeepExchanges: fc.nat({ max: 2 }),
  historyBudgetChars: fc.integer({ min: 150, max: 3_000 }),
  snippetChars: fc.constantFrom(20, 300),
  inline: fc.boolean(),
});

function neutralEvents(message: Message): PairingEvent[] {
  if (message.role === "tool") return [{ kind: "result", id: message.toolCallId }];
  const calls: PairingEvent[] =
    message.role === "assistant"
      ? (message.toolCalls ?? []).map((call) => ({ kind: "call", id: call.id }))
      : [];
  return [...calls, ...anthropicEvents(message)];
}

interface Adapter<M> {
  name: string;
  render: (spec: Parameters<typeof renderAnthropicPairing>[0]) => M[];
  neutral: (thread: M[]) => Message[];
  assemble: (
    thread: M[],
    digests: DigestMap,
    options: AssembleOptions,
  ) => { messages: readonly M[]; fired: boolean };
  events: (message: M) => PairingEvent[];
  /** What else the format itself checks. */
  extra?: (view: readonly M[], thread: readonly M[]) => string[];
}

const adapters = [
  {
    name: "neutral",
    render: (spec) => anthropicToNeutral(renderAnthropicPairing(spec)),
    neutral: (thread) => thread,
    assemble: (thread, digests, options) => {
      const { messages, report } = assembleModelView(thread, digests, options);
      return { messages, fired: report.compaction.fired };
    },
    events: neutralEvents,
  } satisfies Adapter<Message>,
  {
    name: "Anthropic",
    render: renderAnthropicPairing,
    neutral: anthropicToNeutral,
    assemble: (thread, digests, options) => {
      const { messages, report } = assembleAnthropicView(thread, digests, options);
      return { messages, fired: report.compaction.fired };
    },
    events: anthropicEvents,
    extra: (view, thread) => [...anthropicPairingProblems(view), ...programmaticRunProblems(thread, view)],
  } satisfies Adapter<Anthropic.MessageParam>,
  {
    name: "OpenAI",
    render: (spec) => renderOpenAI(spec.steps) as unknown as OpenAIMessageLike[],
    neutral: openAIToNeutral,
    assemble: (thread, digests, options) => {
      const { messages, report } = assembleOpenAIView(thread, digests, options);
      return { messages, fired: report.compaction.fired };
    },
    events: (message) => openAIEvents(message as unknown as Record<string, unknown>),
  } satisfies Adapter<OpenAIMessageLike>,
  {
    name: "AI SDK",
    render: renderAiSdkPairing,
    neutral: aiSdkToNeutral,
    assemble: (thread, digests, options) => {
      const { messages, report } = assembleAiSdkPrompt(thread, digests, options);
      return { messages, fired: report.compaction.fired };
    },
    events: aiSdkEvents,
  } satisfies Adapter<ReturnType<typeof renderAiSdkPairing>[number]>,
  {
    name: "LangChain",
    render: renderLangChainPairing,
    neutral: fromLangChain,
    assemble: (thread, digests, options) => {
      const { messages, report } = assembleLangChainView<BaseMessage>(thread, digests, options);
      return { messages, fired: report.compaction.fired };
    },
    events: langChainEvents,
  } satisfies Adapter<BaseMessage>,
];

type Block = Record<string, unknown>;

const roleOf = (message: unknown): string => {
  const record = message as { role?: unknown; getType?: () => string };
  if (typeof record.getType === "function") return record.getType() === "ai" ? "assistant" : record.getType();
  return String(record.role);
};

describe("pairing under a tight budget, through every adapter", () => {
  for (const adapter of adapters as Adapter<unknown>[]) {
    it(`${adapter.name}: results follow their calls and never outnumber them; server tools, approvals and thinking stay with their callers`, () => {
      let fired = 0;
      fc.assert(
        fc.property(pairingSpecArbitrary, digestPickArbitrary, optionsArbitrary, (spec, pick, options) => {
          const thread = adapter.render(spec);
          const digests = digestsFor(adapter.neutral(thread), pick);
          const view = adapter.assemble(thread, digests, options);
          if (view.fired) fired++;
          expect(pairingProblems(view.messages.map(adapter.events))).toEqual([]);
          expect(adapter.extra?.(view.messages, thread) ?? []).toEqual([]);
          // Assistant messages come back as the objects passed in, but for a cache breakpoint
          // and, after the view's first change, their thinking left out; the latest one of a
          // tool loop under way always comes back as it came.
          const neutral = adapter.neutral(thread);
          const latestNeutral = neutral.findLastIndex((message) => message.role === "assistant");
          const inLoop =
            latestNeutral >= 0 && !neutral.slice(latestNeutral).some((message) => message.role === "user");
          const latest = thread.findLast((message) => roleOf(message) === "assistant");
          if (latest !== undefined && inLoop) expect(view.messages).toContain(latest);
          const blocksOf = (content: unknown) =>
            typeof content === "string" ? [{ type: "text", text: content }] : ((content ?? []) as Block[]);
          const isThinking = (block: Block) =>
            String(block.type).endsWith("thinking") || String(block.type).endsWith("reasoning");
          const unmarked = (blocks: Block[]) => blocks.map(({ cache_control: _mark, ...block }) => block);
          const inputs = new Set(thread.map((input) => JSON.stringify(blocksOf((input as Block).content))));
          const visibleInputs = new Set(
            thread.map((input) =>
              JSON.stringify(blocksOf((input as Block).content).filter((block) => !isThinking(block))),
            ),
          );
          for (const message of view.messages) {
            if (roleOf(message) !== "assistant" || thread.includes(message)) continue;
            const blocks = blocksOf((message as Block).content);
            expect(blocks.filter((block) => block.cache_control !== undefined).length).toBeLessThanOrEqual(1);
            if (blocks.some(isThinking)) {
              // Only a cache breakpoint, on one block, tells this copy from the input message.
              expect(blocks.filter((block) => block.cache_control !== undefined)).toHaveLength(1);
              expect(inputs.has(JSON.stringify(unmarked(blocks)))).toBe(true);
            } else expect(visibleInputs.has(JSON.stringify(unmarked(blocks)))).toBe(true);
          }
        }),
        { numRuns: NUM_RUNS },
      );
      // The budget must bite for the property to mean anything.
      expect(fired).toBeGreaterThan(NUM_RUNS / 3);
    });
  }
});
