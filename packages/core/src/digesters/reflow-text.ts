import {
  collapse,
  isFigureCell,
  isHeadingTitle,
  type LineKind,
  lineKinds,
  splitRunInTitle,
  standaloneHeading,
} from "./reflow-lines";

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
  /**
   * A table row: its cells in order, the label first when there is one, and the column
   * headers of its table when the page gives them (as many as its cells).
   */
  | { readonly kind: "table-row"; readonly cells: readonly string[]; readonly header?: readonly string[] };

/** A bullet sign a converter puts before a heading: `•AFFIRMATIVE COVENANTS`. */
const LEADING_BULLET = /^[•·▪◦]\s*/;
/** A line of text ends a sentence or clause: `.` `:` `;` `?` `!`, a closing quote or bracket may follow. */
const ENDS_CLAUSE = /[.:;!?][”"’')\]]*$/;
/** An enumerator at the start of a line: `(a)`, `(iv)`, `(12)`, `(A)`, `a.`, `12.`. */
const ENUMERATOR = /^(?:\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2}|[A-Z]{1,2})\)|[a-z]{1,2}\.(?=\S)|\d{1,2}\.\s)/;
/** Lines of one-cell-per-line tables (a label above its figures) are short. */
const LABEL_LINE_MAX_CHARS = 50;
const LABEL_LINES_MAX = 4;
const GLUED_ENUMERATOR = /^(\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2}|[A-Z])\))(?=[\p{Lu}“"])/u;
/** A line that opens a numbered section: `4.8 Compliance…`, `Section 8.3 Affiliates…`, `§ 2.1 …`. */
const SECTION_START = /^(?:(?:Section|SECTION)\s+|§\s?)?\d{1,3}(?:\.\d{1,3}){1,3}\.?\s+[\p{Lu}“"]/u;

/**
 * A figure cell a converter glued between the cells around it: `2027($4,250,000)Six months`.
 * Only a parenthesised amount with a currency mark, glued on both sides, is read as one.
 */
const GLUED_CELL = /(?<=[\p{L}\d,.])\((?:US\$|[$€£¥])\s?\d{1,3}(?:,\d{3})*(?:\.\d{1,4})?\)(?=[\p{Lu}\d]|$)/gu;
/** A glued table has at least this many glued figure cells; fewer are prose. */
const GLUED_ROWS_MIN = 3;
/** Words glued without a space, `PeriodMaximum`: where a glued header's cells meet. */
const GLUED_WORDS = /(?<=\p{Ll})(?=\p{Lu})/u;

/**
 * The rows of a paragraph that is a table whose cells were glued together (a label, then
 * its parenthesised amount, row after row), with the glued header over them when it splits
 * into as many cells as a row has; undefined when the paragraph is not such a table.
 */
function gluedTable(text: string): ReflowedBlock[] | undefined {
  const matches = [...text.matchAll(GLUED_CELL)];
  if (matches.length < GLUED_ROWS_MIN) return undefined;
  const rows: { label: string; figure: string }[] = [];
  let from = 0;
  for (const match of matches) {
    const at = match.index ?? 0;
    rows.push({ label: text.slice(from, at).trim(), figure: match[0] });
    from = at + match[0].length;
  }
  const first = rows[0] as { label: string; figure: string };
  const pieces = first.label.split(GLUED_WORDS).map((piece) => piece.trim());
  const blocks: ReflowedBlock[] = [];
  let header: string[] | undefined;
  if (pieces.length === 3) {
    header = pieces.slice(0, 2);
    first.label = pieces[2] as string;
  }
  if (rows.some((row) => row.label === "" || /[.;:]$/.test(row.label))) return undefined;
  for (const row of rows) {
    const cells = [row.label, row.figure];
    blocks.push(header ? { kind: "table-row", header, cells } : { kind: "table-row", cells });
  }
  const rest = text.slice(from).trim();
  if (rest !== "") blocks.push({ kind: "paragraph", text: rest });
  return blocks;
}

/** A two-column list re-wrapped across lines pairs at least this many labels with figures. */
const SPILLED_PAIRS_MIN = 3;

/**
 * The rows of a run of table rows that is a two-column list re-wrapped at the page width,
 * so rows spill across lines (`Closing Date  $12,500,000.00  May 2027  11,940,210.55  June
 * 2027` / `11,372,118.40  July 2027 …`): its cells read in order alternate label and figure,
 * and each label is paired with the figure after it. Undefined when they do not alternate.
 */
function spilledRows(rows: readonly { cells: readonly string[] }[]): string[][] | undefined {
  const cells: string[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.cells.entries()) {
      const last = cells.at(-1);
      // A label cut at the line's end goes on at the next line's start: `September` / `2024`.
      if (index === 0 && last !== undefined && !isFigureCell(last) && !isFigureCell(cell)) {
        cells[cells.length - 1] = `${last} ${cell}`;
      } else {
        cells.push(cell);
      }
    }
  }
  // Text before the first label is the tail of a wrapped header (`Amount  Closing Date  $55,329,125.94`).
  const first = cells.findIndex(isFigureCell);
  if (first > 1) cells.splice(0, first - 1);
  if (cells.length < SPILLED_PAIRS_MIN * 2 || cells.length % 2 !== 0) return undefined;
  const pairs: string[][] = [];
  for (let index = 0; index < cells.length; index += 2) {
    const label = cells[index] as string;
    const figure = cells[index + 1] as string;
    if (isFigureCell(label) || !isFigureCell(figure)) return undefined;
    pairs.push([label, figure]);
  }
  // Rows that already were label-and-figure pairs stay as they were.
  return rows.every((row) => row.cells.length === 2) ? undefined : pairs;
}

/** The reflow of one page: blocks so far, and the text lines of the paragraph being built. */
class PageReflow {
  readonly blocks: ReflowedBlock[] = [];
  private buffer: string[] = [];
  /** The header cells of the buffer's one line, when it can head a table. */
  private headerLine: string[] | undefined;
  /** The column headers of the table being read. */
  private header: readonly string[] | undefined;

  constructor(private readonly kinds: readonly LineKind[]) {}

  run(): ReflowedBlock[] {
    let blankBefore = false;
    let pageBreakBefore = false;
    for (let index = 0; index < this.kinds.length; index++) {
      const line = this.kinds[index] as LineKind;
      if (line.kind === "blank") {
        // A blank line after a table's rows ends the table; one between its header and rows does not.
        if (this.blocks.at(-1)?.kind === "table-row" && this.buffer.length === 0) this.header = undefined;
        blankBefore = true;
        continue;
      }
      if (line.kind === "furniture") {
        pageBreakBefore = true;
        continue;
      }
      const breaks = { broken: blankBefore, pageBreak: pageBreakBefore };
      blankBefore = false;
      pageBreakBefore = false;
      if (line.kind === "row") {
        this.addRow(line.cells);
      } else if (line.kind === "cell") {
        this.addCell(line.text);
      } else {
        this.header = undefined;
        index = this.addText(line.text, index, breaks);
        this.headerLine = this.buffer.length === 1 ? line.header : undefined;
      }
    }
    this.flush();
    return this.blocks;
  }

  /** A row of cells; the one line above it heads its table when its cells are as many. */
  private addRow(cells: readonly string[]): void {
    const above = this.headerLine;
    // Two column headers may head a two-column list whose rows spill across lines (see spilledRows).
    if (
      this.buffer.length === 1 &&
      (above?.length === cells.length || (above?.length === 2 && cells.length > 2))
    ) {
      this.buffer = [];
      this.header = above;
    }
    this.flush();
    // A header of another width than the row is dropped once spilled rows are paired (reflowText).
    const { header } = this;
    this.blocks.push(header ? { kind: "table-row", header, cells } : { kind: "table-row", cells });
  }

  /** Ends the paragraph being built: its run-in titles become level-2 headings; a glued table becomes its rows. */
  private flush(): void {
    this.headerLine = undefined;
    if (this.buffer.length === 0) return;
    let text = collapse(this.buffer.join(" "));
    this.buffer = [];
    const table = gluedTable(text);
    if (table) {
      this.blocks.push(...table);
      return;
    }
    for (let titles = 0; titles < 2; titles++) {
      const runIn = splitRunInTitle(text);
      if (!runIn) break;
      this.blocks.push({ kind: "heading", level: 2, text: runIn.title });
      text = runIn.rest;
    }
    // An enumerator glued to its clause (`(b)For the purposes`) gets its space back.
    text = text.replace(GLUED_ENUMERATOR, "$1 ");
    if (text !== "") this.blocks.push({ kind: "paragraph", text });
  }

  private bufferIsLabels(): boolean {
    const { buffer } = this;
    return (
      buffer.length > 0 &&
      buffer.length <= LABEL_LINES_MAX &&
      buffer.every((line) => line.length <= LABEL_LINE_MAX_CHARS && !ENDS_CLAUSE.test(line))
    );
  }

  private previousEndsClause(): boolean {
    return this.buffer.length === 0 || ENDS_CLAUSE.test(this.buffer[this.buffer.length - 1] as string);
  }

  /** A line holding one figure: it joins the labels above it, the row before it, or the open sentence. */
  private addCell(text: string): void {
    const last = this.blocks[this.blocks.length - 1];
    if (this.bufferIsLabels()) {
      this.blocks.push({ kind: "table-row", cells: [...this.buffer, text] });
      this.buffer = [];
    } else if (this.buffer.length === 0 && last?.kind === "table-row") {
      this.blocks[this.blocks.length - 1] = { kind: "table-row", cells: [...last.cells, text] };
    } else if (this.buffer.length > 0 && !this.previousEndsClause()) {
      this.buffer.push(text);
    } else {
      this.flush();
      this.blocks.push({ kind: "table-row", cells: [text] });
    }
  }

  /** A text line: it runs the open sentence on, is a heading, or starts or continues a paragraph. Returns the last line index it used. */
  private addText(text: string, index: number, breaks: { broken: boolean; pageBreak: boolean }): number {
    const continues = this.buffer.length > 0 && !this.previousEndsClause();
    // A page break falls mid-sentence: an open sentence runs on whatever the next line starts with.
    const runsOn = continues && (breaks.pageBreak || !breaks.broken || /^[\p{Ll}(,;]/u.test(text));
    if (!runsOn) {
      const heading = standaloneHeading(text.replace(LEADING_BULLET, ""));
      if (heading) {
        this.flush();
        return this.addHeading(text, heading.title, index);
      }
      const closed = this.previousEndsClause();
      if (
        this.buffer.length > 0 &&
        (breaks.broken || breaks.pageBreak || (closed && (ENUMERATOR.test(text) || SECTION_START.test(text))))
      ) {
        this.flush();
      }
    }
    this.buffer.push(text);
    return index;
  }

  /** A standalone heading; a heading line without a title takes it from the next text line. Returns the last line index it used. */
  private addHeading(text: string, title: string | undefined, index: number): number {
    let headingText = text.replace(LEADING_BULLET, "");
    let last = index;
    if (title === undefined) {
      // The title may stand on the next text line: `ARTICLE 8` / `ASSIGNMENT AND SUBLETTING`.
      let next = index + 1;
      while (next < this.kinds.length && (this.kinds[next] as LineKind).kind !== "text") {
        const kind = (this.kinds[next] as LineKind).kind;
        if (kind !== "blank" && kind !== "furniture") break;
        next++;
      }
      const candidate = this.kinds[next];
      if (candidate?.kind === "text" && isHeadingTitle(candidate.text)) {
        headingText = `${text} ${candidate.text}`;
        last = next;
      }
    }
    this.blocks.push({ kind: "heading", level: 1, text: headingText });
    return last;
  }
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
  const blocks = new PageReflow(lineKinds(page)).run();
  const reflowed: ReflowedBlock[] = [];
  for (let index = 0; index < blocks.length; ) {
    const block = blocks[index] as ReflowedBlock;
    if (block.kind !== "table-row") {
      reflowed.push(block);
      index += 1;
      continue;
    }
    let end = index + 1;
    while (end < blocks.length && blocks[end]?.kind === "table-row") end += 1;
    const run = blocks.slice(index, end) as Extract<ReflowedBlock, { kind: "table-row" }>[];
    const pairs = spilledRows(run);
    const rows = pairs ? pairs.map((cells) => ({ cells, header: run[0]?.header })) : run;
    for (const { cells, header } of rows) {
      reflowed.push(
        header?.length === cells.length ? { kind: "table-row", header, cells } : { kind: "table-row", cells },
      );
    }
    index = end;
  }
  return reflowed;
}
