import { contentChars, contentText } from "./content";
import { canonicalArgs } from "./hash";
import { COMPACTION_NOTE_PREFIX } from "./stubs";
import type { Message, UserMessage } from "./types";

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

/** End (exclusive) of the unit starting at `index`: an assistant message with its tool results, or one message. */
function unitEnd(messages: readonly Message[], index: number): number {
  const role = messages[index]?.role;
  let end = index + 1;
  if (role === "assistant" || role === "tool") {
    while (end < messages.length && messages[end]?.role === "tool") end++;
  }
  return end;
}

/**
 * Whether a unit can go without breaking tool-call pairing: tool results alone never go
 * (their call stays elsewhere), and an assistant goes only with every result of its calls.
 */
function isWholeExchange(
  messages: readonly Message[],
  start: number,
  end: number,
  lastResultAt: ReadonlyMap<string, number>,
): boolean {
  const head = messages[start] as Message;
  if (head.role === "tool") return false;
  if (head.role !== "assistant" || !head.toolCalls) return true;
  return head.toolCalls.every((call) => (lastResultAt.get(call.id) ?? start) < end);
}

function isPinned(start: number, end: number, pinned: (index: number) => boolean): boolean {
  for (let index = start; index < end; index++) if (pinned(index)) return true;
  return false;
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
  const lastResultAt = new Map<string, number>();
  messages.forEach((message, position) => {
    if (message.role === "tool" && message.toolCallId !== "") lastResultAt.set(message.toolCallId, position);
  });
  const stubPins = new Set<number>();
  const dropped = new Uint8Array(messages.length);
  let droppedCount = 0;
  let firstDropped = -1;
  let index = 0;
  while (index < wallStart) {
    const message = messages[index] as Message;
    if (message.role === "system" || isCompactionNote(message)) {
      index++;
      continue;
    }
    const end = unitEnd(messages, index);
    if (end > wallStart) break;
    // Stop once the kept messages and the note (at most a snippet per dropped message) fit.
    if (
      droppedCount > 0 &&
      total + Math.min(noteMaxChars, NOTE_HEADER_CHARS + droppedCount * (snippetChars + 1)) <= budget
    ) {
      break;
    }
    if (
      isWholeExchange(messages, index, end, lastResultAt) &&
      !isPinned(index, end, (member) => stubPins.has(member) || (pinned?.(member) ?? false))
    ) {
      if (firstDropped === -1) firstDropped = index;
      for (let member = index; member < end; member++) {
        dropped[member] = 1;
        total -= sizes[member] as number;
      }
      droppedCount += end - index;
    } else {
      // A kept stub keeps what it points to ("identical to … below", "retried … below").
      for (let member = index; member < end; member++) {
        const target = stubTargets?.get(member);
        if (target !== undefined && target > member) stubPins.add(target);
      }
    }
    index = end;
  }
  if (droppedCount === 0) return { messages, fired: false, droppedMessages: 0 };

  const note: UserMessage = {
    role: "user",
    content: renderNote(messages, dropped, droppedCount, snippetChars, noteMaxChars),
  };
  const result: Message[] = [];
  for (let position = 0; position < messages.length; position++) {
    if (position === firstDropped) result.push(note);
    if (dropped[position] !== 1) result.push(messages[position] as Message);
  }
  return { messages: result, fired: true, droppedMessages: droppedCount };
}
