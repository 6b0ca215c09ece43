import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
  type StoredMessage,
  SystemMessage,
  ToolMessage,
} from "@langchain/core/messages";
import {
  type AssembledView,
  type AssembleOptions,
  assembleModelView,
  originalOfReplacement,
} from "../../assemble";
import { InvalidThreadError } from "../../errors";
import type { DigestsOrTurnState } from "../../org-policy";
import { originalOfStripped, REASONING_FIELDS, reasoningFieldsOf } from "../../thread/thinking";
import type { ContentBlock, Message, MessageContent, ToolCall } from "../../types";
import { describeValue } from "../../validate";

/** A LangChain message as an instance, in its stored form `{ type, data }`, or its `toJSON()` form. */
export type LangChainMessageInput =
  | BaseMessage
  | StoredMessage
  | { lc: number; type: "constructor"; id: string[]; kwargs: Record<string, unknown> };

const CONSTRUCTORS: Record<string, new (fields: never) => BaseMessage> = {
  HumanMessage,
  AIMessage,
  SystemMessage,
  ToolMessage,
};

function isBaseMessage(value: unknown): value is BaseMessage {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof (value as BaseMessage).getType === "function" &&
    "content" in (value as object)
  );
}

/**
 * LangChain's own reviving, with its plain `Error`s (an unknown stored type such as
 * `remove`, a tool message without `tool_call_id`, a `generic` message without a role)
 * turned into an {@link InvalidThreadError} naming the message, the original as its cause.
 */
function revived<T>(index: number, revive: () => T): T {
  try {
    return revive();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidThreadError(
      `messages[${index}]: LangChain cannot revive this stored message: ${reason}`,
      {
        index,
        cause: error,
      },
    );
  }
}

/**
 * Revives LangChain messages from their stored JSON forms (`mapChatMessagesToStoredMessages`
 * output or `toJSON()` output); instances pass through untouched.
 *
 * @throws {InvalidThreadError} naming the index of a value that is neither form.
 */
export function reviveLangChainMessages(values: readonly unknown[]): BaseMessage[] {
  return values.map((value, index) => {
    if (isBaseMessage(value)) return value;
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      if (record.type === "constructor" && Array.isArray(record.id) && record.kwargs) {
        const name = String(record.id[record.id.length - 1]);
        const Constructor = CONSTRUCTORS[name];
        if (!Constructor) {
          throw new InvalidThreadError(`messages[${index}]: unsupported LangChain message class ${name}`, {
            index,
            field: "id",
          });
        }
        return revived(index, () => new Constructor(record.kwargs as never));
      }
      if (typeof record.type === "string" && record.data && typeof record.data === "object") {
        const message = revived(index, () => mapStoredMessagesToChatMessages([value as StoredMessage])[0]);
        if (message) return message;
      }
    }
    throw new InvalidThreadError(`messages[${index}] is not a LangChain message or its stored form`, {
      index,
    });
  });
}

function neutralContent(content: unknown, index: number): MessageContent {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content as ContentBlock[];
  throw new InvalidThreadError(
    `messages[${index}].content must be a string or an array of content blocks, got ${describeValue(content)}`,
    { index, field: "content" },
  );
}

function neutralToolCalls(calls: unknown, index: number): ToolCall[] {
  if (calls === undefined || calls === null) return [];
  if (!Array.isArray(calls)) {
    throw new InvalidThreadError(
      `messages[${index}].tool_calls must be an array, got ${describeValue(calls)}`,
      {
        index,
        field: "tool_calls",
      },
    );
  }
  return calls.map((call: unknown, callIndex) => {
    if (call === null || typeof call !== "object" || Array.isArray(call)) {
      const field = `tool_calls[${callIndex}]`;
      throw new InvalidThreadError(
        `messages[${index}].${field} must be an object, got ${describeValue(call)}`,
        {
          index,
          field,
        },
      );
    }
    const { id, name, args } = call as { id?: unknown; name?: unknown; args?: unknown };
    // id, name and args are checked by the neutral thread validation.
    return { id: (id ?? "") as string, name: name as string, args: (args ?? {}) as Record<string, unknown> };
  });
}

interface CachedNeutral {
  content: unknown;
  toolCalls: unknown;
  status: unknown;
  reasoning: unknown;
  neutral: Message;
}

/** The reasoning item an AI message carries in its `additional_kwargs`, or undefined. */
function reasoningOf(message: BaseMessage): Record<string, unknown> | undefined {
  return reasoningFieldsOf(message.additional_kwargs as Record<string, unknown> | undefined);
}
const neutralByMessage = new WeakMap<BaseMessage, CachedNeutral>();

/**
 * One LangChain message in the neutral model, cached per instance (so hashes are cached
 * too) for as long as its content, tool calls and status are the same values: LangChain
 * messages are mutable, and the hash gate must see live content.
 *
 * @throws {InvalidThreadError} naming `index` and the field when content is neither a
 * string nor an array, or `tool_calls` is not an array of objects.
 */
function toNeutral(message: BaseMessage, index: number): Message {
  const toolCallsNow = (message as AIMessage).tool_calls;
  const statusNow = (message as ToolMessage).status;
  const type = message.getType();
  const reasoningNow = type === "ai" ? reasoningOf(message) : undefined;
  const cached = neutralByMessage.get(message);
  if (
    cached &&
    cached.content === message.content &&
    cached.toolCalls === toolCallsNow &&
    cached.status === statusNow &&
    sameReasoning(cached.reasoning, reasoningNow)
  ) {
    return cached.neutral;
  }
  const content = neutralContent(message.content, index);
  const id = message.id;
  let neutral: Message;
  if (type === "human") neutral = { role: "user", content, id };
  else if (type === "ai") {
    const toolCalls = neutralToolCalls(toolCallsNow, index);
    neutral = {
      role: "assistant",
      content,
      id,
      toolCalls,
      ...(reasoningNow === undefined ? {} : { reasoning: reasoningNow }),
    };
  } else if (type === "tool") {
    const tool = message as ToolMessage;
    neutral = {
      role: "tool",
      content,
      id,
      toolCallId: tool.tool_call_id ?? "",
      toolName: tool.name ?? "",
      ...(tool.status === "error" || tool.status === "success" ? { status: tool.status } : {}),
    };
  } else {
    // system, developer and any other type: never cleaned, never dropped.
    neutral = { role: "system", content, id };
  }
  neutralByMessage.set(message, {
    content: message.content,
    toolCalls: toolCallsNow,
    status: statusNow,
    reasoning: reasoningNow,
    neutral,
  });
  return neutral;
}

function sameReasoning(cached: unknown, now: Record<string, unknown> | undefined): boolean {
  if (cached === undefined || now === undefined) return cached === now;
  const before = cached as Record<string, unknown>;
  const fields = Object.keys(now);
  return (
    fields.length === Object.keys(before).length && fields.every((field) => before[field] === now[field])
  );
}

/** An AI message as it came, without its thinking blocks and reasoning item (the view's provider-true rule). */
function withoutThinkingAI(original: AIMessage, stripped: Message): AIMessage {
  const kwargs = { ...(original.additional_kwargs ?? {}) } as Record<string, unknown>;
  for (const field of REASONING_FIELDS) delete kwargs[field];
  return new AIMessage({
    content: stripped.content as AIMessage["content"],
    id: original.id,
    name: original.name,
    tool_calls: original.tool_calls ?? [],
    invalid_tool_calls: original.invalid_tool_calls ?? [],
    additional_kwargs: kwargs,
    response_metadata: original.response_metadata ?? {},
    ...(original.usage_metadata ? { usage_metadata: original.usage_metadata } : {}),
  });
}

/** LangChain messages (instances or stored JSON) in the neutral model. */
export function fromLangChain(messages: readonly LangChainMessageInput[]): Message[] {
  return reviveLangChainMessages(messages).map((message, index) => toNeutral(message, index));
}

/** A neutral message as a LangChain instance (for messages the cleaner wrote or replaced). */
export function toLangChain(message: Message, original?: BaseMessage): BaseMessage {
  if (message.role === "tool") {
    const source = original && ToolMessage.isInstance(original) ? original : undefined;
    return new ToolMessage({
      content: message.content as string,
      tool_call_id: message.toolCallId,
      name: message.toolName,
      id: message.id ?? source?.id,
      // The neutral model keeps only "error"; the original's "success" must survive too.
      ...(message.status || source?.status ? { status: message.status ?? source?.status } : {}),
      additional_kwargs: source?.additional_kwargs ?? {},
      response_metadata: source?.response_metadata ?? {},
    });
  }
  if (message.role === "assistant") {
    return new AIMessage({
      content: message.content as string,
      id: message.id,
      tool_calls: (message.toolCalls ?? []).map((call) => ({ ...call, type: "tool_call" as const })),
    });
  }
  if (message.role === "system")
    return new SystemMessage({ content: message.content as string, id: message.id });
  return new HumanMessage({ content: message.content as string, id: message.id });
}

/**
 * {@link assembleModelView} over LangChain messages, in the caller's format: untouched
 * messages come back as the very objects passed in (instances or stored JSON); condensed
 * tool results are new `ToolMessage`s keeping `tool_call_id`, `name`, `id` and `status`,
 * in the same form as the input they replace.
 *
 * @example
 * const digests = await repository.loadThreadDigests(orgId, threadId);
 * const { messages: view } = assembleLangChainView(state.messages, digests);
 * const reply = await model.invoke(view);
 */
export function assembleLangChainView<T extends LangChainMessageInput>(
  messages: readonly T[],
  digests?: DigestsOrTurnState | null,
  options?: AssembleOptions,
): AssembledView<T> {
  const instances = reviveLangChainMessages(messages);
  const neutral = instances.map((message, index) => toNeutral(message, index));
  const position = new Map<Message, number>();
  neutral.forEach((message, index) => {
    position.set(message, index);
  });
  const view = assembleModelView(neutral, digests, options);
  return {
    report: view.report,
    messages: view.messages.map((message) => {
      const untouched = position.get(message);
      if (untouched !== undefined) return messages[untouched] as T;
      const withThinking = originalOfStripped(message);
      const strippedAt = withThinking === undefined ? undefined : position.get(withThinking);
      if (strippedAt !== undefined) {
        const instance = withoutThinkingAI(instances[strippedAt] as AIMessage, message);
        return inCallerForm(instance, messages[strippedAt]) as T;
      }
      const replaced = originalOfReplacement(message);
      const at = replaced === undefined ? undefined : position.get(replaced);
      const instance = toLangChain(message, at === undefined ? undefined : instances[at]);
      return inCallerForm(instance, messages[at ?? 0]) as T;
    }),
  };
}

/** A new instance in the form of `like`: an instance, a stored `{ type, data }` or `toJSON()` output. */
function inCallerForm(instance: BaseMessage, like: LangChainMessageInput | undefined): LangChainMessageInput {
  if (like === undefined || isBaseMessage(like)) return instance;
  if ((like as { type?: unknown }).type === "constructor") {
    return instance.toJSON() as unknown as LangChainMessageInput;
  }
  return mapChatMessagesToStoredMessages([instance])[0] as StoredMessage;
}
