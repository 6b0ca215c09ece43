import { contentChars, contentText } from "./content";
import { canonicalArgs } from "./hash";
import { COMPACTION_NOTE_PREFIX } from "./stubs";
import type { Message, ToolMessage, UserMessage } from "./types";

/** Defaults of the history-compaction backstop (DESIGN §7 step 5). */
export const COMPACTION_DEFAULTS = {
  /** Past this many chars, the oldest whole exchanges are dropped. */
  historyBudgetChars: 320_000,
  /** Each dropped message is remembered by a snippet of at most this many chars. */
  snippetChars: 300,
  /** The note standing for dropped history never exceeds this many chars. */
  noteMaxChars: 12_000,
} as const;

export interface CompactionOptions {
  /** @default 320000 */
  historyBudgetChars?: number;
  /** @default 300 */
  snippetChars?: number;
  /** @default 12000 */
  noteMaxChars?: number;
}

/** What the assembler knows of a view that the backstop must respect. */
export interface CompactionHints {
  /**
   * Messages that must not be dropped (the assembler pins results the recency window
   * references, keep-rule 6); an exchange holding one is kept whole.
   */
  pinned?: (index: number) => boolean;
  /**
   * Per stub index, the index of the later result it points to ("identical to … below",
   * "retried … below"), from the assembly's own stub decisions: a kept stub keeps its target.
   */
  stubTargets?: ReadonlyMap<number, number>;
}

export interface CompactionResult {
  messages: readonly Message[];
  fired: boolean;
  droppedMessages: number;
}

const charsByMessage = new WeakMap<object, { content: unknown; toolCalls: unknown; chars: number }>();

/**
 * Chars a message puts in the prompt: its content plus its tool-call args. Cached per
 * message object (like the hash), so a turn's repeated assemblies don't re-serialize args.
 */
export function messageChars(message: Message): number {
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  if (typeof message.content === "string" && !toolCalls) return message.content.length;
  const cached = charsByMessage.get(message);
  if (cached !== undefined && cached.content === message.content && cached.toolCalls === toolCalls) {
    return cached.chars;
  }
  let chars = contentChars(message.content);
  if (toolCalls) {
    for (const call of toolCalls) chars += call.name.length + canonicalArgs(call).length;
  }
  charsByMessage.set(message, { content: message.content, toolCalls, chars });
  return chars;
}

const NOTE_HEADER_CHARS = 160;

function isCompactionNote(message: Message): boolean {
  return (
    message.role === "user" &&
    typeof message.content === "string" &&
    message.content.startsWith(COMPACTION_NOTE_PREFIX)
  );
}

/**
 * The units the backstop drops whole: the connected components of tool calls and their
 * results (union-find over assistant messages and results: a result joins the assistant
 * whose call it answers, the nearest earlier one with that id, else the first later one),
 * and every other message alone. Units come in the order of their first member, each
 * listing its members in order. `A(b1,b2) b1 A'(a1) a1 b2` is two units, {A, b1, b2} and
 * {A', a1}, so dropping A' never takes b2 away from its call.
 */
function exchangeUnits(messages: readonly Message[]): { units: number[][]; unitOf: Int32Array } {
  const parent = Int32Array.from(messages, (_, index) => index);
  const find = (index: number): number => {
    let root = index;
    while (parent[root] !== root) root = parent[root] as number;
    for (let at = index; parent[at] !== root; ) {
      const next = parent[at] as number;
      parent[at] = root;
      at = next;
    }
    return root;
  };
  // The smaller root wins, so every root is the first member of its unit.
  const union = (left: number, right: number) => {
    const [a, b] = [find(left), find(right)];
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  };
  const latestCaller = new Map<string, number>();
  const unanswered: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) latestCaller.set(call.id, index);
    } else if (message.role === "tool") {
      const caller = latestCaller.get(message.toolCallId);
      if (caller !== undefined) union(caller, index);
      else unanswered.push(index);
    }
  });
  if (unanswered.length > 0) {
    const firstCaller = new Map<string, number>();
    messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      for (const call of message.toolCalls ?? [])
        if (!firstCaller.has(call.id)) firstCaller.set(call.id, index);
    });
    for (const index of unanswered) {
      const caller = firstCaller.get((messages[index] as ToolMessage).toolCallId);
      if (caller !== undefined) union(caller, index);
    }
  }
  const units: number[][] = [];
  const unitOf = new Int32Array(messages.length);
  const unitAtRoot = new Map<number, number>();
  for (let index = 0; index < messages.length; index++) {
    const root = find(index);
    let unit = unitAtRoot.get(root);
    if (unit === undefined) {
      unit = units.length;
      unitAtRoot.set(root, unit);
      units.push([]);
    }
    (units[unit] as number[]).push(index);
    unitOf[index] = unit;
  }
  return { units, unitOf };
}

function snippet(message: Message, maxChars: number): string {
  const label =
    message.role === "tool"
      ? `tool ${message.toolName}`
      : message.role === "assistant" && message.toolCalls?.length
        ? `assistant (called ${message.toolCalls.map((call) => call.name).join(", ")})`
        : message.role;
  // Collapse whitespace over a growing prefix only: once the line overflows, the rest of
  // a long page cannot change the first maxChars - 1 chars (the result is the same bytes).
  const full = contentText(message.content);
  let line = "";
  for (let prefixChars = 2 * maxChars; ; prefixChars *= 2) {
    const text = full.slice(0, prefixChars).replace(/\s+/g, " ").trim();
    line = `- ${label}: ${text}`;
    if (line.length > maxChars || prefixChars >= full.length) break;
  }
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

function renderNote(
  messages: readonly Message[],
  dropped: Uint8Array,
  droppedCount: number,
  snippetChars: number,
  noteMaxChars: number,
): string {
  const header = `${COMPACTION_NOTE_PREFIX}: ${droppedCount} earlier messages were left out to fit the history budget. Snippets:]`;
  const lines = [header];
  let chars = header.length;
  let seen = 0;
  for (let index = 0; index < messages.length && seen < droppedCount; index++) {
    if (dropped[index] !== 1) continue;
    const line = snippet(messages[index] as Message, snippetChars);
    const tail = `- … and ${droppedCount - seen} more`;
    if (chars + 1 + line.length + 1 + tail.length > noteMaxChars) {
      lines.push(tail);
      break;
    }
    lines.push(line);
    chars += 1 + line.length;
    seen++;
  }
  return lines.join("\n");
}

/**
 * The history-compaction backstop: past `historyBudgetChars`, drops the oldest whole
 * exchanges before the recency wall and puts one note of short snippets in their place.
 * Never splits a tool-call exchange, never drops system messages or the wall.
 *
 * @param hints What must stay: pinned messages and the targets of kept stubs. Text that
 * merely looks like a stub pins nothing.
 */
export function compactHistory(
  messages: readonly Message[],
  wallStart: number,
  options: CompactionOptions = {},
  hints: CompactionHints = {},
): CompactionResult {
  const budget = options.historyBudgetChars ?? COMPACTION_DEFAULTS.historyBudgetChars;
  const snippetChars = options.snippetChars ?? COMPACTION_DEFAULTS.snippetChars;
  const noteMaxChars = options.noteMaxChars ?? COMPACTION_DEFAULTS.noteMaxChars;
  const sizes = new Array<number>(messages.length);
  let total = 0;
  for (let index = 0; index < messages.length; index++) {
    const size = messageChars(messages[index] as Message);
    sizes[index] = size;
    total += size;
  }
  if (total <= budget) return { messages, fired: false, droppedMessages: 0 };

  const { pinned, stubTargets } = hints;
  const { units, unitOf } = exchangeUnits(messages);
  // Units that stay whatever the budget: the wall (any member in it), system messages,
  // earlier notes, units holding a pinned message, and, transitively, the units holding
  // what a stub in a staying unit points to.
  const staying = new Uint8Array(units.length);
  const pending: number[] = [];
  units.forEach((members, unit) => {
    const first = messages[members[0] as number] as Message;
    if (
      (members.at(-1) as number) >= wallStart ||
      first.role === "system" ||
      isCompactionNote(first) ||
      members.some((member) => pinned?.(member) ?? false)
    ) {
      staying[unit] = 1;
      pending.push(unit);
    }
  });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const member of units[next] as number[]) {
      const target = stubTargets?.get(member);
      if (target === undefined || target <= member) continue;
      const unit = unitOf[target] as number;
      if (staying[unit] === 1) continue;
      staying[unit] = 1;
      pending.push(unit);
    }
  }

  const dropped = new Uint8Array(messages.length);
  let droppedCount = 0;
  const drop = (unit: number) => {
    for (const member of units[unit] as number[]) {
      dropped[member] = 1;
      total -= sizes[member] as number;
      droppedCount++;
    }
  };
  for (let unit = 0; unit < units.length; unit++) {
    if ((units[unit]?.[0] as number) >= wallStart) break;
    if (staying[unit] === 1) continue;
    // Stop once the kept messages and the note (at most a snippet per dropped message) fit.
    if (
      droppedCount > 0 &&
      total + Math.min(noteMaxChars, NOTE_HEADER_CHARS + droppedCount * (snippetChars + 1)) <= budget
    ) {
      break;
    }
    drop(unit);
  }
  // A kept stub whose target went with an earlier-starting unit goes too.
  for (let changed = droppedCount > 0 && (stubTargets?.size ?? 0) > 0; changed; ) {
    changed = false;
    for (const [stub, target] of stubTargets ?? []) {
      const unit = unitOf[stub] as number;
      if (dropped[stub] === 0 && dropped[target] === 1 && staying[unit] === 0) {
        drop(unit);
        changed = true;
      }
    }
  }
  if (droppedCount === 0) return { messages, fired: false, droppedMessages: 0 };

  const note: UserMessage = {
    role: "user",
    content: renderNote(messages, dropped, droppedCount, snippetChars, noteMaxChars),
  };
  const firstDropped = dropped.indexOf(1);
  const result: Message[] = [];
  for (let position = 0; position < messages.length; position++) {
    if (position === firstDropped) result.push(note);
    if (dropped[position] !== 1) result.push(messages[position] as Message);
  }
  return { messages: result, fired: true, droppedMessages: droppedCount };
}
