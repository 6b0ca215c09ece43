import { contentText } from "../content";
import type { Message } from "../types";

/**
 * Material figures of legal and financial text (docs/architecture.md#the-digest-contract):
 * amounts, percentages, dates, section references, defined terms, party names. Every
 * pattern is bounded (no nested unbounded quantifiers, and number runs start only at a
 * run's first digit), so a scan is linear in the text length even on adversarial input.
 */

const MONTHS =
  "(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan\\.|Feb\\.|Mar\\.|Apr\\.|Jun\\.|Jul\\.|Aug\\.|Sept?\\.|Oct\\.|Nov\\.|Dec\\.)";
/**
 * A whole number: it starts at the first digit of its run and ends at the last (`1,250,000`,
 * `2.5`, `12`, `33.333333333`); up to 12 decimals, so a long fraction is not cut short.
 */
const NUMBER = "(?<![\\d.,])(?:\\d{1,3}(?:,\\d{3}){1,6}|\\d{1,15})(?:\\.\\d{1,12})?(?!\\d)";
const SCALE = "(?:[ \\t]?(?:million|billion|thousand|trillion)\\b|(?:mm|bn|m|k|M|K|B)(?![A-Za-z]))";
const CURRENCY_CODE = "(?:USD|US\\$|EUR|GBP|CHF|CAD|AUD|JPY)";
const ORDINAL = "(?:st|nd|rd|th)";
const REF_NUMBER = "(?:\\d{1,4}(?:\\.\\d{1,4}){0,5}[A-Za-z]?(?:\\([A-Za-z0-9]{1,5}\\)){0,4})";
const REF_ROMAN = "(?:[IVXLC]{1,8}(?![A-Za-z]))";
const REF_LETTER = "(?:[A-Z](?:-\\d{1,3})?(?![A-Za-z]))";
const REF_RANGE = `(?:[ \\t]?(?:[–—-]|to|through)[ \\t]?${REF_NUMBER})?`;
const NAME_WORD = "(?:[A-Z][A-Za-z0-9'’\\-]{0,40}|&|of)";
const ENTITY_SUFFIX =
  "(?:L\\.L\\.C\\.|LLC|L\\.L\\.P\\.|LLP|L\\.P\\.|LP|Inc\\.?|Incorporated|Corp\\.?|Corporation|Co\\.|Ltd\\.?|Limited|GmbH|AG|S\\.A\\.|PLC|plc|N\\.V\\.|B\\.V\\.|Pty\\.? Ltd\\.?)";
const TERM_WORD = "[A-Z0-9][A-Za-z0-9'’&.\\-]{0,40}";
// Stryker disable next-line StringLiteral: an empty joiner leaves `{0,8}` nothing to repeat, so the module cannot load (the vitest runner reports no test failing)
const TERM_JOINER = `(?:[ \\t]{1,3}(?:${TERM_WORD}|of|and|the|for|in|to|on|a|an|or|per))`;

/** Pattern sources, in no particular order; overlaps are resolved by position and length. */
const FIGURE_PATTERNS: readonly string[] = [
  // money: symbol first, code first, code after
  `[$€£¥][ \\t]?${NUMBER}${SCALE}?`,
  `\\b${CURRENCY_CODE}[ \\t]?${NUMBER}${SCALE}?`,
  `${NUMBER}${SCALE}?[ \\t]?(?:${CURRENCY_CODE}|dollars|euros|pounds)\\b`,
  // percentages
  `${NUMBER}[ \\t]?(?:%|percent\\b|per[ \\t]cent\\b)`,
  // dates
  `\\b${MONTHS}(?![A-Za-z])[ \\t]{1,3}\\d{1,2}${ORDINAL}?,?[ \\t]{1,3}\\d{4}\\b`,
  `(?<!\\d)\\d{1,2}${ORDINAL}?[ \\t]{1,3}${MONTHS}(?![A-Za-z]),?[ \\t]{1,3}\\d{4}\\b`,
  `(?<!\\d)\\d{1,2}${ORDINAL}?[ \\t]{1,3}day[ \\t]{1,3}of[ \\t]{1,3}${MONTHS}(?![A-Za-z]),?[ \\t]{1,3}\\d{4}\\b`,
  "(?<![\\d-])\\d{4}-\\d{2}-\\d{2}(?![\\d-])",
  "(?<![\\d/])\\d{1,2}/\\d{1,2}/(?:\\d{4}|\\d{2})(?![\\d/])",
  // section references
  `§§?[ \\t]?${REF_NUMBER}${REF_RANGE}`,
  `\\b(?:[Ss]ections?|SECTIONS?|[Aa]rticles?|ARTICLES?|[Cc]lauses?|CLAUSES?|[Pp]aragraphs?|Exhibits?|EXHIBITS?|Schedules?|SCHEDULES?|Annex(?:es)?|ANNEX(?:ES)?|Appendix|Appendices|APPENDIX|Riders?)[ \\t]{1,3}(?:${REF_NUMBER}${REF_RANGE}|${REF_ROMAN}|${REF_LETTER})`,
  // quoted defined terms, straight and curly quotes
  `"${TERM_WORD}${TERM_JOINER}{0,8}"`,
  `“${TERM_WORD}${TERM_JOINER}{0,8}”`,
  // party names with an entity suffix
  `(?<![A-Za-z0-9])${NAME_WORD}(?:[ \\t]{1,3}${NAME_WORD}){0,5},?[ \\t]{1,3}${ENTITY_SUFFIX}(?![A-Za-z])`,
];

const FIGURE_REGEXES: readonly RegExp[] = FIGURE_PATTERNS.map((source) => new RegExp(source, "g"));

/** Leading words that are not part of a party name ("The Acme Holdings, LLC" → "Acme Holdings, LLC"). */
const NAME_STOP_WORDS = new Set([
  "the",
  "this",
  "that",
  "these",
  "and",
  "between",
  "among",
  "by",
  "with",
  "whereas",
  "made",
  "is",
  "of",
  "to",
  "from",
  "for",
  "each",
  "said",
  "such",
  "agreement",
  "dated",
  "landlord",
  "tenant",
  "lessor",
  "lessee",
  "buyer",
  "seller",
  "borrower",
  "lender",
  "&",
]);

const PARTY_PATTERN_INDEX = FIGURE_PATTERNS.length - 1;
const SUFFIX_ONLY = new RegExp(`^,?[ \\t]*${ENTITY_SUFFIX}$`);
const LEADING_WORD = /^([^\s,]+)[ \t]+/;

/** Drops leading stop words of a party-name match; `undefined` when nothing but the suffix remains. */
function trimPartyName(match: string, start: number): { text: string; start: number } | undefined {
  let text = match;
  let offset = start;
  // Stryker disable next-line EqualityOperator,AssignmentOperator: a match holds at most six words and each step strips one or stops, so the bound is never reached
  for (let step = 0; step < 8; step += 1) {
    const word = LEADING_WORD.exec(text);
    if (!word?.[1] || !NAME_STOP_WORDS.has(word[1].toLowerCase())) break;
    offset += word[0].length;
    text = text.slice(word[0].length);
  }
  return SUFFIX_ONLY.test(text) ? undefined : { text, start: offset };
}

/**
 * The material figures of a text, verbatim as they occur, unique, in order of first
 * occurrence: money, percentages, dates in legal forms, section / article / § references,
 * quoted defined terms (straight and curly quotes) and party names with entity suffixes.
 * Plain numbers (page numbers, small integers) are not figures. Linear in the text length.
 *
 * @example
 * extractFigures('Rent is $1,250,000 per year (the "Base Rent"), see §8.3.');
 * // → ["$1,250,000", "\"Base Rent\"", "§8.3"]
 */
export function extractFigures(text: string): string[] {
  const found: { start: number; end: number; text: string }[] = [];
  FIGURE_REGEXES.forEach((pattern, index) => {
    const regex = new RegExp(pattern.source, pattern.flags);
    for (const match of text.matchAll(regex)) {
      const start = match.index ?? 0;
      // Stryker disable next-line ConditionalExpression: no other pattern's match starts with a stop word or is a bare suffix, so trimming leaves it whole
      if (index === PARTY_PATTERN_INDEX) {
        const party = trimPartyName(match[0], start);
        if (party) found.push({ start: party.start, end: start + match[0].length, text: party.text });
      } else {
        found.push({ start, end: start + match[0].length, text: match[0] });
      }
    }
  });
  // Earliest first, longest first on ties; a match inside an accepted one is dropped.
  found.sort((left, right) => left.start - right.start || right.end - left.end);
  const figures: string[] = [];
  const seen = new Set<string>();
  let coveredUntil = -1;
  for (const figure of found) {
    if (figure.start < coveredUntil) continue;
    coveredUntil = figure.end;
    if (seen.has(figure.text)) continue;
    seen.add(figure.text);
    figures.push(figure.text);
  }
  return figures;
}

/** Collapses whitespace runs to one space and trims, the comparison form of figure checks. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function collectArgText(value: unknown, parts: string[]): void {
  if (typeof value === "string") parts.push(value);
  else if (typeof value === "number" || typeof value === "boolean") parts.push(String(value));
  else if (Array.isArray(value)) for (const item of value) collectArgText(item, parts);
  else if (value !== null && typeof value === "object") {
    for (const item of Object.values(value)) collectArgText(item, parts);
  }
}

function messagesText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const message of messages) {
    parts.push(contentText(message.content));
    if (message.role === "assistant" && message.toolCalls) {
      for (const call of message.toolCalls) collectArgText(call.args, parts);
    }
  }
  return normalizeWhitespace(parts.join("\n"));
}

/** Result of {@link checkFigureProvenance}. */
export interface FigureProvenanceResult {
  /** True when every figure occurs. */
  ok: boolean;
  /** The figures that occur nowhere, in input order. */
  missing: string[];
}

/**
 * Checks that figures an artifact tool is about to write (spreadsheet, tracker) occur
 * verbatim (whitespace-normalized) in the raw thread: tool results, user and assistant
 * text, and tool-call args. With `options.view`, checks the assembled view instead: a
 * figure that lives only in condensed content is then missing, and the caller should
 * force a re-read of its source before writing it.
 *
 * @example
 * const { ok, missing } = checkFigureProvenance(["$1,250,000"], thread);
 * if (!ok) throw new Error(`unsourced figures: ${missing.join(", ")}`);
 */
export function checkFigureProvenance(
  figures: readonly string[],
  messages: readonly Message[],
  options: { view?: readonly Message[] } = {},
): FigureProvenanceResult {
  const haystack = messagesText(options.view ?? messages);
  const missing: string[] = [];
  for (const figure of figures) {
    const needle = normalizeWhitespace(figure);
    if (needle === "" || !haystack.includes(needle)) missing.push(figure);
  }
  return { ok: missing.length === 0, missing };
}
