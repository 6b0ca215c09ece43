/**
 * The library peers: LangChain's `trimMessages` and the AI SDK's `pruneMessages`, each fed
 * the thread in its own message format. Loaded only by the comparison (`@langchain/core`
 * and `ai` are optional peers of this package).
 */
import type { Message, ToolCall } from "@context-cleaner/assembler";
import { contentText } from "@context-cleaner/assembler/internal";
import { toLangChain } from "@context-cleaner/assembler/langchain";
import { type BaseMessage, trimMessages } from "@langchain/core/messages";
import { type ModelMessage, pruneMessages } from "ai";
import { CONTESTANT_DEFAULTS, type Contestant } from "./contestants";

/** Settings of the two library peers. */
export const PEER_DEFAULTS = {
  /** trimMessages counts tokens as chars / 4, so the history budget is this many tokens. */
  charsPerToken: 4,
  /**
   * pruneMessages removes tool calls and results before the last 6 messages: the last 3
   * call/result exchanges, like the other strategies' keep-3.
   */
  pruneToolCalls: `before-last-${2 * CONTESTANT_DEFAULTS.keepLast}-messages`,
} as const;

function langChainChars(message: BaseMessage): number {
  const text =
    typeof message.content === "string" ? message.content.length : JSON.stringify(message.content).length;
  const calls = "tool_calls" in message && Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return text + calls.reduce((sum, call) => sum + call.name.length + JSON.stringify(call.args).length, 0);
}

/**
 * LangChain `trimMessages`: the last messages that fit the history budget (tokens as
 * chars / 4), keeping the system message, never splitting a message, starting on a human
 * message. Each message is converted once (a LangChain runtime holds them in that form).
 */
export function createTrimMessagesContestant(): Contestant {
  const langChainOf = new WeakMap<Message, BaseMessage>();
  const neutralById = new Map<string, Message>();
  const convert = (message: Message): BaseMessage => {
    let converted = langChainOf.get(message);
    if (!converted) {
      const id = `message-${neutralById.size + 1}`;
      converted = toLangChain({ ...message, id });
      langChainOf.set(message, converted);
      neutralById.set(id, message);
    }
    return converted;
  };
  return {
    id: "trim-messages",
    label: "LangChain trimMessages",
    accounting: "blind",
    async view(prompt) {
      const input = prompt.map(convert);
      const started = performance.now();
      const trimmed = await trimMessages(input, {
        maxTokens: CONTESTANT_DEFAULTS.historyBudgetChars / PEER_DEFAULTS.charsPerToken,
        strategy: "last",
        tokenCounter: (messages) =>
          Math.ceil(
            messages.reduce((sum, message) => sum + langChainChars(message), 0) / PEER_DEFAULTS.charsPerToken,
          ),
        includeSystem: true,
        allowPartial: false,
        startOn: "human",
      });
      const elapsedMs = performance.now() - started;
      // With nothing that fits, trimMessages answers [undefined] (its system slot, empty).
      const messages = trimmed
        .filter((message): message is BaseMessage => message !== undefined)
        .map((message) => neutralById.get(String(message.id)) as Message);
      return { messages, elapsedMs };
    },
  };
}

function toModelMessage(message: Message): ModelMessage {
  const text = contentText(message.content);
  switch (message.role) {
    case "system":
      return { role: "system", content: text };
    case "user":
      return { role: "user", content: text };
    case "assistant":
      return {
        role: "assistant",
        content: [
          ...(text === "" ? [] : [{ type: "text" as const, text }]),
          ...(message.toolCalls ?? []).map((call) => ({
            type: "tool-call" as const,
            toolCallId: call.id,
            toolName: call.name,
            input: call.args,
          })),
        ],
      };
    case "tool":
      return {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: message.toolCallId,
            toolName: message.toolName,
            output: { type: message.status === "error" ? "error-text" : "text", value: text },
          },
        ],
      };
  }
}

/** A message pruneMessages rewrote (some parts removed), back in the neutral form. */
function fromPrunedMessage(message: ModelMessage): Message {
  if (message.role !== "assistant" || typeof message.content === "string") {
    throw new Error(`pruneMessages rewrote a ${message.role} message; only assistant messages are expected`);
  }
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const toolCalls: ToolCall[] = message.content.flatMap((part) =>
    part.type === "tool-call"
      ? [{ id: part.toolCallId, name: part.toolName, args: part.input as Record<string, unknown> }]
      : [],
  );
  return { role: "assistant", content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
}

/**
 * AI SDK `pruneMessages` on `ModelMessage`s: tool calls and their results before the last
 * three exchanges are removed, and messages left empty with them. Each message is
 * converted once; untouched messages come back as the same objects.
 */
export function createPruneMessagesContestant(): Contestant {
  const modelMessageOf = new WeakMap<Message, ModelMessage>();
  const neutralOf = new WeakMap<ModelMessage, Message>();
  const convert = (message: Message): ModelMessage => {
    let converted = modelMessageOf.get(message);
    if (!converted) {
      converted = toModelMessage(message);
      modelMessageOf.set(message, converted);
      neutralOf.set(converted, message);
    }
    return converted;
  };
  return {
    id: "prune-messages",
    label: "AI SDK pruneMessages",
    accounting: "blind",
    view(prompt) {
      const input = prompt.map(convert);
      const started = performance.now();
      const pruned = pruneMessages({
        messages: input,
        reasoning: "before-last-message",
        toolCalls: PEER_DEFAULTS.pruneToolCalls,
        emptyMessages: "remove",
      });
      const elapsedMs = performance.now() - started;
      const messages = pruned.map((message) => neutralOf.get(message) ?? fromPrunedMessage(message));
      return { messages, elapsedMs };
    },
  };
}
