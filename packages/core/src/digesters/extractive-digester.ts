import { InvalidOptionError } from "@context-cleaner/assembler";
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

function classify(sentence: string): DigestSection | undefined {
  if (DEFINITION.test(sentence)) return "definedTerms";
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
function rowBullet(cells: readonly string[], max: number): string | undefined {
  let text = "";
  let lastFigureEnd = 0;
  for (const cell of cells) {
    const next = text === "" ? cell : `${text} | ${cell}`;
    if (next.length > max) break;
    text = next;
    if (FIGURE_CELL.test(cell)) lastFigureEnd = text.length;
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

/** Each bullet renders as "  - Label: text\n"; 24 chars covers the longest label. */
const BULLET_OVERHEAD = 24;

function candidates(blocks: readonly ReflowedBlock[]): Map<DigestSection, string[]> {
  const groups = new Map<DigestSection, string[]>(SELECTION_ORDER.map((section) => [section, []]));
  const { maxBulletChars, minSentenceChars } = EXTRACTIVE_DEFAULTS;
  // Table rows come first among the amounts: a row is a label with its figures, the densest fact on a page.
  const rows: string[] = [];
  for (const block of blocks) {
    if (block.kind === "table-row") {
      const bullet = rowBullet(block.cells, maxBulletChars);
      if (bullet && block.cells.length >= 2) rows.push(bullet);
      continue;
    }
    if (block.kind !== "paragraph") continue;
    for (const sentence of splitSentences(block.text)) {
      if (sentence.length < minSentenceChars || OPENS_MID_SENTENCE.test(sentence)) continue;
      // The last piece of a page or paragraph may be cut off; an unfinished sentence is left out.
      if (!endsSentence(sentence)) continue;
      const bullet = trimAtClause(sentence, maxBulletChars);
      if (bullet === undefined) continue;
      const section = classify(bullet);
      if (section) groups.get(section)?.push(bullet);
    }
  }
  groups.set("amounts", [...rows, ...(groups.get("amounts") ?? [])]);
  return groups;
}

/**
 * Deterministic selection of one page's bullets within the budget: the page reflowed
 * (wraps joined, furniture dropped), its headings as the outline, then whole sentences,
 * clauses and table rows, round-robin by kind, in page order.
 */
export function extractBullets(content: string, bulletBudgetChars: number): DigestBullets {
  const blocks = reflowText(content);
  const points = outline(blocks, Math.floor(bulletBudgetChars * EXTRACTIVE_DEFAULTS.outlineShare));
  const groups = candidates(blocks);
  const cursor = new Map<DigestSection, number>();
  const picked = new Map<DigestSection, string[]>();
  if (points.length > 0) picked.set("points", points);
  const seen = new Set<string>();
  let room = bulletBudgetChars - points.reduce((sum, point) => sum + point.length + BULLET_OVERHEAD, 0);
  let progressed = true;
  while (progressed && room > 0) {
    progressed = false;
    for (const section of SELECTION_ORDER) {
      const list = groups.get(section) ?? [];
      let index = cursor.get(section) ?? 0;
      while (index < list.length) {
        const sentence = list[index] as string;
        index += 1;
        const cost = sentence.length + BULLET_OVERHEAD;
        if (seen.has(sentence) || cost > room) continue;
        seen.add(sentence);
        picked.set(section, [...(picked.get(section) ?? []), sentence]);
        room -= cost;
        progressed = true;
        break;
      }
      cursor.set(section, index);
    }
  }
  return Object.fromEntries(picked) as DigestBullets;
}

/**
 * The extractive digester: no network, deterministic; the embedded default
 * and the fallback of the model digester. Reflows the page (hard wraps joined, page
 * furniture dropped), outlines its headings, and selects whole sentences, clauses trimmed
 * at clause boundaries and table rows that define terms, state amounts, obligations,
 * dates, parties and cross-references, round-robin by kind, in page order, within
 * `bulletBudgetChars`.
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
