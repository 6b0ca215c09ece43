/**
 * The proof that the view's handles are used: a scripted agent that, for each probe whose
 * answer is not in the view an integration sends the model, finds the `read_original`
 * handle that view gives for the probe's result (in the result's stand-in, or in the
 * backstop's note), calls the tool through that integration's own executor over the
 * thread as the runtime holds it, reads on while the answer says there is more, and
 * must find the exact answer.
 */
import {
  type AssembleOptions,
  assembleModelView,
  type DigestMap,
  type Message,
  readOriginal,
} from "@context-cleaner/assembler";
import { answerAiSdkReadOriginal, assembleAiSdkPrompt } from "@context-cleaner/assembler/ai-sdk";
import {
  type AnthropicMessageLike,
  answerAnthropicReadOriginal,
  assembleAnthropicView,
} from "@context-cleaner/assembler/anthropic";
import {
  contentText,
  normalizeWhitespace,
  renderReadOriginalResult,
} from "@context-cleaner/assembler/internal";
import {
  answerLangChainReadOriginal,
  assembleLangChainView,
  toLangChain,
} from "@context-cleaner/assembler/langchain";
import {
  answerOpenAIReadOriginal,
  assembleOpenAIView,
  type OpenAIMessageLike,
} from "@context-cleaner/assembler/openai";
import type { Probe } from "@context-cleaner/demo/generator";
import { type AnthropicMessage, appendToolResult } from "@context-cleaner/demo/provider-fakes";

/** One integration: the thread in its format, its assembled view as texts per tool call, and its tool's answer. */
export interface Integration {
  name: string;
  /** The view's texts: each tool result's by call id, and every other message's. */
  view(options: AssembleOptions): { results: Map<string, string>; others: string[] };
  /** The text the integration's `read_original` executor answers `args` with. */
  call(args: Record<string, unknown>): string;
}

type Block = Record<string, unknown>;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block: Block) => typeof block.text === "string")
    .map((block: Block) => block.text as string)
    .join("\n");
}

/** The neutral thread in the Anthropic Messages format: results as blocks of user messages. */
export function toAnthropic(messages: readonly Message[]): AnthropicMessageLike[] {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    if (message.role === "tool") {
      appendToolResult(out, {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: contentText(message.content),
        ...(message.status === "error" ? { is_error: true } : {}),
      });
    } else if (message.role === "assistant") {
      const text = contentText(message.content);
      out.push({
        role: "assistant",
        content: [
          ...(text ? [{ type: "text", text }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool_use",
            id: call.id,
            name: call.name,
            input: call.args,
          })),
        ],
      });
    } else out.push({ role: message.role, content: contentText(message.content) });
  }
  return out as AnthropicMessageLike[];
}

/** The neutral thread in the OpenAI Chat Completions format. */
export function toOpenAI(messages: readonly Message[]): OpenAIMessageLike[] {
  return messages.map((message) => {
    if (message.role === "tool")
      return { role: "tool", tool_call_id: message.toolCallId, content: contentText(message.content) };
    if (message.role === "assistant" && message.toolCalls?.length)
      return {
        role: "assistant",
        content: contentText(message.content) || null,
        tool_calls: message.toolCalls.map((call) => ({
          id: call.id,
          type: "function",
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      };
    return { role: message.role, content: contentText(message.content) };
  }) as OpenAIMessageLike[];
}

/** The neutral thread as AI SDK `ModelMessage`s. */
export function toAiSdk(
  messages: readonly Message[],
): { role: string; content: string | (Block & { type: string })[] }[] {
  return messages.map((message) => {
    if (message.role === "tool")
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.toolName,
            output: {
              type: message.status === "error" ? "error-text" : "text",
              value: contentText(message.content),
            },
          },
        ],
      };
    if (message.role === "assistant")
      return {
        role: "assistant",
        content: [
          ...(contentText(message.content) ? [{ type: "text", text: contentText(message.content) }] : []),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool-call",
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ],
      };
    return { role: message.role, content: contentText(message.content) };
  });
}

function collect(entries: Iterable<[string | undefined, string]>): {
  results: Map<string, string>;
  others: string[];
} {
  const results = new Map<string, string>();
  const others: string[] = [];
  for (const [id, text] of entries) {
    if (id === undefined) others.push(text);
    else results.set(id, text);
  }
  return { results, others };
}

/** The five integrations over one thread and its digest rows. */
export function integrations(messages: readonly Message[], digests: DigestMap): Integration[] {
  const anthropic = toAnthropic(messages);
  const openai = toOpenAI(messages);
  const aiSdk = toAiSdk(messages);
  const langchain = messages.map((message) => toLangChain(message));
  return [
    {
      name: "neutral",
      view: (options) =>
        collect(
          assembleModelView(messages, digests, options).messages.map((message) => [
            message.role === "tool" ? message.toolCallId : undefined,
            contentText(message.content),
          ]),
        ),
      call: (args) => renderReadOriginalResult(readOriginal(messages, args)),
    },
    {
      name: "LangChain",
      view: (options) =>
        collect(
          assembleLangChainView(langchain, digests, options).messages.map((message) => [
            message.getType() === "tool"
              ? (message as unknown as { tool_call_id: string }).tool_call_id
              : undefined,
            textOf(message.content),
          ]),
        ),
      call: (args) => String(answerLangChainReadOriginal(langchain, args, "recall").content),
    },
    {
      name: "AI SDK",
      view: (options) =>
        collect(
          assembleAiSdkPrompt(aiSdk, digests, options).messages.flatMap(
            (message): [string | undefined, string][] =>
              typeof message.content === "string"
                ? [[undefined, message.content]]
                : (message.content as unknown as Block[]).map((part) =>
                    part.type === "tool-result"
                      ? [part.toolCallId as string, String((part.output as { value?: unknown }).value)]
                      : [undefined, typeof part.text === "string" ? part.text : ""],
                  ),
          ),
        ),
      call: (args) => answerAiSdkReadOriginal(aiSdk, args).text,
    },
    {
      name: "Anthropic",
      view: (options) =>
        collect(
          assembleAnthropicView(anthropic, digests, { ...options, cacheBreakpoints: false }).messages.flatMap(
            (message): [string | undefined, string][] =>
              typeof message.content === "string"
                ? [[undefined, message.content]]
                : (message.content as unknown as Block[]).map((block) =>
                    block.type === "tool_result"
                      ? [block.tool_use_id as string, textOf(block.content)]
                      : [undefined, typeof block.text === "string" ? block.text : ""],
                  ),
          ),
        ),
      call: (args) => answerAnthropicReadOriginal({ id: "recall", input: args }, anthropic).content,
    },
    {
      name: "OpenAI",
      view: (options) =>
        collect(
          assembleOpenAIView(openai, digests, options).messages.map((message) => [
            message.role === "tool"
              ? (message as unknown as { tool_call_id: string }).tool_call_id
              : undefined,
            textOf(message.content),
          ]),
        ),
      call: (args) =>
        answerOpenAIReadOriginal({ id: "recall", function: { arguments: JSON.stringify(args) } }, openai)
          .content,
    },
  ];
}

const HANDLE = /([A-Za-z0-9_-]+)\(tool_call_id=("(?:[^"\\]|\\.)*")\)/g;

/** Every `read_original` handle in a text: the call ids it names. */
export function handleIds(text: string, toolName = "read_original"): string[] {
  return [...text.matchAll(HANDLE)]
    .filter((match) => match[1] === toolName)
    .map((match) => JSON.parse(match[2] as string));
}

export interface RecallCount {
  /** Probes whose answer is not in the view. */
  notInView: number;
  /** …of which the agent found a handle in the view and got the exact answer by following it. */
  recovered: number;
  /** Answers of probes not in view that no handle led to. */
  missed: string[];
  /** Handles in the view naming a call id that has no result in the thread (expect none). */
  danglingHandles: string[];
}

/** The scripted agent over one integration's view (see the module's comment). */
export function recallThroughHandles(
  integration: Integration,
  probes: readonly Probe[],
  options: AssembleOptions,
  resultIds: ReadonlySet<string>,
): RecallCount {
  const { results, others } = integration.view({ ...options, readOriginal: true });
  const everything = [...results.values(), ...others].join("\n");
  const text = normalizeWhitespace(everything);
  const count: RecallCount = { notInView: 0, recovered: 0, missed: [], danglingHandles: [] };
  count.danglingHandles = handleIds(everything).filter((id) => !resultIds.has(id));
  for (const probe of probes) {
    const answer = normalizeWhitespace(probe.answer);
    if (text.includes(answer)) continue;
    count.notInView++;
    // The handle the view gives for the probe's result: in its stand-in, or on its note line.
    const own = results.get(probe.toolCallId);
    const noted = others
      .flatMap((other) => other.split("\n"))
      .find((line) => handleIds(line).includes(probe.toolCallId));
    const handle = [own, noted]
      .flatMap((where) => (where === undefined ? [] : handleIds(where)))
      .find((id) => id === probe.toolCallId);
    if (handle === undefined) {
      count.missed.push(probe.answer);
      continue;
    }
    let read = "";
    for (let offset: number | undefined = 0; offset !== undefined; ) {
      const reply = integration.call({ tool_call_id: handle, offset });
      const header = reply.slice(0, reply.indexOf("\n"));
      read += reply.slice(header.length + 1);
      const more = header.match(/; more from offset=(\d+)\]$/);
      offset = more ? Number(more[1]) : undefined;
      if (reply.startsWith("[read_original error: ")) break;
    }
    if (normalizeWhitespace(read).includes(answer)) count.recovered++;
    else count.missed.push(probe.answer);
  }
  return count;
}
