import { contentText } from "../content";
import type { Message } from "../types";

/**
 * Material figures of legal and financial text (docs/architecture.md#the-digest-contract):
 * amounts, percentages, covenant ratios, dates, section references, defined terms, party
 * names. Every pattern is bounded (no nested unbounded quantifiers, and number runs start
 * only at a run's first digit), so a scan is linear in the text length even on adversarial
 * input.
 */

/** A case-insensitive source for one word (`Million`, `MILLION`, `million`): `[Mm][Ii]…`. */
function anyCase(word: string): string {
  return word
    .replace(/[A-Za-z]/g, (letter) => `[${letter.toUpperCase()}${letter.toLowerCase()}]`)
    .replace(/ /g, "[ \\t]");
}
function anyCaseOf(words: readonly string[]): string {
  return `(?:${words.map(anyCase).join("|")})`;
}

const MONTH_NAMES = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const MONTHS = `(?:${MONTH_NAMES.join("|")}|${MONTH_NAMES.map((name) => name.toUpperCase()).join("|")}|Jan\\.|Feb\\.|Mar\\.|Apr\\.|Jun\\.|Jul\\.|Aug\\.|Sept?\\.|Oct\\.|Nov\\.|Dec\\.)`;
/**
 * A whole number: it starts at the first digit of its run and ends at the last (`1,250,000`,
 * `2.5`, `12`, `33.333333333`); up to 12 decimals, so a long fraction is not cut short.
 */
const NUMBER = "(?<![\\d.,])(?:\\d{1,3}(?:,\\d{3}){1,6}|\\d{1,15})(?:\\.\\d{1,12})?(?![\\d])(?!\\.\\d)";
/** A small whole number of a duration or a parenthesised numeral: `30`, `128`. */
const COUNT = "(?<![\\d.,])\\d{1,4}(?![\\d])(?![.,]\\d)";
/** A scale word kept with its number, in any case: `million`, `Million`, `MM`, `bn`, `m`, `k`. */
const SCALE = `(?:[ \\t]?${anyCaseOf(["thousand", "million", "billion", "trillion"])}(?![A-Za-z])|[ \\t]?(?:MM|mm|MMs|MN|mn|bn|Bn|BN|M|K)(?![A-Za-z])|(?:m|k|b|B)(?![A-Za-z]))`;
/** Currency marks written before a number: `$`, `U.S.$`, `US$`, `C$`, `€`, `£`, `¥`, `₹`. */
const CURRENCY_SYMBOL = "(?:(?<![A-Za-z])(?:U\\.S\\.[ \\t]?|US|C|A|HK|NZ|S|R)\\$|[$€£¥₹])";
const CURRENCY_CODE = "(?:USD|EUR|GBP|CHF|CAD|AUD|JPY|CNY|RMB|HKD|SGD|NZD|SEK|NOK|DKK|INR|MXN|BRL|ZAR|KRW)";
const CURRENCY_WORD = anyCaseOf(["dollars", "euros", "pounds", "pounds sterling", "yen", "francs"]);
/** One money amount, without a range: symbol first, code first, or code / word after. */
const MONEY_ONE =
  `(?:${CURRENCY_SYMBOL}[ \\t]?${NUMBER}${SCALE}?` +
  `|(?<![A-Za-z])${CURRENCY_CODE}[ \\t]?(?:${CURRENCY_SYMBOL}[ \\t]?)?${NUMBER}${SCALE}?` +
  `|${NUMBER}${SCALE}?[ \\t]?(?:${CURRENCY_CODE}(?![A-Za-z])|${CURRENCY_WORD}(?![A-Za-z])))`;
/** Between the ends of a range: a dash, or `to` / `through` (then the second end names its currency). */
const DASH = "[ \\t]?[–—-][ \\t]?";
const TO = "[ \\t](?:to|through)[ \\t]";
const MONEY =
  `${MONEY_ONE}(?:${DASH}(?:${CURRENCY_SYMBOL}[ \\t]?)?${NUMBER}${SCALE}?(?:[ \\t]?${CURRENCY_CODE}(?![A-Za-z]))?` +
  `|${TO}${MONEY_ONE})?`;
const PERCENT_UNIT = `(?:[ \\t]?%|[ \\t]?${anyCaseOf(["percent", "per cent"])}(?![A-Za-z]))`;
const PERCENT = `(?:${NUMBER}${PERCENT_UNIT}(?:(?:${DASH}|${TO})${NUMBER}${PERCENT_UNIT})?|${NUMBER}(?:${DASH}|${TO})${NUMBER}${PERCENT_UNIT})`;
/**
 * A covenant ratio to one, at most three whole digits and four decimals a side: `5.54:1.00`,
 * `3.00 : 1.00`, `3:1` (a colon spaced on both sides or neither, so `5.1: 1.` is not one),
 * `0.65 to 1`, `4.50 to 1.00` (one side with decimals, so `from 3 to 1` is not one).
 */
const RATIO_SIDE = "(?<![\\d.,])\\d{1,3}";
const RATIO_DECIMALS = "\\.\\d{1,4}";
const RATIO_ONE = "1(?:\\.0{1,4})?(?!\\d)(?!\\.\\d)";
const RATIO =
  `${RATIO_SIDE}(?:${RATIO_DECIMALS})?(?::|[ \\t]:[ \\t])${RATIO_ONE}` +
  `|${RATIO_SIDE}${RATIO_DECIMALS}[ \\t]to[ \\t]${RATIO_ONE}` +
  `|${RATIO_SIDE}[ \\t]to[ \\t]1\\.0{1,4}(?!\\d)(?!\\.\\d)`;
/** A multiple: `1.25x`, `2X`, `1.50×` (the mark not followed by a letter or digit, so `2x4` and `0x1F` are not one). */
const MULTIPLE = `${RATIO_SIDE}(?:${RATIO_DECIMALS})?(?![\\d.])[xX×](?![A-Za-z0-9])`;
const FRACTION = "(?<![\\d/.,])\\d{1,2}/\\d{1,3}(?![\\d/])";
const ORDINAL = "(?:st|nd|rd|th)";
const DURATION_UNIT = `(?:${anyCaseOf(["business", "calendar", "banking", "trading", "consecutive", "full"])}[ \\t])?${anyCaseOf(["days", "day", "weeks", "week", "months", "month", "years", "year", "hours", "hour", "minutes", "minute", "quarters", "quarter"])}(?![A-Za-z])`;
const AREA_UNIT = `(?:${anyCaseOf(["rentable", "usable", "gross", "net", "leasable"])}[ \\t])?(?:${anyCaseOf(["square feet", "square foot", "square meters", "square metres", "square meter", "square metre", "square yards", "square miles", "acres", "acre", "hectares", "hectare"])}(?![A-Za-z])|sq\\.?[ \\t]?(?:ft|m)\\b\\.?|m²|ft²)`;
/** Number words of amounts written out: `Ten Million`, `Five Hundred Thousand and No/100`, `thirty`. */
const NUMBER_WORD = anyCaseOf([
  "one",
  "two",
  "three",
  "four",
  "five",
  "six",
  "seven",
  "eight",
  "nine",
  "ten",
  "eleven",
  "twelve",
  "thirteen",
  "fourteen",
  "fifteen",
  "sixteen",
  "seventeen",
  "eighteen",
  "nineteen",
  "twenty",
  "thirty",
  "forty",
  "fifty",
  "sixty",
  "seventy",
  "eighty",
  "ninety",
  "hundred",
  "thousand",
  "million",
  "billion",
  "half",
  "quarter",
  "eighth",
  "eighths",
  "quarters",
  "tenth",
  "tenths",
]);
const NUMBER_WORDS = `(?<![A-Za-z])${NUMBER_WORD}(?![A-Za-z])(?:(?:[ \\t]|-|[ \\t]and[ \\t]|[ \\t]of[ \\t])(?:${NUMBER_WORD}|(?:No|\\d{2})/100)(?![A-Za-z]|/)){0,12}`;

const REF_NUMBER = "(?:\\d{1,4}(?:\\.\\d{1,4}){0,5}[A-Za-z]?(?:\\([A-Za-z0-9]{1,5}\\)){0,4})";
const REF_ROMAN = "(?:[IVXLC]{1,8}(?![A-Za-z]))";
const REF_LETTER = "(?:[A-Z](?:-\\d{1,3})?(?![A-Za-z]))";
const REF_RANGE = `(?:[ \\t]?(?:[–—-]|to|through)[ \\t]?${REF_NUMBER})?`;
const NAME_WORD = "(?:[A-Z][A-Za-z0-9'’\\-]{0,40}|&|of)";
const ENTITY_SUFFIX =
  "(?:L\\.L\\.C\\.|LLC|L\\.L\\.P\\.|LLP|L\\.P\\.|LP|Inc\\.?|Incorporated|Corp\\.?|Corporation|Co\\.|Ltd\\.?|Limited|GmbH|AG|S\\.A\\.|PLC|plc|N\\.V\\.|B\\.V\\.|Pty\\.? Ltd\\.?)";
const TERM_WORD = "[A-Z0-9][A-Za-z0-9'’&.\\-]{0,40}";
// Stryker disable next-line StringLiteral: an empty joiner breaks `{0,8}`: the module cannot load
const TERM_JOINER = `(?:[ \\t]{1,3}(?:${TERM_WORD}|of|and|the|for|in|to|on|a|an|or|per))`;

/** One kind of figure: its pattern and whether it is a numeric figure (an amount, a rate, a date, a duration, an area). */
interface FigurePattern {
  source: string;
  numeric: boolean;
}

const PERCENT_WORD = anyCaseOf(["percent", "per cent"]);
const BASIS_POINTS = `(?:${anyCaseOf(["basis points", "basis point"])}|bps|bp)(?![A-Za-z])`;

/** Pattern sources, in no particular order; overlaps are resolved by position and length. */
const FIGURE_PATTERNS: readonly FigurePattern[] = [
  // money: symbol or code first, code or currency word after, ranges, negatives in parentheses
  { source: MONEY, numeric: true },
  { source: `\\([ \\t]?${MONEY_ONE}[ \\t]?\\)`, numeric: true },
  { source: `${CURRENCY_SYMBOL}[ \\t]?\\(${NUMBER}${SCALE}?\\)`, numeric: true },
  // amounts in words, with their numerals when given: `Ten Million Dollars ($10,000,000)`
  {
    source: `${NUMBER_WORDS}[ \\t](?:U\\.S\\.[ \\t])?${CURRENCY_WORD}(?![A-Za-z])(?:[ \\t]?\\([ \\t]?${MONEY_ONE}[ \\t]?\\))?`,
    numeric: true,
  },
  {
    source: `${NUMBER_WORDS}[ \\t]?\\([ \\t]?${MONEY_ONE}[ \\t]?\\)(?:[ \\t]${CURRENCY_WORD}(?![A-Za-z]))?`,
    numeric: true,
  },
  // percentages, ranges of them, fractions of a percent, basis points
  { source: PERCENT, numeric: true },
  {
    source: `${FRACTION}(?:${ORDINAL}s?)?[ \\t]of[ \\t](?:1|${anyCase("one")})${PERCENT_UNIT}`,
    numeric: true,
  },
  { source: `(?:${NUMBER}[ \\t])?${FRACTION}${PERCENT_UNIT}`, numeric: true },
  {
    source: `${NUMBER_WORDS}${PERCENT_UNIT}(?:[ \\t]?\\([ \\t]?${NUMBER}[ \\t]?%[ \\t]?\\))?`,
    numeric: true,
  },
  {
    source: `${NUMBER_WORDS}[ \\t]?\\([ \\t]?${NUMBER}[ \\t]?%[ \\t]?\\)(?:[ \\t]?${PERCENT_WORD}(?![A-Za-z]))?`,
    numeric: true,
  },
  { source: `${NUMBER}(?:(?:${DASH}|${TO})${NUMBER})?[ \\t]?${BASIS_POINTS}`, numeric: true },
  // covenant ratios and multiples: `5.54:1.00`, `0.65 to 1`, `4.50 to 1.00`, `1.25x`
  { source: `(?:${RATIO})`, numeric: true },
  { source: MULTIPLE, numeric: true },
  { source: `${NUMBER_WORDS}(?:[ \\t]?\\([ \\t]?${NUMBER}[ \\t]?\\))?[ \\t]${BASIS_POINTS}`, numeric: true },
  // dates
  { source: `\\b${MONTHS}(?![A-Za-z])[ \\t]{1,3}\\d{1,2}${ORDINAL}?,?[ \\t]{1,3}\\d{4}\\b`, numeric: true },
  { source: `\\b${MONTHS}(?![A-Za-z]),?[ \\t]{1,3}\\d{4}\\b`, numeric: true },
  {
    source: `(?<!\\d)\\d{1,2}${ORDINAL}?[ \\t]{1,3}${MONTHS}(?![A-Za-z]),?[ \\t]{1,3}\\d{4}\\b`,
    numeric: true,
  },
  {
    source: `(?<!\\d)\\d{1,2}${ORDINAL}?[ \\t]{1,3}day[ \\t]{1,3}of[ \\t]{1,3}${MONTHS}(?![A-Za-z]),?[ \\t]{1,3}\\d{4}\\b`,
    numeric: true,
  },
  { source: "(?<![\\d-])\\d{4}-\\d{2}-\\d{2}(?![\\d-])", numeric: true },
  { source: "(?<![\\d/])\\d{1,2}/\\d{1,2}/(?:\\d{4}|\\d{2})(?![\\d/])", numeric: true },
  // durations and areas with their units: `30 days`, `thirty (30) days`, `90-day`, `519,680 rentable square feet`
  { source: `${COUNT}(?:[ \\t]|-)${DURATION_UNIT}`, numeric: true },
  { source: `${NUMBER_WORDS}[ \\t]?\\([ \\t]?${COUNT}[ \\t]?\\)(?:[ \\t]|-)${DURATION_UNIT}`, numeric: true },
  { source: `${NUMBER}[ \\t]?${AREA_UNIT}`, numeric: true },
  // section references
  { source: `§§?[ \\t]?${REF_NUMBER}${REF_RANGE}`, numeric: false },
  {
    source: `\\b(?:[Ss]ections?|SECTIONS?|[Aa]rticles?|ARTICLES?|[Cc]lauses?|CLAUSES?|[Pp]aragraphs?|Exhibits?|EXHIBITS?|Schedules?|SCHEDULES?|Annex(?:es)?|ANNEX(?:ES)?|Appendix|Appendices|APPENDIX|Riders?)[ \\t]{1,3}(?:${REF_NUMBER}${REF_RANGE}|${REF_ROMAN}|${REF_LETTER})`,
    numeric: false,
  },
  // quoted defined terms, straight and curly quotes
  { source: `"${TERM_WORD}${TERM_JOINER}{0,8}"`, numeric: false },
  { source: `“${TERM_WORD}${TERM_JOINER}{0,8}”`, numeric: false },
  // party names with an entity suffix
  {
    source: `(?<![A-Za-z0-9])${NAME_WORD}(?:[ \\t]{1,3}${NAME_WORD}){0,5},?[ \\t]{1,3}${ENTITY_SUFFIX}(?![A-Za-z])`,
    numeric: false,
  },
];

const FIGURE_REGEXES: readonly RegExp[] = FIGURE_PATTERNS.map(({ source }) => new RegExp(source, "g"));

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
  // Stryker disable next-line EqualityOperator,AssignmentOperator: at most six words, one a step
  for (let step = 0; step < 8; step += 1) {
    const word = LEADING_WORD.exec(text);
    if (!word?.[1] || !NAME_STOP_WORDS.has(word[1].toLowerCase())) break;
    offset += word[0].length;
    text = text.slice(word[0].length);
  }
  return SUFFIX_ONLY.test(text) ? undefined : { text, start: offset };
}

/** Where one figure occurs in a text, as {@link figureSpans} finds it. */
export interface FigureSpan {
  /** Offset of its first char. */
  start: number;
  /** Offset after its last char. */
  end: number;
  /** The figure, verbatim: `text.slice(start, end)`. */
  text: string;
  /** An amount, rate, ratio, date, duration or area (not a reference, defined term or party). */
  numeric: boolean;
  /**
   * Ranges `[start, end)` inside the figure that stand for it on their own: the numerals of
   * an amount in words (`$10,000,000` of `Ten Million Dollars ($10,000,000)`) and each end of
   * a range whose ends both carry their unit (`5%` of `5% to 10%`).
   */
  parts: readonly (readonly [number, number])[];
}

const PARENTHESISED = /\(([^()]{1,80})\)/g;
const MONEY_ONE_REGEX = new RegExp(MONEY_ONE, "g");
const PERCENT_ONE_REGEX = new RegExp(`${NUMBER}${PERCENT_UNIT}`, "g");
const HAS_NUMBER_WORD = new RegExp(`^${NUMBER_WORDS}`);

/** The parts of a figure that stand for it on their own (see {@link FigureSpan.parts}). */
function figureParts(text: string, start: number): [number, number][] {
  const parts: [number, number][] = [];
  if (HAS_NUMBER_WORD.test(text)) {
    for (const match of text.matchAll(PARENTHESISED)) {
      const at = (match.index ?? 0) + 1;
      parts.push([start + at, start + at + (match[1] as string).length]);
      const words = text.slice(0, match.index ?? 0).trimEnd();
      if (words !== "") parts.push([start, start + words.length]);
    }
    return parts;
  }
  for (const regex of [MONEY_ONE_REGEX, PERCENT_ONE_REGEX]) {
    const ends = [...text.matchAll(new RegExp(regex.source, "g"))];
    if (ends.length < 2) continue;
    for (const end of ends) {
      const at = end.index ?? 0;
      parts.push([start + at, start + at + end[0].length]);
    }
  }
  return parts;
}

/**
 * Every place a figure occurs in a text, overlapping matches included, earliest first and
 * longest first on ties. {@link extractFigures} keeps the outermost of them; a figure check
 * uses them to tell a whole figure from a piece of a larger one (`$25` of `U.S.$25 Million`).
 */
export function figureSpans(text: string): FigureSpan[] {
  const found: FigureSpan[] = [];
  FIGURE_REGEXES.forEach((pattern, index) => {
    const regex = new RegExp(pattern.source, pattern.flags);
    const numeric = (FIGURE_PATTERNS[index] as FigurePattern).numeric;
    for (const match of text.matchAll(regex)) {
      const start = match.index ?? 0;
      const end = start + match[0].length;
      // Stryker disable next-line ConditionalExpression: no other match starts with a stop word
      if (index === PARTY_PATTERN_INDEX) {
        const party = trimPartyName(match[0], start);
        if (party) found.push({ start: party.start, end, text: party.text, numeric, parts: [] });
      } else {
        found.push({
          start,
          end,
          text: match[0],
          numeric,
          parts: numeric ? figureParts(match[0], start) : [],
        });
      }
    }
  });
  found.sort((left, right) => left.start - right.start || right.end - left.end);
  return found;
}

/**
 * The material figures of a text, verbatim as they occur, unique, in order of first
 * occurrence: money (currency marks and codes, scale words in any case, ranges, negatives
 * in parentheses, amounts in words with their numerals), percentages (ranges, fractions of
 * a percent, basis points), covenant ratios and multiples (`4.50 to 1.00`, `1.25x`), dates
 * in the forms filings use, durations and areas with
 * their units, section / article / § references, quoted defined terms (straight and curly
 * quotes) and party names with entity suffixes. A figure is always the whole expression:
 * `U.S.$25 Million`, never `$25`. Plain numbers (page numbers, small integers) are not
 * figures. Linear in the text length.
 *
 * @example
 * extractFigures('Rent is $1,250,000 per year (the "Base Rent"), see §8.3.');
 * // → ["$1,250,000", "\"Base Rent\"", "§8.3"]
 */
export function extractFigures(text: string): string[] {
  // Earliest first, longest first on ties; a match inside an accepted one is dropped.
  const figures: string[] = [];
  const seen = new Set<string>();
  let coveredUntil = -1;
  for (const figure of figureSpans(text)) {
    if (figure.start < coveredUntil) continue;
    coveredUntil = figure.end;
    if (seen.has(figure.text)) continue;
    seen.add(figure.text);
    figures.push(figure.text);
  }
  return figures;
}

const NUMBER_WORD_RUNS = new RegExp(NUMBER_WORDS, "g");

/**
 * Every run of number words in a text, verbatim, in order (`forty-five million`, `thirteen`,
 * `Five Hundred Thousand and No/100`), with or without a unit after it: a figure check
 * treats each as a figure the source must state in words.
 *
 * @example
 * numberWordRuns("a cap of forty-five million over thirteen months"); // → ["forty-five million", "thirteen"]
 */
export function numberWordRuns(text: string): string[] {
  return text.match(NUMBER_WORD_RUNS) ?? [];
}

const DIGIT = /\d/;
const LETTER = /\p{L}/u;
const ALPHANUMERIC = /[\p{L}\d]/u;

/**
 * Whether the characters around `text[start, end)` continue the needle into a larger
 * figure: a digit, a `.`/`,` between digits (`$1,250` in `$1,250,000`, `5%` in `2.5%`,
 * `§8` in `§8.3`), and for a figure (not a bare numeric token) ending in a digit also a
 * letter or `%` (`Section 1` in `Section 1A`, `$5` in `$5m`); a needle starting or ending
 * with a letter continues into an adjacent letter or digit.
 */
function continuesFigure(text: string, needle: string, start: number, end: number, figure: boolean): boolean {
  const first = needle[0] as string;
  const last = needle[needle.length - 1] as string;
  const before = text[start - 1];
  const after = text[end];
  if (before !== undefined) {
    if (DIGIT.test(first)) {
      if (DIGIT.test(before)) return true;
      if ((before === "." || before === ",") && DIGIT.test(text[start - 2] ?? "")) return true;
    } else if (LETTER.test(first) && ALPHANUMERIC.test(before)) return true;
  }
  if (after !== undefined) {
    if (DIGIT.test(last)) {
      if (DIGIT.test(after)) return true;
      if ((after === "." || after === ",") && DIGIT.test(text[end + 1] ?? "")) return true;
      if (figure && (after === "%" || LETTER.test(after))) return true;
    } else if (LETTER.test(last) && ALPHANUMERIC.test(after)) return true;
  }
  return false;
}

/** Whether `[start, end)` is a piece of a larger numeric figure that does not stand for it on its own. */
function insideLargerFigure(spans: readonly FigureSpan[], start: number, end: number): boolean {
  let inside = false;
  for (const span of spans) {
    if (span.start > start) break;
    if (!span.numeric || span.end < end || span.end - span.start <= end - start) continue;
    // A part of any figure around it stands on its own (`$10,000,000` of `… Dollars ($10,000,000)`).
    if (span.parts.some(([from, to]) => from === start && to === end)) return false;
    inside = true;
  }
  return inside;
}

/** How {@link wholeFigureFinder} compares. */
export interface WholeFigureOptions {
  /** Compare lower-cased (a model may retype `ARTICLE 8` as `Article 8`). */
  caseInsensitive?: boolean;
}

/**
 * A finder over one text that tells whether a needle occurs in it as a whole figure, not
 * as a piece of a larger one: `$1,250` does not occur in `$1,250,000`, nor `2.5%` in
 * `12.5%`, nor `§8` in `§8.3`, nor `$25` in `U.S.$25 Million`, nor `1%` in `1/8 of 1%`.
 * With `kind: "token"` (a bare run of digits) only the digits around it are checked. The
 * text is compared as given: normalise whitespace on both sides first.
 *
 * @example
 * const occurs = wholeFigureFinder("a fee of U.S.$25 Million payable");
 * occurs("U.S.$25 Million"); // → true
 * occurs("$25"); // → false
 */
export function wholeFigureFinder(
  text: string,
  options: WholeFigureOptions = {},
): (needle: string, kind?: "figure" | "token") => boolean {
  const haystack = options.caseInsensitive ? text.toLowerCase() : text;
  // Lower-casing that changes the length (rare letters) would misplace the spans: compare by digits then.
  const spans = haystack.length === text.length ? figureSpans(text) : [];
  return (rawNeedle, kind = "figure") => {
    const needle = options.caseInsensitive ? rawNeedle.toLowerCase() : rawNeedle;
    if (needle === "") return false;
    const figure = kind === "figure";
    for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + 1)) {
      const end = at + needle.length;
      if (continuesFigure(haystack, needle, at, end, figure)) continue;
      if (figure && insideLargerFigure(spans, at, end)) continue;
      return true;
    }
    return false;
  };
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
  const occurs = wholeFigureFinder(messagesText(options.view ?? messages));
  const missing: string[] = [];
  for (const figure of figures) {
    if (!occurs(normalizeWhitespace(figure))) missing.push(figure);
  }
  return { ok: missing.length === 0, missing };
}
