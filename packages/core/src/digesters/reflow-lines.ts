import { markFurniture, withoutPlaceholders } from "./page-furniture";

// How each line of a page reads before reflowing: furniture, blank, a table row or cell, text.

/** Invisible marks a converter leaves in text (left-to-right marks, byte-order marks). */
const INVISIBLE = /[\u200e\u200f\ufeff\u200b]/g;
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
/** A run-in title (`4.8 Compliance with Laws; Permits. The Company…`) is at most this long. */
const RUN_IN_TITLE_MAX_CHARS = 90;
const RUN_IN =
  /^((?:(?:Section|SECTION)\s+|§\s?)?\d{1,3}(?:\.\d{1,3}){0,3}\.?|\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2})\)|[a-z]{1,2}\.)\s*(\S[^.]{1,120}?)\.(?:\s+|$)/;

export function collapse(text: string): string {
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

export function isFigureCell(text: string): boolean {
  return FIGURE_CELL.test(text) && MARKED_FIGURE.test(text);
}

/** The cells of a table line, or undefined when the line is not a row (no gap, or no figure cell). */
function tableCells(line: string): string[] | undefined {
  // An enumerator or a section number set off by a former tab stop opens text, not a cell.
  const text = line
    .trim()
    .replace(/^(\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2})\))\s+/, "$1 ")
    .replace(/^((?:(?:Section|SECTION)\s+)?\d{1,3}(?:\.\d{1,3}){1,3}\.?)\s{2,}(?=[\p{Lu}“"])/u, "$1 ");
  if (!TABLE_GAP.test(text)) return undefined;
  const cells = text
    .split(CELL_GAP)
    .map(collapse)
    .filter((cell) => cell !== "");
  return cells.length >= 2 && cells.some(isFigureCell) ? cells : undefined;
}

/** A header cell is a short name, not a figure and not the end of a sentence. */
const HEADER_CELL_MAX_CHARS = 40;

/**
 * The cells of a line that can head a table (`Lender   Commitment   Pro Rata Share`): two
 * or more short cells split at runs of spaces or dot leaders, none of them a figure.
 */
function headerCells(line: string): string[] | undefined {
  const text = line.trim();
  if (!TABLE_GAP.test(text)) return undefined;
  const cells = text
    .split(CELL_GAP)
    .map(collapse)
    .filter((cell) => cell !== "");
  const isName = (cell: string) =>
    cell.length <= HEADER_CELL_MAX_CHARS &&
    /\p{L}/u.test(cell) &&
    !/[.;:,]$/.test(cell) &&
    !isFigureCell(cell);
  return cells.length >= 2 && cells.every(isName) ? cells : undefined;
}

/** The title of a standalone heading line, or undefined when the line is not one. */
export function standaloneHeading(line: string): { title: string | undefined } | undefined {
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
export function isHeadingTitle(line: string): boolean {
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

export type LineKind =
  | { kind: "blank" }
  | { kind: "furniture" }
  | { kind: "row"; cells: string[] }
  | { kind: "cell"; text: string }
  /** A text line; `header` when its cells can head a table below it. */
  | { kind: "text"; text: string; header?: string[] };

export function lineKinds(page: string): LineKind[] {
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
    const header = headerCells(line);
    return header ? { kind: "text", text, header } : { kind: "text", text };
  });
}
