import { contentText } from "./content";
import { extractFigures } from "./contract/figures";
import type { Message, MessageContent } from "./types";

/** How many kept figures a shadow report lists at most (its count covers them all). */
export const SHADOW_KEPT_FIGURES_LIMIT = 20;

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

function figuresOf(message: Message, extract: FigureExtractor): readonly string[] {
  const cached = figureCache.get(message);
  if (cached !== undefined && cached.content === message.content) return cached.figures;
  const figures = extract(contentText(message.content));
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
  /** How it reads a text's figures. @default extractFigures */
  extract?: FigureExtractor;
}

/** What {@link keptFiguresOf} found. */
export interface KeptFigures {
  keptFigures: KeptFigure[];
  keptFigureCount: number;
}

/**
 * The figures (`extractFigures`) of the cleaned view's tool results that the view sent does
 * not carry: what cleaning would have kept that the backstop alone cut. Only the results
 * the backstop cut from the view sent (`cut`, its ledger's `backstop` entries) are read, as
 * the cleaned view shows them, in thread order; each figure is listed once, with the first
 * result carrying it, the list bounded by `limit`. Nothing cut, nothing read.
 */
export function keptFiguresOf(
  cleaned: readonly Message[],
  sent: readonly Message[],
  cut: ReadonlySet<string>,
  { limit = SHADOW_KEPT_FIGURES_LIMIT, extract = extractFigures }: KeptFiguresOptions = {},
): KeptFigures {
  const kept: KeptFigure[] = [];
  if (cut.size === 0) return { keptFigures: kept, keptFigureCount: 0 };
  let shown: Set<string> | undefined;
  const seen = new Set<string>();
  for (const message of cleaned) {
    if (message.role !== "tool" || !cut.has(message.toolCallId)) continue;
    for (const figure of figuresOf(message, extract)) {
      if (seen.has(figure)) continue;
      seen.add(figure);
      shown ??= viewFigures(sent, extract);
      if (!shown.has(figure)) kept.push({ figure, toolCallId: message.toolCallId });
    }
  }
  return { keptFigures: kept.slice(0, limit), keptFigureCount: kept.length };
}
