import { markFurniture, withoutPlaceholders } from "./page-furniture";

/**
 * Reflows a page of hard-wrapped document text (lines cut at ~80 columns, page numbers,
 * rules and footers inside paragraphs, tables flattened to lines) into blocks: headings,
 * paragraphs joined across wraps and page breaks, and table rows that keep a label with
 * its figures. Pure and deterministic; linear in the page length.
 */

/** One block of a reflowed page. */
export type ReflowedBlock =
  /** Level 1: a standalone heading line (ARTICLE, Section, EXHIBIT, ALL-CAPS); level 2: a run-in title. */
  | { readonly kind: "heading"; readonly level: 1 | 2; readonly text: string }
  /** Prose joined across line wraps and page breaks, whitespace collapsed. */
  | { readonly kind: "paragraph"; readonly text: string }
  /** A table row: its cells in order, the label first when there is one. */
  | { readonly kind: "table-row"; readonly cells: readonly string[] };

/** A bullet sign a converter puts before a heading: `•AFFIRMATIVE COVENANTS`. */
const LEADING_BULLET = /^[•·▪◦]\s*/;
/** Invisible marks a converter leaves in text (left-to-right marks, byte-order marks). */
const INVISIBLE = /[\u200e\u200f\ufeff\u200b]/g;
/** A line of text ends a sentence or clause: `.` `:` `;` `?` `!`, a closing quote or bracket may follow. */
const ENDS_CLAUSE = /[.:;!?][”"’')\]]*$/;
/** An enumerator at the start of a line: `(a)`, `(iv)`, `(12)`, `(A)`, `a.`, `12.`. */
const ENUMERATOR = /^(?:\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2}|[A-Z]{1,2})\)|[a-z]{1,2}\.(?=\S)|\d{1,2}\.\s)/;
/** A cell that is one figure: `$55,329,125.94`, `22.500%`, `(1,250)`, `US$ 3,000`, `52,764,386.24`. */
const FIGURE_CELL =
  /^\(?(?:[$€£¥]|US\$|USD|EUR|GBP)?\s?\d{1,3}(?:(?:,\d{3})+|\d{0,12})(?:\.\d{1,12})?\s?%?\)?$/;
/** A figure cell is not a bare integer (that is a page number): it has a symbol, a group, decimals or `%`. */
const MARKED_FIGURE = /[$€£¥%,.]|USD|EUR|GBP/;
/** Runs of spaces or dot leaders between table cells. */
const CELL_GAP = /\s*(?:\.\s?){4,}\s*|\s{2,}/;
const TABLE_GAP = /\S(?:\s{3,}|\s*(?:\.\s?){4,}\s*)\S/;
const STANDALONE_HEADING =
  /^(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix|PART|Part)\s+(?:[IVXLC]{1,7}|\d{1,3}(?:\.\d{1,3}){0,3}|[A-Z](?:-\d{1,2})?)(?![\w.]*\w)\.?(?:\s+(.*))?$/;
const SMALL_WORDS = new Set([
  "a",
  "an",
  "and",
  "as",
  "at",
  "by",
  "for",
  "from",
  "in",
  "into",
  "of",
  "on",
  "or",
  "the",
  "to",
  "under",
  "upon",
  "with",
  "without",
]);
/** Standalone headings are short; a longer line is wrapped prose. */
const HEADING_MAX_CHARS = 100;
const ALL_CAPS_HEADING_MAX_CHARS = 64;
/** Lines of one-cell-per-line tables (a label above its figures) are short. */
const LABEL_LINE_MAX_CHARS = 50;
const LABEL_LINES_MAX = 4;
/** A run-in title (`4.8 Compliance with Laws; Permits. The Company…`) is at most this long. */
const RUN_IN_TITLE_MAX_CHARS = 90;
const GLUED_ENUMERATOR = /^(\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2}|[A-Z])\))(?=[\p{Lu}“"])/u;
/** A line that opens a numbered section: `4.8 Compliance…`, `Section 8.3 Affiliates…`, `§ 2.1 …`. */
const SECTION_START = /^(?:(?:Section|SECTION)\s+|§\s?)?\d{1,3}(?:\.\d{1,3}){1,3}\.?\s+[\p{Lu}“"]/u;
const RUN_IN =
  /^((?:(?:Section|SECTION)\s+|§\s?)?\d{1,3}(?:\.\d{1,3}){0,3}\.?|\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2})\)|[a-z]{1,2}\.)\s*(\S[^.]{1,120}?)\.(?:\s+|$)/;

function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function isAllCaps(text: string): boolean {
  const letters = text.match(/\p{L}/gu) ?? [];
  return letters.length >= 4 && !/\p{Ll}/u.test(text);
}

/** Every word capitalised (or a digit, a quote, a bracket), small words aside: `Compliance with Laws; Permits`. */
export function isTitleCase(text: string): boolean {
  const words = collapse(text).split(" ");
  let capitalised = 0;
  for (const word of words) {
    const bare = word.replace(/^[“"‘'(§&]+|[”"’'),;:]+$/g, "");
    if (bare === "" || /^[\p{Lu}\d]/u.test(bare)) {
      if (bare !== "") capitalised++;
      continue;
    }
    if (!SMALL_WORDS.has(bare)) return false;
  }
  return capitalised > 0;
}

function isFigureCell(text: string): boolean {
  return FIGURE_CELL.test(text) && MARKED_FIGURE.test(text);
}

/** The cells of a table line, or undefined when the line is not a row (no gap, or no figure cell). */
function tableCells(line: string): string[] | undefined {
  const text = line.trim().replace(/^(\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2})\))\s+/, "$1 ");
  if (!TABLE_GAP.test(text)) return undefined;
  const cells = text
    .split(CELL_GAP)
    .map(collapse)
    .filter((cell) => cell !== "");
  return cells.length >= 2 && cells.some(isFigureCell) ? cells : undefined;
}

/** The title of a standalone heading line, or undefined when the line is not one. */
function standaloneHeading(line: string): { title: string | undefined } | undefined {
  // `title: undefined` means the heading's title may stand on the next line.
  if (line.length > HEADING_MAX_CHARS) return undefined;
  const match = STANDALONE_HEADING.exec(line);
  if (match) {
    const title = match[1]?.trim();
    if (!title) return { title: undefined };
    const bare = title.replace(/[.:]$/, "");
    return isAllCaps(bare) || (bare.length <= 80 && !/[.;]/.test(bare) && isTitleCase(bare))
      ? { title }
      : undefined;
  }
  if (line.length <= ALL_CAPS_HEADING_MAX_CHARS && isAllCaps(line) && !/[,;]$/.test(line)) {
    return { title: line };
  }
  return undefined;
}

/** A short line that can title the heading above it (`ASSIGNMENT AND SUBLETTING`, `Definitions`). */
function isHeadingTitle(line: string): boolean {
  const bare = line.replace(/[.:]$/, "");
  if (bare.length > 80 || /[.;]/.test(bare) || isFigureCell(bare)) return false;
  return isAllCaps(bare) || (bare.length <= 60 && isTitleCase(bare));
}

/**
 * Splits a run-in title off a paragraph: `4.8 Compliance with Laws; Permits. The Company has…`
 * gives the title `4.8 Compliance with Laws; Permits` and the rest. Enumerated titles
 * (`(b) VACATION TIME.`) count only in ALL CAPS.
 */
export function splitRunInTitle(paragraph: string): { title: string; rest: string } | undefined {
  const match = RUN_IN.exec(paragraph);
  if (!match) return undefined;
  const enumerator = match[1] as string;
  const title = (match[2] as string).trim();
  if (title.length > RUN_IN_TITLE_MAX_CHARS || title.length < 3) return undefined;
  // A number, or a letter glued to its title (`g.Conditions Precedent.`), marks a run-in title; `(a)` alone does not.
  const numbered = /\d/.test(enumerator) || /^[a-z]{1,2}\.$/.test(enumerator);
  if (!(isAllCaps(title) || (numbered && isTitleCase(title)))) return undefined;
  return { title: `${enumerator} ${title}`, rest: paragraph.slice(match[0].length).trim() };
}

type LineKind =
  | { kind: "blank" }
  | { kind: "furniture" }
  | { kind: "row"; cells: string[] }
  | { kind: "cell"; text: string }
  | { kind: "text"; text: string };

function lineKinds(page: string): LineKind[] {
  const lines = page.replace(INVISIBLE, "").split(/\r?\n/);
  const furniture = markFurniture(lines);
  return lines.map((raw, index): LineKind => {
    if (furniture[index]) return { kind: "furniture" };
    const line = withoutPlaceholders(raw);
    const text = collapse(line);
    if (text === "") return { kind: "blank" };
    if (isFigureCell(text)) return { kind: "cell", text };
    const cells = tableCells(line);
    if (cells) return { kind: "row", cells };
    return { kind: "text", text };
  });
}

/**
 * Reflows one page into blocks.
 *
 * - Page furniture (page numbers, rules, placeholders, DMS ids, running footers) is dropped,
 *   and a sentence broken by a page break is joined across it.
 * - Wrapped lines join into paragraphs; a blank line ends a paragraph unless the sentence
 *   plainly runs on (no closing punctuation, next line in lowercase); a line opening with
 *   an enumerator after a closed clause starts a new paragraph.
 * - Standalone headings (ARTICLE / Section / EXHIBIT lines, short ALL-CAPS lines) take the
 *   title on the next line; a paragraph's run-in title becomes a level-2 heading.
 * - Table rows: a line of cells separated by runs of spaces or dot leaders, with at least
 *   one figure cell; one-cell-per-line figures join the short label lines above them.
 *
 * @example
 * reflowText("ARTICLE 8\nASSIGNMENT\n\nTenant shall not assign this\nLease.\n- 12 -\n");
 * // → [{ kind: "heading", level: 1, text: "ARTICLE 8 ASSIGNMENT" },
 * //    { kind: "paragraph", text: "Tenant shall not assign this Lease." }]
 */
export function reflowText(page: string): ReflowedBlock[] {
  const kinds = lineKinds(page);
  const blocks: ReflowedBlock[] = [];
  let buffer: string[] = [];
  let blankBefore = false;
  let pageBreakBefore = false;

  const flush = () => {
    if (buffer.length === 0) return;
    let text = collapse(buffer.join(" "));
    buffer = [];
    for (let titles = 0; titles < 2; titles++) {
      const runIn = splitRunInTitle(text);
      if (!runIn) break;
      blocks.push({ kind: "heading", level: 2, text: runIn.title });
      text = runIn.rest;
    }
    // An enumerator glued to its clause (`(b)For the purposes`) gets its space back.
    text = text.replace(GLUED_ENUMERATOR, "$1 ");
    if (text !== "") blocks.push({ kind: "paragraph", text });
  };
  const bufferIsLabels = () =>
    buffer.length > 0 &&
    buffer.length <= LABEL_LINES_MAX &&
    buffer.every((line) => line.length <= LABEL_LINE_MAX_CHARS && !ENDS_CLAUSE.test(line));
  const previousEndsClause = () =>
    buffer.length === 0 || ENDS_CLAUSE.test(buffer[buffer.length - 1] as string);

  for (let index = 0; index < kinds.length; index++) {
    const line = kinds[index] as LineKind;
    if (line.kind === "blank") {
      blankBefore = true;
      continue;
    }
    if (line.kind === "furniture") {
      pageBreakBefore = true;
      continue;
    }
    const broken = blankBefore;
    const pageBreak = pageBreakBefore;
    blankBefore = false;
    pageBreakBefore = false;
    if (line.kind === "row") {
      flush();
      blocks.push({ kind: "table-row", cells: line.cells });
      continue;
    }
    if (line.kind === "cell") {
      const last = blocks[blocks.length - 1];
      if (bufferIsLabels()) {
        blocks.push({ kind: "table-row", cells: [...buffer, line.text] });
        buffer = [];
      } else if (buffer.length === 0 && last?.kind === "table-row") {
        blocks[blocks.length - 1] = { kind: "table-row", cells: [...last.cells, line.text] };
      } else if (buffer.length > 0 && !previousEndsClause()) {
        buffer.push(line.text);
      } else {
        flush();
        blocks.push({ kind: "table-row", cells: [line.text] });
      }
      continue;
    }
    const text = line.text;
    const continues = buffer.length > 0 && !previousEndsClause();
    // A page break falls mid-sentence: an open sentence runs on whatever the next line starts with.
    const runsOn = continues && (pageBreak || !broken || /^[\p{Ll}(,;]/u.test(text));
    if (!runsOn) {
      const heading = standaloneHeading(text.replace(LEADING_BULLET, ""));
      if (heading) {
        flush();
        let headingText = text.replace(LEADING_BULLET, "");
        if (heading.title === undefined) {
          // The title may stand on the next text line: `ARTICLE 8` / `ASSIGNMENT AND SUBLETTING`.
          let next = index + 1;
          while (next < kinds.length && (kinds[next] as LineKind).kind !== "text") {
            if ((kinds[next] as LineKind).kind !== "blank" && (kinds[next] as LineKind).kind !== "furniture")
              break;
            next++;
          }
          const candidate = kinds[next];
          if (candidate?.kind === "text" && isHeadingTitle(candidate.text)) {
            headingText = `${text} ${candidate.text}`;
            index = next;
          }
        }
        blocks.push({ kind: "heading", level: 1, text: headingText });
        continue;
      }
      const closed = previousEndsClause();
      if (
        buffer.length > 0 &&
        (broken || pageBreak || (closed && (ENUMERATOR.test(text) || SECTION_START.test(text))))
      ) {
        flush();
      }
    }
    buffer.push(text);
  }
  flush();
  return blocks;
}
