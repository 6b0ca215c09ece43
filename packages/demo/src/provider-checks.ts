/**
 * The providers' checks on history sent back, played over the simulation: each fixture
 * thread's assistant messages carry a thinking block (as they do with thinking on), and
 * two counters send every contestant's views through the local fakes of the documented
 * checks (./provider-fakes):
 *
 * - requests the Anthropic prefix check refuses (preserved thinking): the view as the
 *   Messages API receives it, each thinking block signed by the fake against the request
 *   that produced it (the contestant's own view at that call);
 * - reasoning items an OpenAI reasoning model drops: the view as Chat Completions
 *   messages, each assistant message's reasoning item bound to the messages before it.
 *
 * Each contestant has its own fakes (its views, so its signatures, differ).
 */
import type { AssistantMessage, ContentBlock, Message } from "@context-cleaner/assembler";
import { contentText } from "@context-cleaner/assembler/internal";
import { WITH_DIGESTS_DROP_BLOCK } from "./contestants";
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  AnthropicThinkingBinder,
  appendToolResult,
  blockBinding,
  type ChatMessageLike,
  OpenAIReasoningBinder,
} from "./provider-fakes";
import type { CallCounter, ObservedCall } from "./simulate-turns";

const PLACEHOLDER = "fixture-thinking-";

/** The contestants whose requests set `drop_block` with its beta header. */
const DROP_BLOCK_CONTESTANTS: ReadonlySet<string> = new Set([WITH_DIGESTS_DROP_BLOCK.id]);

/** The thread with a thinking block first in every assistant message (its signature a placeholder the counters map to the fake's). */
export function withThinking(messages: readonly Message[]): Message[] {
  return messages.map((message, index) => {
    if (message.role !== "assistant") return message;
    const content: ContentBlock[] =
      typeof message.content === "string"
        ? message.content === ""
          ? []
          : [{ type: "text", text: message.content }]
        : [...message.content];
    const thinking: ContentBlock = { type: "thinking", thinking: "", signature: `${PLACEHOLDER}${index}` };
    return { ...message, content: [thinking, ...content] } satisfies AssistantMessage;
  });
}

/** A neutral view as Messages API messages: tool calls as tool_use blocks, results grouped into user messages. */
function anthropicMessages(
  view: readonly Message[],
  signature: (placeholder: string) => string,
): AnthropicMessage[] {
  const messages: AnthropicMessage[] = [];
  for (const message of view) {
    if (message.role === "tool") {
      const block: AnthropicBlock = {
        type: "tool_result",
        tool_use_id: message.toolCallId,
        content: message.content as string | AnthropicBlock[],
        ...(message.status === "error" ? { is_error: true } : {}),
      };
      appendToolResult(messages, block);
      continue;
    }
    const blocks: AnthropicBlock[] =
      typeof message.content === "string"
        ? [{ type: "text", text: message.content }]
        : message.content.map((block) =>
            block.type === "thinking" && typeof block.signature === "string"
              ? { ...block, signature: signature(block.signature) }
              : (block as AnthropicBlock),
          );
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? [])
        blocks.push({ type: "tool_use", id: call.id, name: call.name, input: call.args });
      messages.push({ role: "assistant", content: blocks });
    } else messages.push({ role: "user", content: blocks });
  }
  return messages;
}

/**
 * A neutral view as the Messages API request the counters check, with `drop_block` or not: a
 * leading system message becomes the top-level `system`, as the Messages API takes it.
 */
export function anthropicRequest(
  view: readonly Message[],
  signature: (placeholder: string) => string,
  dropping: boolean,
): AnthropicRequest {
  const leading = view[0]?.role === "system" ? view[0] : undefined;
  return {
    system: leading === undefined ? "fixture system" : contentText(leading.content),
    tools: [],
    messages: anthropicMessages(leading === undefined ? view : view.slice(1), signature),
    thinking: blockBinding(dropping).thinking,
  };
}

/** A neutral view as Chat Completions messages, each assistant message's thinking as its reasoning item. */
function chatMessages(
  view: readonly Message[],
  item: (placeholder: string) => string | undefined,
): ChatMessageLike[] {
  return view.map((message): ChatMessageLike => {
    const text =
      typeof message.content === "string"
        ? message.content
        : message.content
            .filter((block) => block.type !== "thinking")
            .map((block) => (typeof block.text === "string" ? block.text : JSON.stringify(block)))
            .join("\n");
    if (message.role === "tool") return { role: "tool", tool_call_id: message.toolCallId, content: text };
    if (message.role !== "assistant") return { role: message.role, content: text };
    const thinking =
      typeof message.content === "string"
        ? undefined
        : message.content.find((block) => block.type === "thinking");
    const id = typeof thinking?.signature === "string" ? item(thinking.signature) : undefined;
    return {
      role: "assistant",
      content: text,
      ...(message.toolCalls?.length
        ? {
            tool_calls: message.toolCalls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: JSON.stringify(call.args) },
            })),
          }
        : {}),
      ...(id === undefined ? {} : { reasoning: { id, type: "reasoning", summary: [] } }),
    };
  });
}

interface ContestantFakes {
  anthropic: AnthropicThinkingBinder;
  openai: OpenAIReasoningBinder;
  /** Placeholder signature → the fake's signature / reasoning item id. */
  signatures: Map<string, string>;
  items: Map<string, string>;
}

/**
 * The counters, sharing per-contestant fakes: "refused (prefix check)" counts the requests
 * Anthropic's check refuses, "thinking dropped" the blocks it drops instead for a
 * contestant whose requests set `drop_block`, "reasoning dropped" the reasoning items
 * OpenAI drops.
 * Each call also signs the answer the thread records next (the assistant message the
 * prompt's next position holds), so later calls are checked against this call's view.
 */
export function providerCheckCounters(
  sendsDropBlock: (contestant: string) => boolean = (contestant) => DROP_BLOCK_CONTESTANTS.has(contestant),
): CallCounter[] {
  const fakes = new Map<string, ContestantFakes>();
  /** Per contestant, the thinking blocks the Anthropic fake dropped at its latest call (drop_block). */
  const dropped = new Map<string, number>();
  const fakesOf = (call: ObservedCall, counter: string): ContestantFakes => {
    const key = `${counter}\u0000${call.contestant}`;
    let found = fakes.get(key);
    // A thread's first call starts a conversation: new fakes.
    if (found === undefined || (call.turn === 1 && call.call === 1)) {
      found = {
        anthropic: new AnthropicThinkingBinder(),
        openai: new OpenAIReasoningBinder(),
        signatures: new Map(),
        items: new Map(),
      };
      fakes.set(key, found);
    }
    return found;
  };
  const answerPlaceholder = (call: ObservedCall) => `${PLACEHOLDER}${call.prompt.length}`;
  return [
    {
      id: "refused",
      label: "refused (prefix check)",
      count(call) {
        const own = fakesOf(call, "refused");
        const dropping = sendsDropBlock(call.contestant);
        const request = anthropicRequest(
          call.view.messages,
          (placeholder) => own.signatures.get(placeholder) ?? placeholder,
          dropping,
        );
        const outcome = own.anthropic.check(request, blockBinding(dropping).betas);
        dropped.set(call.contestant, outcome.ok ? outcome.inputTransformations.length : 0);
        const [signed] = own.anthropic.sign(request, [{ type: "thinking" }]);
        own.signatures.set(answerPlaceholder(call), (signed as AnthropicBlock).signature as string);
        return outcome.ok ? 0 : 1;
      },
    },
    {
      id: "thinking-dropped",
      label: "thinking dropped (drop_block)",
      // Read after the refused counter has checked the same call (counters run in order).
      count: (call) => dropped.get(call.contestant) ?? 0,
    },
    {
      id: "reasoning-dropped",
      label: "reasoning dropped",
      count(call) {
        const own = fakesOf(call, "reasoning-dropped");
        const messages = chatMessages(call.view.messages, (placeholder) => own.items.get(placeholder));
        const drops = own.openai.check(messages).length;
        const answer: ChatMessageLike = own.openai.issue(messages, { role: "assistant", content: "" });
        own.items.set(answerPlaceholder(call), (answer.reasoning as { id: string }).id);
        return drops;
      },
    },
  ];
}
