import { InvalidOptionError } from "@context-cleaner/assembler";
import type {
  DigestBullets,
  DigestModel,
  DigestRequest,
  DigestResult,
  DigestSection,
  PageDigest,
} from "../ports";

/** Defaults of the extractive digester. */
export const EXTRACTIVE_DEFAULTS = {
  /** Chars of bullets selected per page; leaves room in a 4,000-char digest for the figures line. */
  bulletBudgetChars: 2_400,
  /** A longer sentence is cut at a word boundary. */
  maxBulletChars: 280,
  /** Sentences shorter than this (headings aside) carry too little to keep. */
  minSentenceChars: 24,
} as const;

/** The id the extractive digester reports as its model. */
export const EXTRACTIVE_MODEL_ID = "extractive";

const HEADING =
  /^(?:(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex)\b|§\s?\d|\d{1,3}(?:\.\d{1,3})*\.?\s+[A-Z])|^[A-Z0-9][A-Z0-9 ,.&'’()\-–—:]{3,}$/;
const DEFINITION =
  /["“][A-Z][^"”\n]{0,80}["”]\s*(?:shall\s+)?(?:means?|has the meaning|refers? to|includes?)\b|\((?:the|each,? an?|collectively,? the)?\s*["“][A-Z]/;
const OBLIGATION = /\b(?:shall|must|will|agrees?|covenants?|undertakes?|(?:is|are) required to|may not)\b/;
const AMOUNT = /[$€£¥]\s?\d|\b(?:USD|EUR|GBP)\s?\d|\d\s?(?:%|percent\b|per cent\b)|\d\s?(?:USD|EUR|GBP)\b/;
const DATE =
  /\b(?:January|February|March|April|May|June|July|August|September|October|November|December)\s+\d{1,2}\b|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:day\s+of\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/;
const PARTY =
  /\b[A-Z][\w&'’-]*,?\s+(?:LLC|L\.P\.|LP|LLP|Inc\.?|Corporation|Corp\.|GmbH|Ltd\.?|Limited|PLC|AG)(?![A-Za-z])/;
const CROSS_REFERENCE = /§|\b(?:Section|Article|Exhibit|Schedule|[Cc]lause|Annex|Appendix)\s+[\dA-Z]/;
const SENTENCE_BREAK = /(?<=[.;!?])\s+(?=["“(§A-Z0-9])/;

/** Selection order of the groups; candidates are taken round-robin so every kind of fact is represented. */
const SELECTION_ORDER: readonly DigestSection[] = [
  "points",
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

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

function candidates(content: string): Map<DigestSection, string[]> {
  const groups = new Map<DigestSection, string[]>(SELECTION_ORDER.map((section) => [section, []]));
  for (const rawLine of content.split(/\n+/)) {
    const line = rawLine.replace(/\s+/g, " ").trim();
    if (line === "") continue;
    if (line.length <= 100 && HEADING.test(line) && !/[.;]\s*$/.test(line.replace(/\d\.$/, ""))) {
      groups.get("points")?.push(cutAtWord(line, EXTRACTIVE_DEFAULTS.maxBulletChars));
      continue;
    }
    for (const sentence of line.split(SENTENCE_BREAK)) {
      if (sentence.length < EXTRACTIVE_DEFAULTS.minSentenceChars) continue;
      const section = classify(sentence);
      if (section) groups.get(section)?.push(cutAtWord(sentence, EXTRACTIVE_DEFAULTS.maxBulletChars));
    }
  }
  return groups;
}

/** Deterministic selection of one page's bullets within the budget. */
export function extractBullets(content: string, bulletBudgetChars: number): DigestBullets {
  const groups = candidates(content);
  const cursor = new Map<DigestSection, number>();
  const picked = new Map<DigestSection, string[]>();
  const seen = new Set<string>();
  let room = bulletBudgetChars;
  let progressed = true;
  while (progressed && room > 0) {
    progressed = false;
    for (const section of SELECTION_ORDER) {
      const list = groups.get(section) ?? [];
      let index = cursor.get(section) ?? 0;
      while (index < list.length) {
        const sentence = list[index] as string;
        index += 1;
        // Each bullet renders as "  - Label: text\n"; 24 chars covers the longest label.
        const cost = sentence.length + 24;
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
 * and the fallback of the model digester. Selects headings and sentences that define
 * terms, state amounts, obligations, dates, parties and cross-references, round-robin by
 * kind, in document order, within `bulletBudgetChars`.
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
