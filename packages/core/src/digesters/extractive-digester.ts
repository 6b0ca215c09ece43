import { InvalidOptionError } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { figureSpans } from "@context-cleaner/assembler/internal";
import type {
  DigestBullets,
  DigestModel,
  DigestRequest,
  DigestResult,
  DigestSection,
  PageDigest,
} from "../ports";
import { type ReflowedBlock, reflowText } from "./reflow-text";
import { endsSentence, splitSentences, trimAtClause } from "./split-sentences";

/** Defaults of the extractive digester. */
export const EXTRACTIVE_DEFAULTS = {
  /** Chars of bullets selected per page; leaves room in a 4,000-char digest for the figures line. */
  bulletBudgetChars: 2_400,
  /** A longer sentence is trimmed at a clause boundary, or left out when it has none. */
  maxBulletChars: 280,
  /** Sentences shorter than this (headings aside) carry too little to keep. */
  minSentenceChars: 24,
  /** Share of the bullet budget the outline (the page's headings) may take. */
  outlineShare: 0.35,
  /** An outline bullet (a heading and the run-in titles under it) is at most this long. */
  maxOutlineChars: 240,
  /** Share of the bullet budget kept for labelled figures: a figure no selected bullet carries, with its label. */
  labelShare: 0.4,
  /** A labelled figure's bullet (section, label words and the figure) is at most this long. */
  maxLabelChars: 120,
  /** Words of the figure's own sentence taken as its label, at most. */
  maxLabelWords: 8,
  /** A defined term's value (`“Term”: 128 months, …`) is cut at a clause boundary past this many chars. */
  maxTermValueChars: 100,
  /** Share of the bullet budget a table of contents, digested as one outline of number and title, may take. */
  contentsShare: 0.15,
} as const;

/** The id the extractive digester reports as its model. */
export const EXTRACTIVE_MODEL_ID = "extractive";

const DEFINITION =
  /["“][A-Z][^"”\n]{0,80}["”]\s*(?:shall\s+)?(?:means?|has the meaning|refers? to|includes?)\b|\((?:the|each,? an?|collectively,? the)?\s*["“][A-Z]/;
const OBLIGATION = /\b(?:shall|must|will|agrees?|covenants?|undertakes?|(?:is|are) required to|may not)\b/;
const AMOUNT = /[$€£¥]\s?\d|\b(?:USD|EUR|GBP)\s?\d|\d\s?(?:%|percent\b|per cent\b)|\d\s?(?:USD|EUR|GBP)\b/;
const DATE =
  /\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/;
const PARTY =
  /\b[A-Z][\w&'’-]*,?\s+(?:LLC|L\.P\.|LP|LLP|Inc\.?|Corporation|Corp\.|GmbH|Ltd\.?|Limited|PLC|AG)(?![A-Za-z])/;
const CROSS_REFERENCE = /§|\b(?:Section|Article|Exhibit|Schedule|[Cc]lause|Annex|Appendix)\s+[\dA-Z]/;
/** A sentence that opens mid-sentence (a page starting mid-sentence, a stray continuation). */
const OPENS_MID_SENTENCE = /^(?:\p{Ll}|[),;:.\]’”])/u;
const FIGURE_CELL = /\d/;

/** Selection order of the groups; candidates are taken round-robin so every kind of fact is represented. */
const SELECTION_ORDER: readonly DigestSection[] = [
  "definedTerms",
  "amounts",
  "obligations",
  "dates",
  "parties",
  "crossReferences",
];

function classify(sentence: string, definitions = true): DigestSection | undefined {
  if (definitions && DEFINITION.test(sentence)) return "definedTerms";
  if (AMOUNT.test(sentence)) return "amounts";
  if (OBLIGATION.test(sentence)) return "obligations";
  if (DATE.test(sentence)) return "dates";
  if (PARTY.test(sentence)) return "parties";
  if (CROSS_REFERENCE.test(sentence)) return "crossReferences";
  return undefined;
}

/**
 * A table row as one bullet, its cells joined by ` | ` so each label stays beside its
 * figures; a row too long for a bullet is cut after a figure cell, never inside a cell.
 */
function rowBullet(
  cells: readonly string[],
  header: readonly string[] | undefined,
  max: number,
): string | undefined {
  let text = "";
  let lastFigureEnd = 0;
  for (const [index, raw] of cells.entries()) {
    // Each cell after the row's label carries its column's header: `Commitment: $87,500,000.00`.
    const name = index > 0 ? header?.[index] : undefined;
    const cell = name ? `${name}: ${raw}` : raw;
    const next = text === "" ? cell : `${text} | ${cell}`;
    if (next.length > max) break;
    text = next;
    if (FIGURE_CELL.test(raw)) lastFigureEnd = text.length;
  }
  return lastFigureEnd > 0 ? text.slice(0, lastFigureEnd) : undefined;
}

/**
 * The outline of a page: each standalone heading with the run-in titles under it
 * (`ARTICLE 8 ASSIGNMENT: 8.1 Consent; 8.2 Transferees`), in page order, within `budget`
 * chars (each bullet costs its length plus the rendering overhead).
 */
function outline(blocks: readonly ReflowedBlock[], budget: number): string[] {
  const bullets: string[] = [];
  let head = "";
  let children: string[] = [];
  const render = (titles: readonly string[]) =>
    head === "" ? titles.join("; ") : titles.length === 0 ? head : `${head}: ${titles.join("; ")}`;
  const close = () => {
    const text = render(children);
    if (text !== "") bullets.push(text);
    head = "";
    children = [];
  };
  for (const block of blocks) {
    if (block.kind !== "heading") continue;
    const text = block.text.replace(/[.:]$/, "");
    if (block.level === 1) {
      close();
      head = text;
    } else if (render([...children, text]).length > EXTRACTIVE_DEFAULTS.maxOutlineChars) {
      close();
      children = [text];
    } else {
      children.push(text);
    }
  }
  close();
  const kept: string[] = [];
  let room = budget;
  for (const bullet of bullets) {
    if (bullet.length > EXTRACTIVE_DEFAULTS.maxOutlineChars || bullet.length + BULLET_OVERHEAD > room)
      continue;
    kept.push(bullet);
    room -= bullet.length + BULLET_OVERHEAD;
  }
  return kept;
}

/** The heading of a contents or index page: `TABLE OF CONTENTS`, `Contents`, `INDEX OF DEFINED TERMS`. */
const CONTENTS_HEADING =
  /(?:^|\s)(?:TABLE OF CONTENTS|Table of Contents|CONTENTS|Contents|INDEX OF DEFINED TERMS|Index of Defined Terms)$/;
/** A contents entry's number on a line of its own: `1.1`, `Section 2.3`, `12.`. */
const ENTRY_NUMBER = /^(?:(?:Section|SECTION)\s+)?\d{1,3}(?:\.\d{1,3}){0,3}\.?$/;
/** Lines of a contents page that are neither number nor title: `Page`. */
const CONTENTS_FURNITURE = /^(?:Page|PAGE|Pages?\s+No\.?)$/;
/** A contents page ends at prose: a paragraph this long that is not entries wrapped into running text. */
const CONTENTS_ENTRY_MAX_CHARS = 100;
/** An entry that ends like a sentence (`Intentionally Omitted.`) is at most this many words. */
const CONTENTS_SENTENCE_MAX_WORDS = 6;

/** Where an entry of a contents page wrapped into running text starts: `ARTICLE I.`, `Section 1.01`. */
const WRAPPED_ENTRY =
  /(?:^|\s)(?=(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix)\s+(?:[IVXLC]{1,7}\b|\d|[A-Z]\b))/g;
/** The page number a contents entry ends with: `12`, `A-1`, `iv`. */
const ENTRY_PAGE = /\s+(?:\d{1,3}|[A-Z]-\d{1,3}|[ivxlc]{1,6})$/;
/** A contents page wrapped into running text has at least this many entries. */
const WRAPPED_ENTRIES_MIN = 3;

/**
 * The entries of a contents page wrapped into running text (`ARTICLE I. DEFINITIONS 1
 * Section 1.01 Definitions 1 …`), each without its page number; undefined when the text is
 * not one (too few entries, or most of them without a page number).
 */
function wrappedEntries(text: string): string[] | undefined {
  const starts = [...text.matchAll(WRAPPED_ENTRY)].map((match) => (match.index ?? 0) + match[0].length);
  if (starts.length < WRAPPED_ENTRIES_MIN) return undefined;
  const lead = text.slice(0, starts[0]).trim();
  if (lead !== "" && !CONTENTS_FURNITURE.test(lead)) return undefined;
  const entries: string[] = [];
  let paged = 0;
  for (const [index, start] of starts.entries()) {
    const piece = text.slice(start, starts[index + 1] ?? text.length).trim();
    if (ENTRY_PAGE.test(piece)) paged += 1;
    entries.push(piece.replace(ENTRY_PAGE, ""));
  }
  return paged * 2 >= entries.length ? entries : undefined;
}

/** A contents page's entries (number → title) and the blocks it spans. */
interface Contents {
  readonly heading: string;
  readonly entries: readonly string[];
  readonly from: number;
  readonly to: number;
}

/**
 * The table of contents of a page: from a `TABLE OF CONTENTS` heading to the first prose
 * paragraph,
 * each entry its number with its title (`1.1 Formation and Continuation`), the page numbers
 * left out; undefined when the page has none.
 */
function contents(blocks: readonly ReflowedBlock[]): Contents | undefined {
  const from = blocks.findIndex((block) => block.kind !== "table-row" && CONTENTS_HEADING.test(block.text));
  if (from === -1) return undefined;
  const tokens: string[] = [];
  let to = from + 1;
  for (; to < blocks.length; to++) {
    const block = blocks[to] as ReflowedBlock;
    if (block.kind === "table-row") tokens.push(...block.cells);
    else if (block.kind === "heading") tokens.push(block.text);
    // A short line is an entry even when it ends like a sentence (`Intentionally Omitted.`); a sentence of prose is not.
    else if (
      block.text.length <= CONTENTS_ENTRY_MAX_CHARS &&
      !(endsSentence(block.text) && block.text.split(" ").length > CONTENTS_SENTENCE_MAX_WORDS)
    )
      tokens.push(block.text);
    else {
      const wrapped = wrappedEntries(block.text);
      if (!wrapped) break;
      tokens.push(...wrapped);
    }
  }
  const entries: string[] = [];
  let number: string | undefined;
  for (const token of tokens) {
    if (CONTENTS_FURNITURE.test(token)) continue;
    const text = token.replace(/^(?:Section|SECTION)\s+/, "");
    if (ENTRY_NUMBER.test(token)) {
      if (number !== undefined) entries.push(number);
      number = text.replace(/\.$/, "");
      continue;
    }
    entries.push(number === undefined ? text : `${number} ${text}`);
    number = undefined;
  }
  if (entries.length === 0) return undefined;
  const heading = (blocks[from] as { text: string }).text.match(CONTENTS_HEADING)?.[0].trim() ?? "";
  return { heading, entries, from, to };
}

/** A contents page as outline bullets of at most `maxOutlineChars`, its entries in order, within `budget` chars. */
function contentsOutline(toc: Contents, budget: number): string[] {
  const bullets: string[] = [];
  let room = budget;
  let line = `${toc.heading}:`;
  let first = true;
  const close = () => {
    if (line.length + BULLET_OVERHEAD > room) return false;
    bullets.push(line);
    room -= line.length + BULLET_OVERHEAD;
    return true;
  };
  for (const entry of toc.entries) {
    if (entry.length > EXTRACTIVE_DEFAULTS.maxOutlineChars / 2) continue;
    const next = first ? `${line} ${entry}` : `${line}; ${entry}`;
    if (next.length > EXTRACTIVE_DEFAULTS.maxOutlineChars) {
      if (!close()) return bullets;
      line = entry;
    } else {
      line = next;
    }
    first = false;
    if (line.length + BULLET_OVERHEAD > room) return bullets;
  }
  close();
  return bullets;
}

/** Each bullet renders as "  - Label: text\n"; 24 chars covers the longest label. */
const BULLET_OVERHEAD = 24;

/** One candidate of a group: a sentence, or a table's rows (taken together, in order). */
type Candidate = readonly string[];

/** A definition that states its term's value: `“Term” means 128 months, …`, `“X” shall have the meaning …`. */
const DEFINES =
  /^(?:\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2})\)\s*)?([“"][^”"]{1,80}[”"])\s+(?:(?:shall\s+)?means?|shall\s+mean|is|are|shall\s+be|(?:shall\s+)?refers?\s+to|(?:shall\s+have|has)(?=\s+the\s+meaning))\s+(\S.*?)[.;:]?$/;
/** A term defined by what stands just before it: `July 21, 2020 (the “Effective Date”)`, `Acme Holdings, LLC (“Landlord”)`. */
const NAMED_AFTER =
  /^,?\s*\((?:(?:the|each,?\s+an?|collectively,?\s+the|hereinafter,?\s+(?:the\s+)?|individually,?\s+an?)\s*)?([“"][^”"]{1,80}[”"])\)/;
const ENTITY_NAME =
  /(?:L\.?L\.?C\.?|L\.?L\.?P\.?|L\.P\.|LP|Inc\.?|Incorporated|Corp\.?|Corporation|Co\.|Ltd\.?|Limited|GmbH|AG|S\.A\.|PLC|plc|N\.V\.|B\.V\.|N\.A\.)$/;

/** `“Term”: value` of a definition sentence, the value cut at a clause boundary; undefined when it is not one. */
function definedValue(sentence: string): string | undefined {
  const match = DEFINES.exec(sentence);
  const complete = endsSentence(sentence);
  if (!match) return undefined;
  const term = match[1] as string;
  const value = match[2] as string;
  const { maxTermValueChars } = EXTRACTIVE_DEFAULTS;
  let kept = trimAtClause(value, maxTermValueChars, 0);
  if (kept === undefined) {
    const cut = value.slice(0, maxTermValueChars);
    kept = `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 1))} — …`;
  }
  // A value cut off by the end of the page is marked as cut, like a trimmed clause.
  if (!complete && !kept.endsWith("…")) kept = `${kept.replace(/[,;:]$/, "")} — …`;
  return `${term}: ${kept}`;
}

/** `“Term”: figure` for each term a sentence names after a figure (a date, an amount, a party) it stands for. */
function namedFigures(sentence: string): string[] {
  const lines: string[] = [];
  let coveredUntil = -1;
  for (const span of figureSpans(sentence)) {
    if (span.start < coveredUntil) continue;
    coveredUntil = span.end;
    if (!span.numeric && !ENTITY_NAME.test(span.text)) continue;
    const named = NAMED_AFTER.exec(sentence.slice(span.end));
    if (named) lines.push(`${named[1] as string}: ${span.text}`);
  }
  return lines;
}

function candidates(blocks: readonly ReflowedBlock[]): Map<DigestSection, Candidate[]> {
  const groups = new Map<DigestSection, Candidate[]>(SELECTION_ORDER.map((section) => [section, []]));
  const push = (section: DigestSection, candidate: Candidate) => groups.get(section)?.push(candidate);
  const { maxBulletChars, minSentenceChars } = EXTRACTIVE_DEFAULTS;
  // Tables come first among the amounts: a row is a label with its figures, the densest fact on a page.
  const tables: string[][] = [];
  let table: string[] | undefined;
  for (const block of blocks) {
    if (block.kind !== "table-row") {
      table = undefined;
      if (block.kind !== "paragraph") continue;
    } else {
      const bullet = rowBullet(block.cells, block.header, maxBulletChars);
      if (bullet && block.cells.length >= 2) {
        if (!table) {
          table = [];
          tables.push(table);
        }
        table.push(bullet);
      }
      continue;
    }
    for (const sentence of splitSentences(block.text)) {
      if (sentence.length < minSentenceChars || OPENS_MID_SENTENCE.test(sentence)) continue;
      // A definition is its term with its value, whether or not its sentence ends on the page.
      const defined = definedValue(sentence);
      if (defined !== undefined) {
        push("definedTerms", [defined]);
        continue;
      }
      // The last piece of a page or paragraph may be cut off; an unfinished sentence is left out.
      if (!endsSentence(sentence)) continue;
      const named = namedFigures(sentence);
      for (const line of named) push("definedTerms", [line]);
      const bullet = trimAtClause(sentence, maxBulletChars);
      if (bullet === undefined) continue;
      const section = classify(bullet, named.length === 0);
      if (section) push(section, [bullet]);
    }
  }
  groups.set("amounts", [...tables, ...(groups.get("amounts") ?? [])]);
  return groups;
}

/** Words of a label that say something: four letters or more, not a function word. */
const LABEL_WORD = /\p{L}{4,}/u;
const FUNCTION_WORDS = new Set([
  "shall",
  "such",
  "that",
  "with",
  "from",
  "which",
  "this",
  "than",
  "then",
  "each",
  "upon",
  "into",
]);
/** A heading's section number and first words, the figure's section: `3.3 Deposit`, `ARTICLE 8 ASSIGNMENT`. */
const SECTION_LABEL_MAX_CHARS = 48;

function sectionLabel(heading: string): string {
  const text = heading.replace(/[.:]$/, "");
  if (text.length <= SECTION_LABEL_MAX_CHARS) return text;
  const cut = text.slice(0, SECTION_LABEL_MAX_CHARS);
  return cut.slice(0, Math.max(cut.lastIndexOf(" "), 1));
}

/**
 * The label of a figure from its own sentence: the words just before it, back to a clause
 * boundary, enough to hold two words that say something (`a Deposit in the amount of`),
 * verbatim, so the line reads as the page does; none when no such word comes before it.
 */
function labelWords(sentence: string, at: number, figure: string): string | undefined {
  const { maxLabelWords } = EXTRACTIVE_DEFAULTS;
  const before =
    sentence
      .slice(0, at)
      .split(/(?<=[;:])\s+/)
      .at(-1) ?? "";
  const words = before.split(/\s+/).filter((word) => word !== "");
  const taken: string[] = [];
  let meaningful = 0;
  for (let index = words.length - 1; index >= 0 && taken.length < maxLabelWords && meaningful < 2; index--) {
    const word = words[index] as string;
    taken.unshift(word);
    if (LABEL_WORD.test(word) && !FUNCTION_WORDS.has(word.toLowerCase()) && !/\d/.test(word)) meaningful += 1;
  }
  if (meaningful === 0) return undefined;
  // The excerpt ends where its sentence does, or is marked as cut like a trimmed clause.
  const rest = sentence.slice(at + figure.length);
  const end = /^[”"’')\]]*[.;:!?][”"’')\]]*$/.test(rest) ? rest : " — …";
  return `${taken.join(" ")} ${figure}${end}`.replace(/^[,;:(\s]+/, "");
}

/**
 * Labelled figures of a page: for each numeric figure (amount, rate, date, duration, area)
 * of its prose that `covered` does not hold, one line with the figure's section heading and
 * the words of its sentence that say what it is, in page order. One figure a line, so a
 * line pairs nothing the page does not pair.
 */
function labelledFigures(blocks: readonly ReflowedBlock[], covered: ReadonlySet<string>): string[] {
  const labels: string[] = [];
  const done = new Set(covered);
  let section = "";
  for (const block of blocks) {
    if (block.kind === "heading") {
      section = sectionLabel(block.text);
      continue;
    }
    if (block.kind !== "paragraph") continue;
    for (const sentence of splitSentences(block.text)) {
      let coveredUntil = -1;
      for (const span of figureSpans(sentence)) {
        if (span.start < coveredUntil) continue;
        coveredUntil = span.end;
        if (!span.numeric || done.has(span.text)) continue;
        const words = labelWords(sentence, span.start, span.text);
        if (words === undefined) continue;
        // An excerpt that does not open its sentence is marked as one.
        const label = section === "" ? `… ${words}` : `${section}: ${words}`;
        if (label.length > EXTRACTIVE_DEFAULTS.maxLabelChars) continue;
        done.add(span.text);
        labels.push(label);
      }
    }
  }
  return labels;
}

/**
 * Deterministic selection of one page's bullets within the budget: the page reflowed
 * (wraps joined, furniture dropped), its headings as the outline, then whole sentences,
 * clauses and table rows, round-robin by kind, in page order.
 */
export function extractBullets(content: string, bulletBudgetChars: number): DigestBullets {
  const page = reflowText(content);
  // A contents page is one outline of number and title; its entries are neither headings nor table rows.
  const toc = contents(page);
  const blocks = toc ? [...page.slice(0, toc.from), ...page.slice(toc.to)] : page;
  const tocPoints = toc
    ? contentsOutline(toc, Math.floor(bulletBudgetChars * EXTRACTIVE_DEFAULTS.contentsShare))
    : [];
  const points = [
    ...tocPoints,
    ...outline(blocks, Math.floor(bulletBudgetChars * EXTRACTIVE_DEFAULTS.outlineShare)),
  ];
  const labelBudget = Math.floor(bulletBudgetChars * EXTRACTIVE_DEFAULTS.labelShare);
  const groups = candidates(blocks);
  const cursor = new Map<DigestSection, number>();
  const picked = new Map<DigestSection, string[]>();
  if (points.length > 0) picked.set("points", points);
  const seen = new Set<string>();
  let room =
    bulletBudgetChars - labelBudget - points.reduce((sum, point) => sum + point.length + BULLET_OVERHEAD, 0);
  let progressed = true;
  while (progressed && room > 0) {
    progressed = false;
    for (const section of SELECTION_ORDER) {
      const list = groups.get(section) ?? [];
      let index = cursor.get(section) ?? 0;
      while (index < list.length) {
        const candidate = list[index] as Candidate;
        index += 1;
        // A table's rows are taken in order, as many as fit; a sentence whole or not at all.
        const taken: string[] = [];
        let cost = 0;
        for (const bullet of candidate) {
          if (seen.has(bullet) && candidate.length === 1) break;
          if (cost + bullet.length + BULLET_OVERHEAD > room) break;
          taken.push(bullet);
          cost += bullet.length + BULLET_OVERHEAD;
        }
        if (taken.length === 0) continue;
        for (const bullet of taken) seen.add(bullet);
        picked.set(section, [...(picked.get(section) ?? []), ...taken]);
        room -= cost;
        progressed = true;
        break;
      }
      cursor.set(section, index);
    }
  }
  // The figures no selected bullet carries get a line each with their label, within the rest of the budget.
  room += labelBudget;
  const covered = new Set([...picked.values()].flat().flatMap((bullet) => extractFigures(bullet)));
  for (const label of labelledFigures(blocks, covered)) {
    const cost = label.length + BULLET_OVERHEAD;
    if (cost > room) continue;
    picked.set("amounts", [...(picked.get("amounts") ?? []), label]);
    room -= cost;
  }
  return Object.fromEntries(picked) as DigestBullets;
}

/**
 * The extractive digester: no network, deterministic; the embedded default
 * and the fallback of the model digester. Reflows the page (hard wraps joined, page
 * furniture dropped), outlines its headings (a table of contents as one outline of number
 * and title), and selects whole sentences, clauses trimmed at clause boundaries, defined
 * terms with their values and table rows (whole, with their column headers, a table's rows
 * together) that define terms, state amounts, obligations, dates, parties and
 * cross-references, round-robin by kind, in page order, within `bulletBudgetChars`.
 *
 * @throws {InvalidOptionError} when `bulletBudgetChars` is not a positive integer.
 * @example
 * const digester = createExtractiveDigester();
 * const result = await digester.digest({ toolName: "read_document", sourceLabel: "file_id=cd_9f2", pages });
 */
export function createExtractiveDigester(options: { bulletBudgetChars?: number } = {}): DigestModel {
  const bulletBudgetChars = options.bulletBudgetChars ?? EXTRACTIVE_DEFAULTS.bulletBudgetChars;
  if (!Number.isInteger(bulletBudgetChars) || bulletBudgetChars < 1) {
    throw new InvalidOptionError(
      `bulletBudgetChars must be a positive integer, got ${String(bulletBudgetChars)}`,
      "bulletBudgetChars",
    );
  }
  return {
    id: EXTRACTIVE_MODEL_ID,
    async digest(request: DigestRequest): Promise<DigestResult> {
      const pages: PageDigest[] = request.pages.map((page) => ({
        toolCallId: page.toolCallId,
        bullets: extractBullets(page.content, bulletBudgetChars),
      }));
      return {
        pages,
        model: EXTRACTIVE_MODEL_ID,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
        costUsd: 0,
      };
    },
  };
}
