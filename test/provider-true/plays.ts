/**
 * Multi-turn agent plays against the provider fakes, in each integration's message format:
 * a script of turns (a user request, tool-calling steps, an answer), every assistant
 * message carrying thinking (or a reasoning item), played call by call as a runtime does.
 * Each call assembles the view from the runtime's thread with the thread's cache context
 * (the previous call's `condensedIds` and `sent`), sends it to the fake, and appends the
 * fake's answer, signed against that very request, to the thread. Between turns a worker
 * writes digest rows for the document pages before the latest user message.
 */

import type { AssembleOptions, DigestMap, Message } from "@context-cleaner/assembler";
import { aiSdkToNeutral, assembleAiSdkPrompt } from "@context-cleaner/assembler/ai-sdk";
import { anthropicToNeutral, assembleAnthropicView } from "@context-cleaner/assembler/anthropic";
import { contentSha256, DIGEST_HEADER } from "@context-cleaner/assembler/internal";
import { assembleLangChainView, fromLangChain } from "@context-cleaner/assembler/langchain";
import { assembleOpenAIView, openAIToNeutral } from "@context-cleaner/assembler/openai";
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  AnthropicThinkingBinder,
  appendToolResult,
  blockBinding,
  type CheckOutcome,
  OpenAIReasoningBinder,
} from "@context-cleaner/demo/provider-fakes";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";

export interface ScriptCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result: string;
  error: boolean;
}

export type ScriptStep = { kind: "calls"; calls: ScriptCall[] } | { kind: "answer"; text: string };

export interface ScriptTurn {
  request: string;
  steps: ScriptStep[];
  /** The user came back after the cache lifetime. */
  cold: boolean;
  /** The runtime restarted before this turn: no cache history survives. */
  restart: boolean;
}

export interface PlaySettings {
  historyBudgetChars: number;
  recencyKeepExchanges: number;
  inline: boolean;
  /** Every assistant message carries two thinking blocks, the second redacted. */
  redacted: boolean;
  /**
   * The requests set Anthropic's `drop_block` (with its beta header) and the assembly lets a
   * watermark batch cost the latest thinking (`watermark.dropLatestThinking`).
   */
  dropBlock: boolean;
}

function page(file: string, offset: number, chars: number): string {
  const head = `Document ${file} at offset ${offset}: rent $${(offset + 1) * 1_000}; §${offset % 9}.2 assignment. `;
  return (head + "Clause text continues. ".repeat(Math.ceil(chars / 23))).slice(0, chars);
}

const callArbitrary = (id: string): fc.Arbitrary<ScriptCall> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc
        .record({
          file: fc.constantFrom("lease_1", "lease_2", "nda_3"),
          page: fc.nat({ max: 3 }),
          chars: fc.integer({ min: 800, max: 6_000 }),
          error: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
        })
        .map(({ file, page: at, chars, error }) => ({
          id,
          name: "read_document",
          input: { file_id: file, offset: at * 4_000 },
          result: error ? "Error: backend timeout\ntrace line" : page(file, at * 4_000, chars),
          error,
        })),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom("assignment", "rent", "term").map((q) => ({
        id,
        name: "search",
        input: { q },
        result: `id: lease_1\nid: nda_3 (${q})`,
        error: false,
      })),
    },
  );

/** Scripts of 2 to 5 turns, each of 1 to 4 tool-calling steps then an answer. */
export const scriptArbitrary: fc.Arbitrary<ScriptTurn[]> = fc
  .array(
    fc.record({
      steps: fc.array(fc.integer({ min: 1, max: 2 }), { minLength: 1, maxLength: 4 }),
      cold: fc.boolean(),
      restart: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
      seed: fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
    }),
    { minLength: 2, maxLength: 5 },
  )
  .chain((turns) => {
    let counter = 0;
    const turnArbitraries = turns.map((turn, turnIndex) =>
      fc
        .tuple(
          ...turn.steps.map((calls) =>
            fc.tuple(...Array.from({ length: calls }, () => callArbitrary(`call_${++counter}`))),
          ),
        )
        .map(
          (steps): ScriptTurn => ({
            request: `Request ${turnIndex + 1}: review the documents.`,
            steps: [
              ...steps.map((calls): ScriptStep => ({ kind: "calls", calls })),
              { kind: "answer", text: `Answer ${turnIndex + 1}.` },
            ],
            cold: turn.cold,
            restart: turnIndex > 0 && turn.restart,
          }),
        ),
    );
    return fc.tuple(...turnArbitraries);
  });

export const settingsArbitrary: fc.Arbitrary<PlaySettings> = fc.record({
  historyBudgetChars: fc.oneof(fc.constant(320_000), fc.integer({ min: 6_000, max: 40_000 })),
  recencyKeepExchanges: fc.integer({ min: 0, max: 3 }),
  inline: fc.boolean(),
  redacted: fc.boolean(),
  dropBlock: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
});

/** The digest rows a worker writes between turns: one per document page before the latest user message. */
export function workerDigests(neutral: readonly Message[]): DigestMap {
  const rows = new Map<string, { digest: string; contentSha256: string; digestChars: number }>();
  let latestUser = neutral.length;
  for (let index = neutral.length - 1; index >= 0; index--) {
    if ((neutral[index] as Message).role === "user") {
      latestUser = index;
      break;
    }
  }
  for (const message of neutral.slice(0, latestUser)) {
    if (message.role !== "tool" || message.toolName !== "read_document" || message.status === "error")
      continue;
    if (typeof message.content !== "string" || message.content.length < 1_000) continue;
    const digest = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - page of ${message.toolCallId}`;
    rows.set(message.toolCallId, {
      digest,
      contentSha256: contentSha256(message.content),
      digestChars: digest.length,
    });
  }
  return rows;
}

/** One integration's message format, with how its views reach the Anthropic Messages API. */
interface AnthropicFormat<M> {
  user(text: string): M;
  /** The assistant message for a signed response. */
  assistant(content: readonly AnthropicBlock[]): M;
  results(calls: readonly ScriptCall[]): M[];
  neutral(thread: readonly M[]): Message[];
  view(
    thread: readonly M[],
    digests: DigestMap,
    options: AssembleOptions,
  ): { messages: M[]; report: { ledger: { condensedIds: string[]; sent: string[] } } };
  /** The messages of the request the integration sends for a view. */
  request(view: readonly M[]): AnthropicMessage[];
}

function toolUse(call: ScriptCall): AnthropicBlock {
  return { type: "tool_use", id: call.id, name: call.name, input: call.input };
}

export const ANTHROPIC_FORMAT: AnthropicFormat<AnthropicMessage> = {
  user: (text) => ({ role: "user", content: text }),
  assistant: (content) => ({ role: "assistant", content }),
  results: (calls) => [
    {
      role: "user",
      content: calls.map((call) => ({
        type: "tool_result",
        tool_use_id: call.id,
        content: call.result,
        ...(call.error ? { is_error: true } : {}),
      })),
    },
  ],
  neutral: (thread) => anthropicToNeutral(thread),
  view: (thread, digests, options) => {
    const view = assembleAnthropicView(thread, digests, options);
    return { messages: view.messages, report: view.report };
  },
  request: (view) => [...view],
};

/** LangChain messages as ChatAnthropic sends them: content blocks as they are, tool calls as tool_use, tool messages grouped. */
function langChainRequest(view: readonly BaseMessage[]): AnthropicMessage[] {
  const request: AnthropicMessage[] = [];
  for (const message of view) {
    const type = message.getType();
    const blocks: AnthropicBlock[] =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : (message.content as AnthropicBlock[]);
    if (type === "ai") {
      const calls = ((message as AIMessage).tool_calls ?? []).filter(
        (call) => !blocks.some((block) => block.type === "tool_use" && block.id === call.id),
      );
      request.push({
        role: "assistant",
        content: [
          ...blocks,
          ...calls.map((call) => ({ type: "tool_use", id: call.id, name: call.name, input: call.args })),
        ],
      });
      continue;
    }
    if (type === "tool") {
      const result: AnthropicBlock = {
        type: "tool_result",
        tool_use_id: (message as ToolMessage).tool_call_id,
        content: message.content as string,
        ...((message as ToolMessage).status === "error" ? { is_error: true } : {}),
      };
      appendToolResult(request, result);
      continue;
    }
    request.push({ role: "user", content: blocks });
  }
  return request;
}

export const LANGCHAIN_FORMAT: AnthropicFormat<BaseMessage> = {
  user: (text) => new HumanMessage(text),
  assistant: (content) =>
    new AIMessage({
      content: content.filter((block) => block.type !== "tool_use") as never,
      tool_calls: content
        .filter((block) => block.type === "tool_use")
        .map((block) => ({
          id: block.id as string,
          name: block.name as string,
          args: block.input as Record<string, unknown>,
          type: "tool_call" as const,
        })),
    }),
  results: (calls) =>
    calls.map(
      (call) =>
        new ToolMessage({
          content: call.result,
          tool_call_id: call.id,
          name: call.name,
          ...(call.error ? { status: "error" as const } : {}),
        }),
    ),
  neutral: (thread) => fromLangChain(thread),
  view: (thread, digests, options) => assembleLangChainView(thread, digests, options),
  request: langChainRequest,
};

type AiSdkPart = { type: string; [key: string]: unknown };
type AiSdkMessage = { role: string; content: string | AiSdkPart[] };

/** AI SDK prompt messages as its Anthropic provider sends them: reasoning parts as thinking blocks with their signature. */
function aiSdkRequest(view: readonly AiSdkMessage[]): AnthropicMessage[] {
  return view.map((message): AnthropicMessage => {
    const parts: AiSdkPart[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const content = parts.map((part): AnthropicBlock => {
      const anthropic = (part.providerOptions as { anthropic?: Record<string, unknown> } | undefined)
        ?.anthropic;
      switch (part.type) {
        case "reasoning":
          return anthropic?.redactedData !== undefined
            ? { type: "redacted_thinking", data: anthropic.redactedData }
            : { type: "thinking", thinking: part.text, signature: anthropic?.signature };
        case "tool-call":
          return { type: "tool_use", id: part.toolCallId, name: part.toolName, input: part.input };
        case "tool-result": {
          const output = part.output as { type: string; value: unknown };
          return {
            type: "tool_result",
            tool_use_id: part.toolCallId,
            content: String(output.value),
            ...(output.type.startsWith("error") ? { is_error: true } : {}),
          };
        }
        default:
          return part as AnthropicBlock;
      }
    });
    return { role: message.role === "tool" ? "user" : message.role, content };
  });
}

export const AI_SDK_FORMAT: AnthropicFormat<AiSdkMessage> = {
  user: (text) => ({ role: "user", content: [{ type: "text", text }] }),
  assistant: (content) => ({
    role: "assistant",
    content: content.map((block): AiSdkPart => {
      if (block.type === "thinking")
        return {
          type: "reasoning",
          text: block.thinking,
          providerOptions: { anthropic: { signature: block.signature } },
        };
      if (block.type === "redacted_thinking")
        return { type: "reasoning", text: "", providerOptions: { anthropic: { redactedData: block.data } } };
      if (block.type === "tool_use")
        return { type: "tool-call", toolCallId: block.id, toolName: block.name, input: block.input };
      return block as AiSdkPart;
    }),
  }),
  results: (calls) => [
    {
      role: "tool",
      content: calls.map((call) => ({
        type: "tool-result",
        toolCallId: call.id,
        toolName: call.name,
        output: { type: call.error ? "error-text" : "text", value: call.result },
      })),
    },
  ],
  neutral: (thread) => aiSdkToNeutral(thread),
  view: (thread, digests, options) => assembleAiSdkPrompt(thread, digests, options),
  request: aiSdkRequest,
};

export const SYSTEM = "You are a careful legal assistant.";
export const TOOLS = [
  { name: "read_document", description: "Reads a page.", input_schema: { type: "object" } },
  { name: "search", description: "Searches.", input_schema: { type: "object" } },
];

export interface PlayOutcome {
  calls: number;
  refusals: Array<{ call: number; outcome: CheckOutcome }>;
  /** Calls whose view did not send the latest assistant message as the very object the thread holds. */
  latestModified: number[];
  removedBlocks: number;
  condensed: number;
  /** Thinking blocks the provider dropped (only with `dropBlock`). */
  droppedBlocks: number;
  /** Calls whose view invalidated the latest assistant message's thinking (a watermark batch with `dropBlock`). */
  invalidatedCalls: number;
}

/** The cache context a runtime keeps per thread across calls and turns. */
class ThreadCache {
  private shown: readonly string[] | undefined;
  private sent: readonly string[] | undefined;

  context(turnStart: boolean, cold: boolean, turnIndex: number): NonNullable<AssembleOptions["cache"]> {
    return {
      turnStart,
      ...(turnIndex === 0 || this.shown === undefined ? {} : { idleMs: cold ? 3_900_000 : 60_000 }),
      ...(this.shown === undefined ? {} : { shown: this.shown }),
      ...(this.sent === undefined ? {} : { sent: this.sent }),
    };
  }

  record(ledger: { condensedIds: readonly string[]; sent: readonly string[] }): void {
    this.shown = ledger.condensedIds;
    this.sent = ledger.sent;
  }

  forget(): void {
    this.shown = undefined;
    this.sent = undefined;
  }
}

function thinkingBlocks(settings: PlaySettings, text: string): AnthropicBlock[] {
  return settings.redacted
    ? [{ type: "thinking", thinking: text }, { type: "redacted_thinking" }]
    : [{ type: "thinking", thinking: text }];
}

/** Plays a script in one integration's format against the Anthropic fake. */
export function playAnthropic<M>(
  format: AnthropicFormat<M>,
  script: readonly ScriptTurn[],
  settings: PlaySettings,
  binder = new AnthropicThinkingBinder(),
): PlayOutcome {
  const thread: M[] = [];
  const cache = new ThreadCache();
  const outcome: PlayOutcome = {
    calls: 0,
    refusals: [],
    latestModified: [],
    removedBlocks: 0,
    condensed: 0,
    droppedBlocks: 0,
    invalidatedCalls: 0,
  };
  let digests: DigestMap = new Map();
  script.forEach((turn, turnIndex) => {
    thread.push(format.user(turn.request));
    if (turn.restart) cache.forget();
    if (turnIndex > 0) digests = workerDigests(format.neutral(thread));
    turn.steps.forEach((step, stepIndex) => {
      const { messages, report } = format.view(thread, digests, {
        historyBudgetChars: settings.historyBudgetChars,
        recencyKeepExchanges: settings.recencyKeepExchanges,
        inline: settings.inline,
        cache: cache.context(stepIndex === 0, turn.cold, turnIndex),
        ...(settings.dropBlock ? { watermark: { dropLatestThinking: true } } : {}),
      });
      cache.record(report.ledger);
      outcome.calls++;
      const ledger = report.ledger as {
        thinking?: { removedBlocks: number; latestInvalidated: boolean };
        condensedIds: string[];
      };
      if (ledger.thinking?.latestInvalidated) outcome.invalidatedCalls++;
      outcome.removedBlocks = Math.max(outcome.removedBlocks, ledger.thinking?.removedBlocks ?? 0);
      outcome.condensed = Math.max(outcome.condensed, ledger.condensedIds.length);
      const latest = latestAssistantIndex(thread, format);
      if (latest >= 0 && !messages.includes(thread[latest] as M)) outcome.latestModified.push(outcome.calls);
      const request: AnthropicRequest = {
        system: SYSTEM,
        tools: TOOLS,
        messages: format.request(messages),
        thinking: blockBinding(settings.dropBlock).thinking,
      };
      const checked = binder.check(request, blockBinding(settings.dropBlock).betas);
      if (!checked.ok) outcome.refusals.push({ call: outcome.calls, outcome: checked });
      else outcome.droppedBlocks += checked.inputTransformations.length;
      const response: AnthropicBlock[] =
        step.kind === "calls"
          ? [...thinkingBlocks(settings, `Step ${stepIndex + 1}.`), ...step.calls.map(toolUse)]
          : [...thinkingBlocks(settings, "Done."), { type: "text", text: step.text }];
      thread.push(format.assistant(binder.sign(request, response)));
      if (step.kind === "calls") thread.push(...format.results(step.calls));
    });
  });
  return outcome;
}

/** The thread index of the latest assistant message of a tool loop under way (no user message after it); -1 otherwise. */
function latestAssistantIndex<M>(thread: readonly M[], format: AnthropicFormat<M>): number {
  const neutral = format.neutral(thread);
  let latestAssistant = -1;
  for (let index = neutral.length - 1; index >= 0; index--) {
    const role = (neutral[index] as Message).role;
    if (role === "user") return -1;
    if (role === "assistant") {
      latestAssistant = index;
      break;
    }
  }
  if (latestAssistant < 0) return -1;
  // Neutral positions count pieces; count assistant messages to find the provider message.
  let assistants = 0;
  for (let index = 0; index <= latestAssistant; index++)
    if ((neutral[index] as Message).role === "assistant") assistants++;
  let seen = 0;
  for (let index = 0; index < thread.length; index++) {
    if (format.neutral([thread[index] as M]).some((message) => message.role === "assistant")) seen++;
    if (seen === assistants) return index;
  }
  return -1;
}

type ChatMessage = { role: string; content?: string | null; [key: string]: unknown };

/** Plays a script through the OpenAI adapter against the reasoning fake: how many reasoning items it drops. */
export function playOpenAI(
  script: readonly ScriptTurn[],
  settings: PlaySettings,
  binder = new OpenAIReasoningBinder(),
): { calls: number; drops: number; latestModified: number[]; removedBlocks: number; condensed: number } {
  const thread: ChatMessage[] = [{ role: "system", content: SYSTEM }];
  const cache = new ThreadCache();
  const outcome = { calls: 0, drops: 0, latestModified: [] as number[], removedBlocks: 0, condensed: 0 };
  let digests: DigestMap = new Map();
  script.forEach((turn, turnIndex) => {
    thread.push({ role: "user", content: turn.request });
    if (turn.restart) cache.forget();
    if (turnIndex > 0) digests = workerDigests(openAIToNeutral(thread));
    turn.steps.forEach((step, stepIndex) => {
      const { messages, report } = assembleOpenAIView(thread, digests, {
        historyBudgetChars: settings.historyBudgetChars,
        recencyKeepExchanges: settings.recencyKeepExchanges,
        inline: settings.inline,
        cache: cache.context(stepIndex === 0, turn.cold, turnIndex),
        ...(settings.dropBlock ? { watermark: { dropLatestThinking: true } } : {}),
      });
      cache.record(report.ledger);
      outcome.calls++;
      outcome.removedBlocks = Math.max(outcome.removedBlocks, report.ledger.thinking.removedBlocks);
      outcome.condensed = Math.max(outcome.condensed, report.ledger.condensedIds.length);
      outcome.drops += binder.check(messages).length;
      const lastUser = thread.map((message) => message.role).lastIndexOf("user");
      const latest = thread.map((message) => message.role).lastIndexOf("assistant");
      if (latest > lastUser && !messages.includes(thread[latest] as ChatMessage))
        outcome.latestModified.push(outcome.calls);
      const reply: ChatMessage =
        step.kind === "calls"
          ? {
              role: "assistant",
              content: null,
              tool_calls: step.calls.map((call) => ({
                id: call.id,
                type: "function",
                function: { name: call.name, arguments: JSON.stringify(call.input) },
              })),
            }
          : { role: "assistant", content: step.text };
      thread.push(binder.issue(messages, reply));
      if (step.kind === "calls") {
        for (const call of step.calls)
          thread.push({ role: "tool", tool_call_id: call.id, content: call.result });
      }
    });
  });
  return outcome;
}
