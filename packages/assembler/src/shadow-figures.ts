import { contentText } from "./content";
import { extractFigures } from "./contract/figures";
import type { Message, MessageContent } from "./types";

/** How many kept figures a shadow report lists at most (its count covers every one found). */
export const SHADOW_KEPT_FIGURES_LIMIT = 20;

/**
 * How many chars of the cut results' text a shadow report reads for figures at most, on one
 * call: a bound on the work the turn pays for a report it does not send. Results read on an
 * earlier call count too, so the report does not depend on what this process read before.
 */
export const SHADOW_FIGURE_SCAN_CHARS = 100_000;

/** A figure the cleaned view would have shown and the view sent does not, with the result that carries it. */
export interface KeptFigure {
  /** The figure, verbatim (`extractFigures`). */
  figure: string;
  /** The tool call id of the result (its digest, stub or raw content) that carries it in the cleaned view. */
  toolCallId: string;
}

/** Reads the figures of a text: `extractFigures`, or a test's observer of it. */
export type FigureExtractor = (text: string) => readonly string[];

/**
 * The figures of a message's content, kept per message object while its content is the
 * same value: a thread's messages come back call after call, so each is scanned once.
 */
const figureCache = new WeakMap<Message, { content: MessageContent; figures: readonly string[] }>();

function figuresOf(message: Message, extract: FigureExtractor, text?: string): readonly string[] {
  const cached = figureCache.get(message);
  if (cached !== undefined && cached.content === message.content) return cached.figures;
  const figures = extract(text ?? contentText(message.content));
  figureCache.set(message, { content: message.content, figures });
  return figures;
}

/** Every figure the view carries: its messages' content and its tool calls' arguments. */
function viewFigures(view: readonly Message[], extract: FigureExtractor): Set<string> {
  const figures = new Set<string>();
  for (const message of view) {
    for (const figure of figuresOf(message, extract)) figures.add(figure);
    if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0) {
      for (const figure of extract(JSON.stringify(message.toolCalls.map((call) => call.args)))) {
        figures.add(figure);
      }
    }
  }
  return figures;
}

/** How {@link keptFiguresOf} reads. */
export interface KeptFiguresOptions {
  /** How many figures it lists at most. @default SHADOW_KEPT_FIGURES_LIMIT */
  limit?: number;
  /** How many chars of the cut results' text it reads at most. @default SHADOW_FIGURE_SCAN_CHARS */
  maxScanChars?: number;
  /** How it reads a text's figures. @default extractFigures */
  extract?: FigureExtractor;
}

/** What {@link keptFiguresOf} found. */
export interface KeptFigures {
  keptFigures: KeptFigure[];
  keptFigureCount: number;
  keptFiguresComplete: boolean;
}

/**
 * The figures (`extractFigures`) of the cleaned view's tool results that the view sent does
 * not carry: what cleaning would have kept that the backstop alone cut. Only the results
 * the backstop cut from the view sent (`cut`, its ledger's `backstop` entries) are read, as
 * the cleaned view shows them, in thread order; each figure is listed once, with the first
 * result carrying it, the list bounded by `limit`. Nothing cut, nothing read.
 *
 * The results are read in thread order until the next one would take the chars read past
 * `maxScanChars` (read on an earlier call or not: the answer is the same): the rest are not
 * read, and `keptFiguresComplete` is false; `keptFigureCount` then counts the figures of the
 * results read, a lower bound. The view sent is read whole, once a result holds a figure.
 */
export function keptFiguresOf(
  cleaned: readonly Message[],
  sent: readonly Message[],
  cut: ReadonlySet<string>,
  {
    limit = SHADOW_KEPT_FIGURES_LIMIT,
    maxScanChars = SHADOW_FIGURE_SCAN_CHARS,
    extract = extractFigures,
  }: KeptFiguresOptions = {},
): KeptFigures {
  const kept: KeptFigure[] = [];
  if (cut.size === 0) return { keptFigures: kept, keptFigureCount: 0, keptFiguresComplete: true };
  let shown: Set<string> | undefined;
  const seen = new Set<string>();
  let scannedChars = 0;
  let complete = true;
  for (const message of cleaned) {
    if (message.role !== "tool" || !cut.has(message.toolCallId)) continue;
    const text = contentText(message.content);
    if (scannedChars + text.length > maxScanChars) {
      complete = false;
      break;
    }
    scannedChars += text.length;
    for (const figure of figuresOf(message, extract, text)) {
      if (seen.has(figure)) continue;
      seen.add(figure);
      shown ??= viewFigures(sent, extract);
      if (!shown.has(figure)) kept.push({ figure, toolCallId: message.toolCallId });
    }
  }
  return { keptFigures: kept.slice(0, limit), keptFigureCount: kept.length, keptFiguresComplete: complete };
}
