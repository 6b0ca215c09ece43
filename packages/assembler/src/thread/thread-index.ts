import { canonicalJson } from "../contract/hash";
import type { Message, ToolCall, ToolMessage } from "../types";

/** Where each tool call of a thread was made, for looking up a result's args. */
export interface ThreadIndex {
  /** The call a tool result answers: the nearest earlier call with its (non-empty) id. */
  callFor(message: ToolMessage): ToolCall | undefined;
}

/** A call, with {@link canonicalJson} of its args. */
interface CallEntry {
  readonly call: ToolCall;
  readonly argsJson: string;
}

/**
 * The calls of a growing thread, message by message: each result at a position pairs with
 * the nearest earlier call of its (non-empty) id, so a thread whose model reused an id
 * still gets each result's own args (and a true re-read call). A result no earlier call
 * answers pairs with the latest call of its id in the whole thread, if any.
 */
export class CallIndex implements ThreadIndex {
  private readonly messages: Message[] = [];
  private readonly latestById = new Map<string, CallEntry>();
  /** Per position, the nearest earlier call of a result's id (undefined for other messages). */
  private readonly nearest: (CallEntry | undefined)[] = [];
  /** Per position, the chars the message's tool calls put in the prompt: names and args (canonical JSON). */
  private readonly callChars: number[] = [];
  /** Per id, the first position of a result that no earlier call answered. */
  private readonly unansweredSince = new Map<string, number>();
  /** Per non-empty id, the positions of the results carrying it. */
  private readonly resultsById = new Map<string, number[]>();
  /** The non-empty ids two or more results carry, in the order they became shared. */
  readonly sharedIds: string[] = [];
  private lastPositions: Map<Message, number> | undefined;

  get length(): number {
    return this.messages.length;
  }

  /**
   * Takes in the next message. Returns false when it is a call whose id an earlier
   * unanswered result carries, at or before `settledBefore`: that result now pairs with
   * this call, so what was derived from its earlier pairing is out of date.
   */
  append(message: Message, settledBefore = Number.POSITIVE_INFINITY): boolean {
    const position = this.messages.length;
    this.messages.push(message);
    this.lastPositions?.set(message, position);
    let settled = true;
    let entry: CallEntry | undefined;
    let callChars = 0;
    if (message.role === "assistant" && message.toolCalls) {
      for (const call of message.toolCalls) {
        const json = canonicalJson(call.args);
        callChars += call.name.length + json.length;
        if (call.id === "") continue;
        this.latestById.set(call.id, { call, argsJson: json });
        if ((this.unansweredSince.get(call.id) ?? Number.POSITIVE_INFINITY) < settledBefore) settled = false;
      }
    } else if (message.role === "tool" && message.toolCallId !== "") {
      const results = this.resultsById.get(message.toolCallId);
      if (results === undefined) this.resultsById.set(message.toolCallId, [position]);
      else if (results.push(position) === 2) this.sharedIds.push(message.toolCallId);
      entry = this.latestById.get(message.toolCallId);
      if (entry === undefined && !this.unansweredSince.has(message.toolCallId)) {
        this.unansweredSince.set(message.toolCallId, position);
      }
    }
    this.nearest.push(entry);
    this.callChars.push(callChars);
    return settled;
  }

  private entryAt(position: number): CallEntry | undefined {
    const entry = this.nearest[position];
    if (entry !== undefined) return entry;
    const message = this.messages[position];
    if (message?.role !== "tool" || message.toolCallId === "") return undefined;
    return this.latestById.get(message.toolCallId);
  }

  /** The call the tool result at `position` answers. */
  callAt(position: number): ToolCall | undefined {
    return this.entryAt(position)?.call;
  }

  /** {@link canonicalJson} of the args of the call the tool result at `position` answers. */
  callArgsJsonAt(position: number): string | undefined {
    return this.entryAt(position)?.argsJson;
  }

  /** The chars the tool calls of the message at `position` put in the prompt (names and canonical args). */
  callCharsAt(position: number): number {
    return this.callChars[position] ?? 0;
  }

  /**
   * The positions of the results carrying the non-empty tool call id `id`, in order. Two
   * or more: the id is shared, and no result carrying it is condensed or re-read by id.
   */
  resultsOf(id: string): readonly number[] {
    return this.resultsById.get(id) ?? [];
  }

  /** Whether the result at `position` carries a non-empty tool call id another result of the thread carries too. */
  sharesResultId(position: number): boolean {
    const message = this.messages[position];
    return message?.role === "tool" && this.resultsOf(message.toolCallId).length > 1;
  }

  /** The call a tool result answers, found by its last position in the thread. */
  callFor(message: ToolMessage): ToolCall | undefined {
    if (message.toolCallId === "") return undefined;
    if (this.lastPositions === undefined) {
      const positions = new Map<Message, number>();
      this.messages.forEach((each, position) => {
        positions.set(each, position);
      });
      this.lastPositions = positions;
    }
    const position = this.lastPositions.get(message);
    return position === undefined ? this.latestById.get(message.toolCallId)?.call : this.callAt(position);
  }
}

/**
 * Pairs each tool result with the nearest earlier call of the same id (see
 * {@link CallIndex}).
 */
export function indexThread(messages: readonly Message[]): CallIndex {
  const index = new CallIndex();
  for (const message of messages) index.append(message);
  return index;
}
