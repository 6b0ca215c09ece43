import type { Message, MessageContent } from "../types";

/** A pairing a message's content blocks name beyond its tool calls (see {@link contentPairings}). */
type Pairing =
  /** A server tool call's key: every message naming it, and every message between them, share one unit. */
  | { kind: "server"; key: string }
  /** A key every message naming it shares one unit by. */
  | { kind: "key"; key: string }
  /** An approval response: joins its request's message, else (no request in the thread) the latest assistant message. */
  | { kind: "answer"; key: string }
  /** A tool call id an approval request is for: joins the message of that call. */
  | { kind: "call"; id: string };

const NO_PAIRINGS: readonly Pairing[] = [];

/** The key of a server tool call's id: its call and result blocks, and the calls it issues, share it. */
const serverKey = (id: string) => `server:${id}`;

/**
 * What pairs beyond tool calls and results, read from content blocks as the provider
 * formats carry them in the neutral model:
 * - a server tool's call and result: Anthropic `server_tool_use` / `mcp_tool_use` (`id`)
 *   and every `*_tool_result` block (`tool_use_id`: `web_search_tool_result`,
 *   `code_execution_tool_result`, `mcp_tool_result`, …); AI SDK `tool-call` / `tool-result`
 *   parts left in content (provider-executed, `toolCallId`); LangChain `server_tool_call`
 *   (`id`) / `server_tool_call_result` (`toolCallId`);
 * - an AI SDK tool approval: `tool-approval-request` (`approvalId`, and the `toolCallId` it
 *   is for) and `tool-approval-response` (`approvalId`).
 */
export function contentPairings(content: MessageContent): readonly Pairing[] {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent — a string's chars pair nothing
  if (typeof content === "string") return NO_PAIRINGS;
  let found: Pairing[] | undefined;
  const add = (pairing: Pairing) => {
    found ??= [];
    found.push(pairing);
  };
  for (const block of content) {
    const { type } = block;
    // A neutral block's type is not checked: one without a string type names nothing.
    if (typeof type !== "string") continue;
    const id = block.id;
    const callId = block.toolCallId;
    const approvalId = block.approvalId;
    if (type === "server_tool_use" || type === "mcp_tool_use" || type === "server_tool_call") {
      if (typeof id === "string") add({ kind: "server", key: serverKey(id) });
    } else if (type === "tool-call" || type === "tool-result" || type === "server_tool_call_result") {
      if (typeof callId === "string") add({ kind: "server", key: serverKey(callId) });
    } else if (type === "tool-approval-request") {
      if (typeof approvalId === "string") add({ kind: "key", key: `approval:${approvalId}` });
      // Stryker disable next-line ConditionalExpression: equivalent — every call and pairing has a string id
      if (typeof callId === "string") add({ kind: "call", id: callId });
    } else if (type === "tool-approval-response") {
      if (typeof approvalId === "string") add({ kind: "answer", key: `approval:${approvalId}` });
    } else if (type.endsWith("_tool_result") && typeof block.tool_use_id === "string") {
      // A server tool's result block: a client tool's `tool_result` is none (it pairs by its message's tool call id).
      add({ kind: "server", key: serverKey(block.tool_use_id) });
    }
  }
  return found ?? NO_PAIRINGS;
}

/**
 * The units the backstop drops whole, kept for a growing thread: the connected components
 * of tool calls and their results (union-find over assistant messages and results: a
 * result joins the assistant whose call it answers, the nearest earlier one with that id,
 * else the first later one), and every other message alone. A unit is named by its root,
 * its first member, and lists its members in order. `A(b1,b2) b1 A'(a1) a1 b2` is two
 * units, {A, b1, b2} and {A', a1}, so dropping A' never takes b2 away from its call.
 *
 * What the content blocks pair beyond that ({@link contentPairings}) joins units too: a
 * server tool call and its result (one message, or the two of a paused turn), an approval
 * request with its call and its response (a response whose request the thread does not
 * hold, as in a language-model prompt, joins the latest assistant message before it). A
 * server tool call also joins the tool calls it issued (their `issuedBy`, as code execution
 * calls client tools), and every message from its first naming to its latest one: a run
 * whose result comes messages later keeps the whole exchange between.
 */
export class UnitIndex {
  private readonly parent: number[] = [];
  /** Per root of a unit with several members, its members in order. */
  private readonly membersAt = new Map<number, number[]>();
  private readonly latestCaller = new Map<string, number>();
  /** Results of an id no call has been made for yet, waiting for the first one. */
  private readonly waiting = new Map<string, number[]>();
  /** Per pairing key, the first message naming it. */
  private readonly keyHolder = new Map<string, number>();
  /** Per server key, the latest message naming it: every message from its holder up to it is in the holder's unit. */
  private readonly spanEnd = new Map<string, number>();
  private latestAssistantAt = -1;
  /** The latest assistant message before the latest user message; undefined before any user message. */
  private assistantBeforeUser: number | undefined;

  get length(): number {
    return this.parent.length;
  }

  /**
   * The latest assistant message before the thread's latest user message (the message the
   * turn follows on), or the latest one when there is no user message; -1 when there is
   * none. A later assistant message is in the recency wall, which starts at the latest user
   * message at the latest, so this and the wall hold the latest assistant message on every
   * call of a turn.
   */
  get turnOpeningAssistant(): number {
    return this.assistantBeforeUser ?? this.latestAssistantAt;
  }

  append(message: Message): void {
    const index = this.parent.length;
    this.parent.push(index);
    if (message.role === "assistant") {
      // Stryker disable next-line ArrayDeclaration: no tool calls, no call id to match
      for (const call of message.toolCalls ?? []) {
        if (call.issuedBy !== undefined) this.pair(index, { kind: "server", key: serverKey(call.issuedBy) });
        const first = !this.latestCaller.has(call.id);
        this.latestCaller.set(call.id, index);
        // Stryker disable next-line ConditionalExpression: a shortcut; the first call took them
        if (!first) continue;
        for (const result of this.waiting.get(call.id) ?? []) this.union(index, result);
        this.waiting.delete(call.id);
      }
    } else if (message.role === "tool") {
      const caller = this.latestCaller.get(message.toolCallId);
      if (caller !== undefined) this.union(caller, index);
      else {
        const waiting = this.waiting.get(message.toolCallId);
        if (waiting) waiting.push(index);
        else this.waiting.set(message.toolCallId, [index]);
      }
    }
    for (const pairing of contentPairings(message.content)) this.pair(index, pairing);
    if (message.role === "assistant") this.latestAssistantAt = index;
    else if (message.role === "user") this.assistantBeforeUser = this.latestAssistantAt;
  }

  private pair(index: number, pairing: Pairing): void {
    if (pairing.kind === "call") {
      const caller = this.latestCaller.get(pairing.id) ?? this.keyHolder.get(serverKey(pairing.id));
      if (caller !== undefined) this.union(caller, index);
      return;
    }
    const holder = this.keyHolder.get(pairing.key);
    if (holder === undefined) {
      this.keyHolder.set(pairing.key, index);
      if (pairing.kind === "answer" && this.latestAssistantAt >= 0) this.union(this.latestAssistantAt, index);
    } else if (pairing.kind === "server") {
      // Each message joins once per key: the span grows from where it last ended.
      for (let at = (this.spanEnd.get(pairing.key) ?? holder) + 1; at <= index; at++) this.union(holder, at);
      this.spanEnd.set(pairing.key, index);
    } else this.union(holder, index);
  }

  /** The root (first member) of the unit holding `index`. */
  unitOf(index: number): number {
    let root = index;
    while (this.parent[root] !== root) root = this.parent[root] as number;
    // Stryker disable next-line ConditionalExpression: path compression only shortens later finds
    for (let at = index; this.parent[at] !== root; ) {
      const next = this.parent[at] as number;
      this.parent[at] = root;
      at = next;
    }
    return root;
  }

  isUnit(index: number): boolean {
    return this.parent[index] === index;
  }

  /** The members of the unit whose root is `root`, in order. */
  members(root: number): readonly number[] {
    return this.membersAt.get(root) ?? [root];
  }

  /** The last member of the unit whose root is `root`. */
  lastMember(root: number): number {
    return this.membersAt.get(root)?.at(-1) ?? root;
  }

  // The smaller root wins, so every root is the first member of its unit.
  private union(left: number, right: number): void {
    const [a, b] = [this.unitOf(left), this.unitOf(right)];
    // Already one unit: a pairing within one message, or between messages a call already joined.
    if (a === b) return;
    const [root, other] = a < b ? [a, b] : [b, a];
    this.parent[other] = root;
    const merged = mergeAscending(this.membersAt.get(root) ?? [root], this.membersAt.get(other) ?? [other]);
    this.membersAt.set(root, merged);
    this.membersAt.delete(other);
  }
}

function mergeAscending(left: number[], right: number[]): number[] {
  // Stryker disable next-line BlockStatement: a shortcut; the merge below gives the same order
  if ((left.at(-1) as number) < (right[0] as number)) {
    for (const index of right) left.push(index);
    return left;
  }
  const merged: number[] = [];
  let [i, j] = [0, 0];
  while (i < left.length || j < right.length) {
    if (j >= right.length || (i < left.length && (left[i] as number) < (right[j] as number)))
      merged.push(left[i++] as number);
    else merged.push(right[j++] as number);
  }
  return merged;
}

/** The exchange units of a whole thread (see {@link UnitIndex}). */
export function indexUnits(messages: readonly Message[]): UnitIndex {
  const units = new UnitIndex();
  for (const message of messages) units.append(message);
  return units;
}
