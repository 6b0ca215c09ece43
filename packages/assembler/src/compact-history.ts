import { contentChars, contentText } from "./content";
import { canonicalArgs } from "./hash";
import { COMPACTION_NOTE_PREFIX, DUPLICATE_PREFIX, ERROR_PREFIX } from "./stubs";
import type { Message, UserMessage } from "./types";

/**
 * Defaults of the history-compaction backstop, the last step of assembly
 * (docs/architecture.md#assembly).
 */
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

function startsWith(content: Message["content"], prefix: string): boolean {
  return typeof content === "string" && content.startsWith(prefix);
}

/**
 * The later result a stub in the view points to, read from the view itself (so a second
 * assembly of the view finds the same): the named call of a duplicate stub, the last
 * success of the same tool for an error/retry stub.
 */
function stubTarget(
  messages: readonly Message[],
  index: number,
  lastResultAt: ReadonlyMap<string, number>,
  lastSuccessAt: ReadonlyMap<string, number>,
): number | undefined {
  const message = messages[index] as Message;
  if (message.role !== "tool" || typeof message.content !== "string") return undefined;
  let target: number | undefined;
  if (message.content.startsWith(DUPLICATE_PREFIX)) {
    const named = message.content.slice(DUPLICATE_PREFIX.length).split(" (", 1)[0] ?? "";
    target = lastResultAt.get(named);
  } else if (message.content.startsWith(ERROR_PREFIX)) {
    target = lastSuccessAt.get(message.toolName);
  }
  return target !== undefined && target > index ? target : undefined;
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
 * @param pinned Messages that must not be dropped (the assembler pins the results the
 * referenced-by-window keep-rule protects); an exchange holding one is kept whole.
 */
export function compactHistory(
  messages: readonly Message[],
  wallStart: number,
  options: CompactionOptions = {},
  pinned?: (index: number) => boolean,
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

  const { dropped, droppedCount, firstDropped } = chooseDropped(messages, wallStart, pinned, {
    sizes,
    total,
    budget,
    snippetChars,
    noteMaxChars,
  });
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

/** Where the last result of each tool call id, and the last success of each tool, sit. */
function lastResultPositions(messages: readonly Message[]): {
  lastResultAt: Map<string, number>;
  lastSuccessAt: Map<string, number>;
} {
  const lastResultAt = new Map<string, number>();
  const lastSuccessAt = new Map<string, number>();
  messages.forEach((message, position) => {
    if (message.role !== "tool") return;
    if (message.toolCallId !== "") lastResultAt.set(message.toolCallId, position);
    if (message.status !== "error" && !startsWith(message.content, ERROR_PREFIX)) {
      lastSuccessAt.set(message.toolName, position);
    }
  });
  return { lastResultAt, lastSuccessAt };
}

/**
 * Walks the units before the wall oldest first, dropping whole, unpinned exchanges until
 * the kept messages and the note fit the budget. `dropped[i]` is 1 for a dropped message.
 */
function chooseDropped(
  messages: readonly Message[],
  wallStart: number,
  pinned: ((index: number) => boolean) | undefined,
  sizing: {
    sizes: readonly number[];
    total: number;
    budget: number;
    snippetChars: number;
    noteMaxChars: number;
  },
): { dropped: Uint8Array; droppedCount: number; firstDropped: number } {
  const { sizes, budget, snippetChars, noteMaxChars } = sizing;
  const { lastResultAt, lastSuccessAt } = lastResultPositions(messages);
  const stubPins = new Set<number>();
  const dropped = new Uint8Array(messages.length);
  let total = sizing.total;
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
        const target = stubTarget(messages, member, lastResultAt, lastSuccessAt);
        if (target !== undefined) stubPins.add(target);
      }
    }
    index = end;
  }
  return { dropped, droppedCount, firstDropped };
}
