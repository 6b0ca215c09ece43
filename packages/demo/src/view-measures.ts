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

/**
 * What a view's chars are made of: tool results as the contestant was given them (the
 * prompt's), tool results it shows otherwise (a digest, a stub, a stand-in), and the
 * conversation (system, user and assistant messages with their tool calls).
 */
export interface ViewParts {
  resultsAsGiven: number;
  resultsCondensed: number;
  conversation: number;
}

/** Splits the chars of `view`, made from `prompt`, into {@link ViewParts}. */
export function viewParts(view: readonly Message[], prompt: readonly Message[]): ViewParts {
  const given = new Map<string, Message>();
  for (const message of prompt) if (message.role === "tool") given.set(message.toolCallId, message);
  const parts: ViewParts = { resultsAsGiven: 0, resultsCondensed: 0, conversation: 0 };
  for (const message of view) {
    const chars = messageChars(message);
    if (message.role !== "tool") parts.conversation += chars;
    else {
      const original = given.get(message.toolCallId);
      if (original !== undefined && samePromptMessage(original, message)) parts.resultsAsGiven += chars;
      else parts.resultsCondensed += chars;
    }
  }
  return parts;
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

const callKeys = new WeakMap<ToolCall, string>();

/** The provenance of a call: its tool and the args that re-read its result. */
function callKey(call: ToolCall): string {
  let key = callKeys.get(call);
  if (key === undefined) {
    const rule = resolveToolPolicy(undefined).ruleFor(call.name);
    const args = Object.fromEntries(rule.provenanceArgs.map((name) => [name, call.args[name]]));
    key = `${call.name}:${canonicalJson(rule.provenanceArgs.length > 0 ? args : call.args)}`;
    callKeys.set(call, key);
  }
  return key;
}

export interface RetentionCount {
  /** Probes whose source result has arrived. */
  total: number;
  /** Answer verbatim (whitespace-normalised) in the view. */
  strict: number;
  /** Strict, or the view holds a call that re-reads the source: rendered (a digest's or stub's re-read line) or as a tool call the model can repeat. */
  recoverable: number;
}

/** What a view still holds of some results' probes, each probe counted in every form it is held in. */
export interface HeldCount {
  /** Probes of those results. */
  total: number;
  /** The answer verbatim (whitespace-normalised) in the view. */
  strict: number;
  /** The result is in the view as a digest or stand-in: a result of its call whose text is not the prompt's. */
  standIn: number;
  /** The view holds a re-read handle for the result: a re-read line naming its call, or the call itself. */
  handle: number;
  /** None of the three. */
  lost: number;
}

/** A probe whose answer a view does not hold verbatim, and what the view holds of its result. */
export interface MissedProbe {
  toolCallId: string;
  answer: string;
  /**
   * Where its result is: `cut` by the caps before any view (the contestant was given a result
   * without the answer), `condensed` in the view without the answer, or `absent` from the view.
   */
  result: "cut" | "condensed" | "absent";
  /** The view holds a re-read handle for the result (recoverable). */
  handle: boolean;
}

interface IndexedProbe {
  answer: string;
  toolCallId: string;
  reread?: string;
  key?: string;
}

/** One view, read lazily: its results by call id, its calls' provenance, its whole text. */
class ViewScan {
  private readonly sources = new Map<string, Message>();
  private keys: Set<string> | undefined;
  private text: string | undefined;

  constructor(private readonly view: readonly Message[]) {
    for (const message of view) if (message.role === "tool") this.sources.set(message.toolCallId, message);
  }

  source(toolCallId: string): Message | undefined {
    return this.sources.get(toolCallId);
  }

  private fullText(): string {
    this.text ??= this.view.map(normalizedTextOf).join("\n");
    return this.text;
  }

  strict(probe: IndexedProbe): boolean {
    const source = this.sources.get(probe.toolCallId);
    return (
      (source !== undefined && normalizedTextOf(source).includes(probe.answer)) ||
      this.fullText().includes(probe.answer)
    );
  }

  handle(probe: IndexedProbe): boolean {
    if (!this.keys) {
      this.keys = new Set();
      for (const message of this.view) {
        if (message.role === "assistant")
          for (const call of message.toolCalls ?? []) this.keys.add(callKey(call));
      }
    }
    return (
      (probe.key !== undefined && this.keys.has(probe.key)) ||
      (probe.reread !== undefined && this.fullText().includes(probe.reread))
    );
  }
}

/** Measures probe retention of views of one thread. */
export class ProbeIndex {
  private readonly probes: IndexedProbe[];

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
    const scan = new ViewScan(view);
    for (const probe of this.probes) {
      if (!arrived.has(probe.toolCallId)) continue;
      count.total++;
      if (scan.strict(probe)) {
        count.strict++;
        count.recoverable++;
      } else if (scan.handle(probe)) {
        count.recoverable++;
      }
    }
    return count;
  }

  /**
   * The probes among `arrived` whose answer `view`, made from `prompt`, does not hold
   * verbatim, each with where its result is and whether a re-read handle is in view.
   */
  missed(view: readonly Message[], prompt: readonly Message[], arrived: ReadonlySet<string>): MissedProbe[] {
    const scan = new ViewScan(view);
    const original = new ViewScan(prompt);
    const missed: MissedProbe[] = [];
    for (const probe of this.probes) {
      if (!arrived.has(probe.toolCallId) || scan.strict(probe)) continue;
      const given = original.source(probe.toolCallId);
      const result =
        given !== undefined && !normalizedTextOf(given).includes(probe.answer)
          ? "cut"
          : scan.source(probe.toolCallId) !== undefined
            ? "condensed"
            : "absent";
      missed.push({ toolCallId: probe.toolCallId, answer: probe.answer, result, handle: scan.handle(probe) });
    }
    return missed;
  }

  /**
   * What `view`, made from `prompt`, holds of the probes of the results `ids` (tool call
   * ids): the answer verbatim, the result as a digest or stand-in (the view's result of
   * the call differs from the prompt's), a re-read handle.
   */
  held(view: readonly Message[], prompt: readonly Message[], ids: ReadonlySet<string>): HeldCount {
    const count: HeldCount = { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 };
    const scan = new ViewScan(view);
    const original = new ViewScan(prompt);
    for (const probe of this.probes) {
      if (!ids.has(probe.toolCallId)) continue;
      count.total++;
      const strict = scan.strict(probe);
      const shown = scan.source(probe.toolCallId);
      const given = original.source(probe.toolCallId);
      const standIn =
        shown !== undefined && (given === undefined || normalizedTextOf(shown) !== normalizedTextOf(given));
      const handle = scan.handle(probe);
      if (strict) count.strict++;
      if (standIn) count.standIn++;
      if (handle) count.handle++;
      if (!strict && !standIn && !handle) count.lost++;
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
