import type { Message, ToolCall } from "@context-cleaner/assembler";
import {
  canonicalJson,
  contentText,
  messageChars,
  normalizeWhitespace,
  renderToolCall,
  resolveToolPolicy,
} from "@context-cleaner/assembler/internal";

/** A probe: a fact (`answer`) the result of one tool call holds. */
export interface SimulationProbe {
  answer: string;
  toolCallId: string;
}

/** Chars a view puts in the prompt (content and tool-call args, the unit of every budget). */
export function viewChars(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += messageChars(message);
  return total;
}

const normalizedText = new WeakMap<Message, string>();

function normalizedTextOf(message: Message): string {
  let text = normalizedText.get(message);
  if (text === undefined) {
    text = normalizeWhitespace(contentText(message.content));
    normalizedText.set(message, text);
  }
  return text;
}

/** The provenance of a call: its tool and the args that re-read its result. */
function callKey(call: ToolCall): string {
  const rule = resolveToolPolicy(undefined).ruleFor(call.name);
  const args = Object.fromEntries(rule.provenanceArgs.map((name) => [name, call.args[name]]));
  return `${call.name}:${canonicalJson(rule.provenanceArgs.length > 0 ? args : call.args)}`;
}

export interface RetentionCount {
  /** Probes whose source result has arrived. */
  total: number;
  /** Answer verbatim (whitespace-normalised) in the view. */
  strict: number;
  /** Strict, or the view holds a call that re-reads the source: rendered (a digest's or stub's re-read line) or as a tool call the model can repeat. */
  recoverable: number;
}

/** Measures probe retention of views of one thread. */
export class ProbeIndex {
  private readonly probes: { answer: string; toolCallId: string; reread?: string; key?: string }[];

  constructor(thread: readonly Message[], probes: readonly SimulationProbe[]) {
    const calls = new Map<string, ToolCall>();
    for (const message of thread) {
      if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, call);
    }
    const policy = resolveToolPolicy(undefined);
    this.probes = probes.map((probe) => {
      const call = calls.get(probe.toolCallId);
      return {
        answer: normalizeWhitespace(probe.answer),
        toolCallId: probe.toolCallId,
        ...(call
          ? { reread: renderToolCall(call, policy.ruleFor(call.name).provenanceArgs), key: callKey(call) }
          : {}),
      };
    });
  }

  /** Retention in `view` of the probes whose result is among `arrived` (tool call ids). */
  retention(view: readonly Message[], arrived: ReadonlySet<string>): RetentionCount {
    const count: RetentionCount = { total: 0, strict: 0, recoverable: 0 };
    const sources = new Map<string, Message>();
    const callKeys = new Set<string>();
    for (const message of view) {
      if (message.role === "tool") sources.set(message.toolCallId, message);
      if (message.role === "assistant")
        for (const call of message.toolCalls ?? []) callKeys.add(callKey(call));
    }
    let text: string | undefined;
    const fullText = () => {
      text ??= view.map(normalizedTextOf).join("\n");
      return text;
    };
    for (const probe of this.probes) {
      if (!arrived.has(probe.toolCallId)) continue;
      count.total++;
      const source = sources.get(probe.toolCallId);
      const strict =
        (source !== undefined && normalizedTextOf(source).includes(probe.answer)) ||
        fullText().includes(probe.answer);
      if (strict) {
        count.strict++;
        count.recoverable++;
      } else if (
        (probe.key !== undefined && callKeys.has(probe.key)) ||
        (probe.reread !== undefined && fullText().includes(probe.reread))
      ) {
        count.recoverable++;
      }
    }
    return count;
  }
}

function sameCalls(left: readonly ToolCall[] | undefined, right: readonly ToolCall[] | undefined): boolean {
  if (left === right) return true;
  return canonicalJson(left ?? []) === canonicalJson(right ?? []);
}

/** Whether two view messages put the same bytes in the prompt. */
export function samePromptMessage(left: Message, right: Message): boolean {
  if (left === right) return true;
  if (left.role !== right.role || left.content !== right.content) {
    if (left.role !== right.role) return false;
    if (typeof left.content === "string" || typeof right.content === "string") return false;
    if (canonicalJson(left.content) !== canonicalJson(right.content)) return false;
  }
  if (left.role === "assistant" && right.role === "assistant")
    return sameCalls(left.toolCalls, right.toolCalls);
  if (left.role === "tool" && right.role === "tool") {
    return (
      left.toolCallId === right.toolCallId && left.toolName === right.toolName && left.status === right.status
    );
  }
  return true;
}

/** What one model call did to the provider's prompt cache, against the previous call's view. */
export interface CacheBreak {
  /** An earlier message of the previous view changed, moved or went away. */
  broken: boolean;
  /** Messages of the previous view from the first change on (their cached prefix is lost). */
  invalidatedMessages: number;
  invalidatedChars: number;
}

/** Compares a view with the previous call's: the prompt cache keeps the longest unchanged prefix. */
export function cacheBreak(previous: readonly Message[], next: readonly Message[]): CacheBreak {
  let index = 0;
  while (
    index < previous.length &&
    index < next.length &&
    samePromptMessage(previous[index] as Message, next[index] as Message)
  ) {
    index++;
  }
  if (index === previous.length) return { broken: false, invalidatedMessages: 0, invalidatedChars: 0 };
  return {
    broken: true,
    invalidatedMessages: previous.length - index,
    invalidatedChars: viewChars(previous.slice(index)),
  };
}
