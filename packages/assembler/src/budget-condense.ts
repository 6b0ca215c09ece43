import { extractFigures, normalizeWhitespace } from "./contract/figures";
import { renderOriginalHandle, withOriginalHandle } from "./contract/stubs";

/** First words of a result condensed at arrival (`capToolResult` with `overBudget: "condense"`). */
export const ARRIVAL_CONDENSED_PREFIX = "[Condensed at arrival by context-cleaner";

/** The name of the `read_original` tool when the runtime gives no other. */
const READ_ORIGINAL_TOOL_NAME = "read_original";

/** What {@link condenseAtArrival} needs besides the result. */
export interface ArrivalCondensationOptions {
  /** Why the result is condensed: `the conversation's tool budget is spent`. */
  reason: string;
  /** The longest result that still arrives whole: a re-read in windows this long reads the original. */
  wholeChars: number;
  /** The condensation's cap in chars. */
  capChars: number;
  /** How far the cap stretches to fit the figures. */
  capMaxChars: number;
  /** With the `read_original` tool on: the id of the call the result answers. */
  toolCallId?: string;
  /** @default "read_original" */
  readOriginalToolName?: string;
}

/** A condensation and what it holds of the result. */
export interface ArrivalCondensation {
  text: string;
  figures: { found: number; shown: number; omitted: number };
  headings: { found: number; shown: number };
}

const SCAN_CHARS = 200;
const MAX_HEADING_CHARS = 120;
const MAX_TITLE_WORDS = 12;
const LABEL =
  /^(?:(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|PART|Part|CHAPTER|Chapter) (?:\d{1,4}(?:\.\d{1,4}){0,4}[A-Za-z]?|[IVXLC]{1,8}|[A-Z])|§ ?\d{1,4}(?:\.\d{1,4}){0,4})(?=[.:, ]|$)/;
const NUMBERED_LABEL = /^\d{1,3}(?:\.\d{1,3}){0,4}\.?(?= )/;
const SEPARATOR = /^(?:[.:])?(?: [—–-])? ?/;
const MARKDOWN = /^#{1,6} (\S.*)$/;
const TITLE_CHARS = /^[\p{L}\d ,&'’()/-]+$/u;
const TITLE_WORD = /^[("'“‘]?[\p{Lu}\d]/u;
const SMALL_WORDS = new Set([
  "&",
  "a",
  "an",
  "and",
  "as",
  "at",
  "by",
  "for",
  "from",
  "in",
  "its",
  "of",
  "on",
  "or",
  "the",
  "to",
  "under",
  "upon",
  "with",
]);
const LOWER = /\p{Ll}/u;
const UPPER = /\p{Lu}/gu;

/** Whether `title` reads as a heading's title: a few words, each capitalised or a small joining word. */
function isTitle(title: string): boolean {
  if (title.length > 80 || !TITLE_CHARS.test(title)) return false;
  const words = title.split(" ");
  if (words.length > MAX_TITLE_WORDS || !TITLE_WORD.test(words[0] as string)) return false;
  return words.every((word) => TITLE_WORD.test(word) || SMALL_WORDS.has(word));
}

/**
 * The heading a line opens with, verbatim up to the end of its title, or undefined: a
 * markdown heading, a labelled one (`ARTICLE 6`, `Section 6.1 Indebtedness`, `§ 4.2`,
 * `Exhibit B — Form of Note`, a run-in `6.2 Outside Completion Date.` before its text) or a
 * short line in capitals (`NEGATIVE COVENANTS`). Reads at most the line's first 200 chars.
 */
function headingOf(rawLine: string): string | undefined {
  const start = rawLine.trimStart();
  const line = normalizeWhitespace(start.length > SCAN_CHARS ? start.slice(0, SCAN_CHARS) : start);
  const whole = start.length <= SCAN_CHARS;
  if (line.length < 3) return undefined;
  const markdown = MARKDOWN.exec(line);
  if (markdown) return whole && line.length <= MAX_HEADING_CHARS ? (markdown[1] as string) : undefined;
  const keyword = LABEL.exec(line);
  const label = keyword ?? NUMBERED_LABEL.exec(line);
  if (label) {
    const labelText = label[0];
    const rest = line.slice(labelText.length);
    const separator = (SEPARATOR.exec(rest) as RegExpExecArray)[0];
    const body = rest.slice(separator.length);
    const stop = body.search(/\.(?: |$)/);
    // A title runs to its full stop, or to the end of a line read whole.
    if (stop < 0 && !whole) return undefined;
    const title = stop < 0 ? body : body.slice(0, stop);
    if (title === "") {
      // A label alone is a heading only as the whole line (`ARTICLE 6`; not `Annex A.` ending a wrapped sentence).
      return keyword && rest === "" ? labelText : undefined;
    }
    if (!isTitle(title)) return undefined;
    return `${labelText}${separator}${title}`.trim();
  }
  if (!whole || line.length > 80 || LOWER.test(line)) return undefined;
  const capitals = line.match(UPPER)?.length ?? 0;
  const visible = line.replace(/ /g, "").length;
  return capitals >= 4 && capitals * 5 >= visible * 3 && line.split(" ").length <= MAX_TITLE_WORDS
    ? line
    : undefined;
}

/** The headings of a text in order, unique, verbatim (whitespace-collapsed). Linear in its length. */
export function headingsOf(text: string): string[] {
  const headings: string[] = [];
  const seen = new Set<string>();
  for (const line of text.split("\n")) {
    const heading = headingOf(line);
    if (heading === undefined || seen.has(heading)) continue;
    seen.add(heading);
    headings.push(heading);
  }
  return headings;
}

function formatInteger(value: number): string {
  return value.toLocaleString("en-US");
}

/** The figures line with the first `shown` of `figures` (the digest's own line and wording). */
function figuresLine(figures: readonly string[], shown: number): string {
  const omitted = figures.length - shown;
  const list = figures.length === 0 ? " (none)" : shown === 0 ? "" : ` ${figures.slice(0, shown).join("; ")}`;
  return `figures verbatim:${list}${omitted > 0 ? ` [+${omitted} more figures left out; re-read for all]` : ""}`;
}

function figuresLineChars(listChars: number, total: number, shown: number): number {
  const omitted = total - shown;
  const list = total === 0 ? " (none)".length : shown === 0 ? 0 : 1 + listChars;
  const more = omitted > 0 ? ` [+${omitted} more figures left out; re-read for all]`.length : 0;
  return "figures verbatim:".length + list + more;
}

/** The most figures, from the first, whose line fits `room` chars (at least none). */
function figuresThatFit(figures: readonly string[], everyFigureChars: number, room: number): number {
  if (everyFigureChars <= room) return figures.length;
  // Short of all of them the line counts those left out; each figure more is longer than that count gets shorter.
  let shown = 0;
  let listChars = 0;
  for (const figure of figures) {
    const next = listChars + (shown === 0 ? 0 : 2) + figure.length;
    if (figuresLineChars(next, figures.length, shown + 1) > room) break;
    listChars = next;
    shown += 1;
  }
  return shown;
}

/** The headings line with the first `shown` of `headings`, or undefined for none found. */
function headingsLine(headings: readonly string[], shown: number): string | undefined {
  if (headings.length === 0 || shown === 0) return undefined;
  const omitted = headings.length - shown;
  return `headings: ${headings.slice(0, shown).join("; ")}${omitted > 0 ? ` [+${omitted} more]` : ""}`;
}

/** The most headings, from the first, whose line fits `room` chars. */
function headingsThatFit(headings: readonly string[], room: number): number {
  const every = headings.reduce((chars, heading) => chars + heading.length + 2, "headings: ".length - 2);
  if (every <= room) return headings.length;
  let shown = 0;
  let listChars = 0;
  for (const heading of headings) {
    const next = listChars + (shown === 0 ? 0 : 2) + heading.length;
    const omitted = headings.length - shown - 1;
    const chars = "headings: ".length + next + (omitted > 0 ? ` [+${omitted} more]`.length : 0);
    if (chars > room) break;
    listChars = next;
    shown += 1;
  }
  return shown;
}

/**
 * A result condensed at arrival, as an extractive stand-in of bounded size: a header saying
 * why and that the original is unchanged and re-readable, the headings found in it, every
 * figure verbatim (`extractFigures`, whitespace-normalised as a digest's) and the re-read
 * line (the same tool with the same args, and `read_original(tool_call_id=…)` when a tool
 * call id is given). At most `capChars`, stretching to fit the figures up to `capMaxChars`;
 * figures left out at the end are counted, then headings give way. Pure, deterministic and
 * linear in the result's length.
 */
export function condenseAtArrival(content: string, options: ArrivalCondensationOptions): ArrivalCondensation {
  const window = formatInteger(options.wholeChars);
  const header =
    `${ARRIVAL_CONDENSED_PREFIX}: ${options.reason}, so a result over ${window} chars arrives as its headings and figures. ` +
    `The original (${formatInteger(content.length)} chars) is unchanged at its source and re-readable; read it in windows of at most ${window} chars to have it whole.]`;
  const reread = `${header}\nre-read: the same tool with the same args`;
  const rereadLine = (
    options.toolCallId === undefined
      ? reread
      : withOriginalHandle(
          reread,
          renderOriginalHandle(options.toolCallId, options.readOriginalToolName ?? READ_ORIGINAL_TOOL_NAME),
        )
  ).slice(header.length + 1);
  const body = extractiveLines(content, {
    fixedChars: header.length + 1 + rereadLine.length + 1,
    capChars: options.capChars,
    capMaxChars: options.capMaxChars,
  });
  return {
    text: [header, ...body.lines, rereadLine].join("\n"),
    figures: body.figures,
    headings: body.headings,
  };
}

/** The part of an extractive condensation read from the result: its headings and figures lines, and what they hold. */
export interface ExtractiveLines {
  /** The headings line (when any heading fits) and the figures line, in that order. */
  lines: string[];
  figures: { found: number; shown: number; omitted: number };
  headings: { found: number; shown: number };
}

/**
 * The headings and figures lines of an extractive condensation of `content` whose other
 * lines take `fixedChars` (newlines included): the whole fits `capChars`, stretching to
 * fit the figures up to `capMaxChars`; figures left out at the end are counted, then
 * headings give way. Pure and linear in the content's length.
 */
export function extractiveLines(
  content: string,
  limits: { fixedChars: number; capChars: number; capMaxChars: number },
): ExtractiveLines {
  const fixed = limits.fixedChars;
  const figures = extractFigures(normalizeWhitespace(content));
  const everyFigure = figuresLine(figures, figures.length).length;
  const limit = Math.max(limits.capChars, Math.min(fixed + everyFigure, limits.capMaxChars));
  const shownFigures = figuresThatFit(figures, everyFigure, limit - fixed);
  const figureLine = figuresLine(figures, shownFigures);
  const headings = headingsOf(content);
  const shownHeadings = headingsThatFit(headings, limit - fixed - figureLine.length - 1);
  const headingLine = headingsLine(headings, shownHeadings);
  return {
    lines: headingLine === undefined ? [figureLine] : [headingLine, figureLine],
    figures: { found: figures.length, shown: shownFigures, omitted: figures.length - shownFigures },
    headings: { found: headings.length, shown: shownHeadings },
  };
}
