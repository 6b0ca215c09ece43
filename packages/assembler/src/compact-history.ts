import { contentChars, contentText } from "./content";
import { blockSnapshot, canonicalArgs, sameBlocks } from "./hash";
import { COMPACTION_NOTE_PREFIX } from "./stubs";
import type { Message, ToolMessage, UserMessage } from "./types";

/** Defaults of the history-compaction backstop (docs/architecture.md#assembly). */
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
   * references: the referenced-by-window keep-rule); an exchange holding one is kept whole.
   */
  pinned?: (index: number) => boolean;
  /**
   * Per stub index, the index of the later result it points to ("identical to … below",
   * "retried … below"), from the assembly's own stub decisions: a kept stub keeps its target.
   */
  stubTargets?: ReadonlyMap<number, number>;
  /**
   * A condensed stand-in for a pinned result before the recency wall (its digest, or a stub
   * naming its re-read call), used only when dropping every unpinned exchange does not fit
   * the budget; undefined keeps the result as it is.
   */
  condense?: (index: number) => Message | undefined;
}

export interface CompactionResult {
  messages: readonly Message[];
  /** Whether anything was dropped or condensed. */
  fired: boolean;
  droppedMessages: number;
  /** Pinned results replaced by their condensed stand-in. */
  condensedResults: number;
  /**
   * True when the view is still over the budget: what the backstop never removes (the
   * recency wall, system messages and notes, with this pass's note header) exceeds it.
   */
  wallExceedsBudget: boolean;
}

const charsByMessage = new WeakMap<
  object,
  { content: unknown; blocks: ReturnType<typeof blockSnapshot>; toolCalls: unknown; chars: number }
>();

/**
 * Chars a message puts in the prompt: its content plus its tool-call args. Cached per
 * message object (like the hash), so a turn's repeated assemblies don't re-serialize args;
 * content replaced on the object, or blocks edited in place, are counted again.
 */
export function messageChars(message: Message): number {
  const toolCalls = message.role === "assistant" ? message.toolCalls : undefined;
  if (typeof message.content === "string" && !toolCalls) return message.content.length;
  const cached = charsByMessage.get(message);
  if (
    cached !== undefined &&
    cached.content === message.content &&
    cached.toolCalls === toolCalls &&
    sameBlocks(message.content, cached.blocks)
  ) {
    return cached.chars;
  }
  let chars = contentChars(message.content);
  if (toolCalls) {
    for (const call of toolCalls) chars += call.name.length + canonicalArgs(call).length;
  }
  charsByMessage.set(message, {
    content: message.content,
    blocks: blockSnapshot(message.content),
    toolCalls,
    chars,
  });
  return chars;
}

const NOTE_HEADER_CHARS = 160;

function noteHeader(droppedCount: number): string {
  return `${COMPACTION_NOTE_PREFIX}: ${droppedCount} earlier messages were left out to fit the history budget. Snippets:]`;
}

const NOTE_HEADER = new RegExp(
  `^${noteHeader(0)
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(": 0 ", ": \\d+ ")}(?:\n|$)`,
);

/** A note an earlier pass wrote: its exact header, and no longer than a note can be. */
function isCompactionNote(message: Message, noteMaxChars: number): boolean {
  return (
    message.role === "user" &&
    typeof message.content === "string" &&
    message.content.length <= noteMaxChars &&
    NOTE_HEADER.test(message.content)
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

/** The note: its header, then a snippet per dropped message while `maxChars` allows. */
function renderNote(
  messages: readonly Message[],
  dropped: Uint8Array,
  droppedCount: number,
  snippetChars: number,
  maxChars: number,
): string {
  const header = noteHeader(droppedCount);
  const lines = [header];
  let chars = header.length;
  let seen = 0;
  for (let index = 0; index < messages.length && seen < droppedCount; index++) {
    if (dropped[index] !== 1) continue;
    const line = snippet(messages[index] as Message, snippetChars);
    const tail = `- … and ${droppedCount - seen} more`;
    if (chars + 1 + line.length + 1 + tail.length > maxChars) {
      if (chars + 1 + tail.length <= maxChars) lines.push(tail);
      break;
    }
    lines.push(line);
    chars += 1 + line.length;
    seen++;
  }
  return lines.join("\n");
}

/**
 * The history-compaction backstop: past `historyBudgetChars`, makes the view fit, in this
 * order, touching the recency wall never:
 * 1. drops the oldest whole units before the wall (see {@link exchangeUnits}) that hold
 *    no pinned message, and puts one note of short snippets where the first one was;
 * 2. condenses pinned results before the wall, oldest first, to the stand-in
 *    `hints.condense` gives (their digest, or a stub naming their re-read call);
 * 3. drops the oldest units holding pinned results.
 * The note counts toward the budget. The view fits unless what is never removed (the wall,
 * system messages, earlier notes) leaves no room: then `wallExceedsBudget` is true.
 *
 * @param hints What must stay: pinned messages and the targets of kept stubs (text that
 * merely looks like a stub pins nothing), and how to condense a pinned result.
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
  const unchanged = (wallExceedsBudget: boolean): CompactionResult => ({
    messages,
    fired: false,
    droppedMessages: 0,
    condensedResults: 0,
    wallExceedsBudget,
  });
  if (total <= budget) return unchanged(false);

  const { pinned, stubTargets, condense } = hints;
  const { units, unitOf } = exchangeUnits(messages);
  // fixed: units never removed (any member in the wall, system messages, earlier notes);
  // held: units holding a pinned message. Each also holds, transitively, the units of what
  // its stubs point to ("identical to … below", "retried … below").
  const fixed = new Uint8Array(units.length);
  const held = new Uint8Array(units.length);
  const close = (marks: Uint8Array) => {
    const pending: number[] = [];
    marks.forEach((mark, unit) => {
      if (mark === 1) pending.push(unit);
    });
    for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
      for (const member of units[next] as number[]) {
        const target = stubTargets?.get(member);
        if (target === undefined || target <= member) continue;
        const unit = unitOf[target] as number;
        if (marks[unit] === 1) continue;
        marks[unit] = 1;
        pending.push(unit);
      }
    }
  };
  units.forEach((members, unit) => {
    const first = messages[members[0] as number] as Message;
    if (
      (members.at(-1) as number) >= wallStart ||
      first.role === "system" ||
      isCompactionNote(first, noteMaxChars)
    ) {
      fixed[unit] = 1;
      held[unit] = 1;
    } else if (members.some((member) => pinned?.(member) ?? false)) {
      held[unit] = 1;
    }
  });
  close(fixed);
  close(held);

  const dropped = new Uint8Array(messages.length);
  let droppedCount = 0;
  // With `room`, the note may hold a snippet per dropped message (up to noteMaxChars); without,
  // it is its header alone.
  const fits = (room = false) =>
    droppedCount === 0
      ? total <= budget
      : total +
          (room
            ? Math.min(noteMaxChars, NOTE_HEADER_CHARS + droppedCount * (snippetChars + 1))
            : noteHeader(droppedCount).length) <=
        budget;
  const drop = (unit: number) => {
    for (const member of units[unit] as number[]) {
      dropped[member] = 1;
      total -= sizes[member] as number;
      droppedCount++;
    }
  };
  /** Drops the oldest units that `keep` does not keep until the view fits. */
  const dropOldest = (keep: Uint8Array, room: boolean) => {
    for (let unit = 0; unit < units.length && !fits(room); unit++) {
      if ((units[unit]?.[0] as number) >= wallStart) break;
      if (keep[unit] === 0 && dropped[units[unit]?.[0] as number] === 0) drop(unit);
    }
    // A kept stub whose target went with an earlier-starting interleaved unit goes too.
    for (let changed = (stubTargets?.size ?? 0) > 0; changed; ) {
      changed = false;
      for (const [stub, target] of stubTargets ?? []) {
        const unit = unitOf[stub] as number;
        if (dropped[stub] === 0 && dropped[target] === 1 && fixed[unit] === 0) {
          drop(unit);
          changed = true;
        }
      }
    }
  };

  dropOldest(held, true);
  const condensed = new Map<number, Message>();
  if (!fits() && condense) {
    for (let index = 0; index < wallStart && !fits(); index++) {
      if (dropped[index] === 1 || !(pinned?.(index) ?? false)) continue;
      const standIn = condense(index);
      if (standIn === undefined) continue;
      const size = messageChars(standIn);
      if (size >= (sizes[index] as number)) continue;
      condensed.set(index, standIn);
      total -= (sizes[index] as number) - size;
      sizes[index] = size;
    }
  }
  if (!fits()) dropOldest(fixed, false);
  if (droppedCount === 0 && condensed.size === 0) return unchanged(!fits());

  const view = messages.map((message, index) => condensed.get(index) ?? message);
  const result: Message[] = [];
  let condensedResults = 0;
  if (droppedCount > 0) {
    const note: UserMessage = {
      role: "user",
      content: renderNote(view, dropped, droppedCount, snippetChars, Math.min(noteMaxChars, budget - total)),
    };
    total += note.content.length;
    const firstDropped = dropped.indexOf(1);
    view.forEach((message, position) => {
      if (position === firstDropped) result.push(note);
      if (dropped[position] === 1) return;
      result.push(message);
      if (condensed.has(position)) condensedResults++;
    });
  } else {
    result.push(...view);
    condensedResults = condensed.size;
  }
  return {
    messages: result,
    fired: true,
    droppedMessages: droppedCount,
    condensedResults,
    wallExceedsBudget: total > budget,
  };
}
