import { contentText } from "../content";
import type { Message } from "../types";
import { COMPACTION_NOTE_PREFIX, DIGEST_HEADER } from "./stubs";

/** Room reserved for the note's header when sizing it before it is written. */
export const NOTE_HEADER_CHARS = 160;

export function noteHeader(droppedCount: number): string {
  return `${COMPACTION_NOTE_PREFIX}: ${droppedCount} earlier messages were left out to fit the history budget. Snippets:]`;
}

const HEADER_CHARS_WITHOUT_COUNT = noteHeader(0).length - 1;

/** `noteHeader(droppedCount).length`, without writing the header. */
export function noteHeaderLength(droppedCount: number): number {
  return HEADER_CHARS_WITHOUT_COUNT + String(droppedCount).length;
}

const NOTE_HEADER = new RegExp(
  `^${noteHeader(0)
    .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    .replace(": 0 ", ": \\d+ ")}(?:\n|$)`,
);

/** Whether a message opens with a note's exact header (a note, if it is also short enough). */
export function hasNoteHeader(message: Message): boolean {
  return message.role === "user" && typeof message.content === "string" && NOTE_HEADER.test(message.content);
}

function snippetLabel(message: Message): string {
  return message.role === "tool"
    ? `tool ${message.toolName}`
    : message.role === "assistant" && message.toolCalls?.length
      ? `assistant (called ${message.toolCalls.map((call) => call.name).join(", ")})`
      : message.role;
}

/**
 * The line a dropped message leaves in the note: its role (or tool) and its text, at most
 * `maxChars`; with `handle` (the `read_original` call returning a dropped result), the
 * handle after the label, on top of `maxChars`.
 */
export function snippet(message: Message, maxChars: number, handle?: string): string {
  const line = plainSnippet(message, maxChars);
  if (handle === undefined) return line;
  const label = `- ${snippetLabel(message)}`;
  return `${label} — ${handle}${line.slice(label.length)}`;
}

const FIGURES_LINE_PREFIX = "figures verbatim: ";
const REREAD_LINE_PREFIX = "re-read: ";
const ORIGINAL_LINE_PREFIX = "original as recorded: ";

/**
 * The line a dropped result that has a digest leaves in the note, in place of a snippet of
 * its text: its tool and call id, the digest's re-read calls (kept whole), then its
 * `figures verbatim` line cut to `maxChars`. Undefined for text that is not a digest.
 */
export function digestNoteLine(message: Message, digest: string, maxChars: number): string | undefined {
  if (message.role !== "tool" || !digest.startsWith(`${DIGEST_HEADER}\n`)) return undefined;
  const lines = digest.split("\n");
  const handles = lines
    .filter((line) => line.startsWith(REREAD_LINE_PREFIX) || line.startsWith(ORIGINAL_LINE_PREFIX))
    .map((line) => line.slice(line.indexOf(": ") + 2));
  const figures = lines.find((line) => line.startsWith(FIGURES_LINE_PREFIX));
  const head = `- ${snippetLabel(message)} (call ${message.toolCallId}, condensed)${
    handles.length > 0 ? ` — re-read: ${handles.join(" or ")}` : ""
  }`;
  if (figures === undefined) return head;
  const text = `; ${figures}`;
  return `${head}${text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text}`;
}

function plainSnippet(message: Message, maxChars: number): string {
  const label = snippetLabel(message);
  // Collapse whitespace over a growing prefix only: once the line overflows, the rest of
  // a long page cannot change the first maxChars - 1 chars (the result is the same bytes).
  const full = contentText(message.content);
  // Stryker disable next-line StringLiteral: the loop sets the line before it is read
  let line = "";
  // Stryker disable next-line ArithmeticOperator: any first prefix grows to fit; the start saves passes
  for (let prefixChars = 2 * maxChars; ; prefixChars *= 2) {
    const text = full.slice(0, prefixChars).replace(/\s+/g, " ").trim();
    line = `- ${label}: ${text}`;
    if (line.length > maxChars || prefixChars >= full.length) break;
  }
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

/**
 * The note: its header, then a snippet per dropped message (`snippetAt` gives the snippet
 * of the message at an index) while `maxChars` allows. With `handleAt` (the `read_original`
 * call returning a dropped result, when the tool is enabled), the closing `… and N more`
 * line names the handles of the results it stands for, and snippets give way to it: every
 * dropped result keeps its handle in view while the note's room allows.
 */
export function renderNote(
  dropped: Uint8Array,
  droppedCount: number,
  maxChars: number,
  snippetAt: (index: number) => string,
  handleAt?: (index: number) => string | undefined,
): string {
  const header = noteHeader(droppedCount);
  const lines = [header];
  let chars = header.length;
  let seen = 0;
  if (handleAt !== undefined)
    return renderNoteWithHandles(dropped, droppedCount, maxChars, snippetAt, handleAt);
  for (let index = 0; index < dropped.length && seen < droppedCount; index++) {
    if (dropped[index] !== 1) continue;
    const line = snippetAt(index);
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

const HANDLES_LEAD = "; re-read their results with ";

function renderNoteWithHandles(
  dropped: Uint8Array,
  droppedCount: number,
  maxChars: number,
  snippetAt: (index: number) => string,
  handleAt: (index: number) => string | undefined,
): string {
  const header = noteHeader(droppedCount);
  const order: number[] = [];
  for (let index = 0; index < dropped.length && order.length < droppedCount; index++) {
    if (dropped[index] === 1) order.push(index);
  }
  const handles = order.map((index) => handleAt(index));
  // Chars of the handles (with their ", ") from each position on, and how many there are.
  const handleChars = new Float64Array(order.length + 1);
  const handleCount = new Uint32Array(order.length + 1);
  for (let k = order.length - 1; k >= 0; k--) {
    const handle = handles[k];
    handleChars[k] = (handleChars[k + 1] as number) + (handle === undefined ? 0 : handle.length + 2);
    handleCount[k] = (handleCount[k + 1] as number) + (handle === undefined ? 0 : 1);
  }
  const plainTail = (k: number) => `- … and ${droppedCount - k} more`;
  const tailLength = (k: number) =>
    plainTail(k).length +
    ((handleCount[k] as number) > 0 ? HANDLES_LEAD.length + (handleChars[k] as number) - 2 : 0);
  const tail = (k: number) => {
    const rest = handles.slice(k).filter((handle): handle is string => handle !== undefined);
    return rest.length > 0 ? `${plainTail(k)}${HANDLES_LEAD}${rest.join(", ")}` : plainTail(k);
  };
  const lines = [header];
  let chars = header.length;
  for (let k = 0; k < order.length; k++) {
    const line = snippetAt(order[k] as number);
    const after = k + 1 < order.length ? 1 + tailLength(k + 1) : 0;
    if (chars + 1 + line.length + after > maxChars) {
      if (chars + 1 + tailLength(k) <= maxChars) lines.push(tail(k));
      else if (chars + 1 + plainTail(k).length <= maxChars) lines.push(plainTail(k));
      break;
    }
    lines.push(line);
    chars += 1 + line.length;
  }
  return lines.join("\n");
}
