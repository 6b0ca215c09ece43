import { extractFigures } from "@context-cleaner/assembler/figures";
import { figureSpans, numberWordRuns, wholeFigureFinder } from "@context-cleaner/assembler/internal";
import { reflowText } from "../digesters/reflow-text";
import { splitSentences } from "../digesters/split-sentences";
import type { DigestBullets, DigestSection } from "../ports";

/** The groups of a digest in rendering order, with the label each bullet carries. */
export const DIGEST_SECTIONS: readonly { section: DigestSection; label: string }[] = [
  { section: "points", label: "" },
  { section: "parties", label: "Parties" },
  { section: "dates", label: "Dates" },
  { section: "amounts", label: "Amounts" },
  { section: "obligations", label: "Obligations" },
  { section: "definedTerms", label: "Defined terms" },
  { section: "crossReferences", label: "Cross-references" },
];

const NUMERIC_TOKEN = /\d(?:[\d,.]{0,30}\d)?/g;

const DECIMAL_DIGIT = /\p{Nd}/u;
const NON_ASCII_DIGITS = /(?![0-9])\p{Nd}/gu;
/** ASCII digits of the decimal digits met so far (`٤` → `4`), a bounded cache of at most every digit of Unicode. */
const asciiDigitOf = new Map<string, string>();

/**
 * The ASCII digit a Unicode decimal digit stands for. Decimal digits come in runs of ten
 * code points from zero to nine (adjacent runs each whole), so the digit is its distance
 * from the start of its run, modulo ten.
 */
function asciiDigit(digit: string): string {
  const cached = asciiDigitOf.get(digit);
  if (cached !== undefined) return cached;
  const code = digit.codePointAt(0) as number;
  let start = code;
  while (DECIMAL_DIGIT.test(String.fromCodePoint(start - 1))) start -= 1;
  const ascii = String((code - start) % 10);
  asciiDigitOf.set(digit, ascii);
  return ascii;
}

/**
 * The figure form of a text: NFKC (full-width `＄４５，０００` → `$45,000`), then every
 * Unicode decimal digit in ASCII (Arabic-Indic `٤٥` → `45`), so a figure retyped in other
 * digits is compared as the number it is.
 */
export function figureForm(text: string): string {
  return text.normalize("NFKC").replace(NON_ASCII_DIGITS, asciiDigit);
}

/** In figure form, curly quotes straightened and whitespace runs collapsed: the comparison form before lower-casing. */
function straightForm(text: string): string {
  return figureForm(text)
    .replace(/[“”„‟]/g, '"')
    .replace(/[‘’‚‛]/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * The comparison form for "occurs verbatim": in {@link figureForm} (digits of every script
 * in ASCII), whitespace runs collapsed, curly quotes straightened and letters lower-cased (a
 * model may retype `“Term”` as `"Term"` or a heading's `ARTICLE 8` as `Article 8`); digits,
 * punctuation and words must still match.
 */
export function comparisonForm(text: string): string {
  return straightForm(text).toLowerCase();
}

/** Tells whether a needle occurs in one source as a whole figure (see {@link sourceFigureFinder}). */
export type FigureFinder = (needle: string, kind?: "figure" | "token") => boolean;

/**
 * A finder over one source for {@link inventedFigures}: compared in {@link comparisonForm},
 * with the source's figures found in its own letter case by the shared figure grammar, so
 * a piece of a larger figure (`$25` of `U.S.$25 Million`) is not taken for a whole one.
 */
export function sourceFigureFinder(source: string): FigureFinder {
  return wholeFigureFinder(straightForm(source), { caseInsensitive: true });
}

/**
 * The figures of a bullet that do not occur in the source: its extracted figures, its
 * numeric tokens and its runs of number words (`forty-five million`, `thirteen`: a number
 * in words is a figure with or without a unit), each compared in {@link comparisonForm}
 * (digits of every script in ASCII, so `$４５,０００,０００` is `$45,000,000`) and as a whole
 * figure (`$1,250` does not occur in `$1,250,000`, nor `2.5%` in `12.5%`, nor `§8` in
 * `§8.3`, nor `$25` in `U.S.$25 Million`; number words and numeric tokens as whole words
 * and numbers: `seven` does not occur in `seventeen`). `source` is a finder from
 * {@link sourceFigureFinder}, or a text already in comparison form. The figures come back
 * in figure form.
 */
export function inventedFigures(bullet: string, source: string | FigureFinder): string[] {
  const occurs = typeof source === "string" ? wholeFigureFinder(source, { caseInsensitive: true }) : source;
  const text = figureForm(bullet);
  const candidates: { text: string; figure: boolean }[] = [
    ...extractFigures(text).map((figure) => ({ text: figure, figure: true })),
    ...(text.match(NUMERIC_TOKEN) ?? []).map((token) => ({ text: token, figure: false })),
    ...numberWordRuns(text).map((words) => ({ text: words, figure: false })),
  ];
  const invented: string[] = [];
  for (const { text, figure } of candidates) {
    if (!occurs(straightForm(text), figure ? "figure" : "token") && !invented.includes(text)) {
      invented.push(text);
    }
  }
  return invented;
}

/** The numeric figures of a text (amounts, rates, dates, durations, areas), outermost, unique, in order. */
function numericFigures(text: string): string[] {
  const figures: string[] = [];
  let coveredUntil = -1;
  for (const span of figureSpans(text)) {
    if (span.start < coveredUntil) continue;
    coveredUntil = span.end;
    if (span.numeric && !figures.includes(span.text)) figures.push(span.text);
  }
  return figures;
}

/**
 * The units of a source a pairing of figures must come from, in {@link comparisonForm}:
 * each sentence or enumerated clause of its reflowed prose, each table row, each heading
 * and each line as printed.
 */
export function pairingUnits(source: string): string[] {
  const units: string[] = [];
  for (const block of reflowText(source)) {
    if (block.kind === "paragraph") units.push(...splitSentences(block.text));
    else if (block.kind === "table-row") units.push(block.cells.join(" "));
    else units.push(block.text);
  }
  units.push(...source.split("\n"));
  return units.map(comparisonForm);
}

/**
 * Whether a bullet pairs numeric figures (a rate with its threshold, an amount with its
 * date) that no single sentence, table row or line of the source holds together: such a
 * pairing is not the source's, however verbatim each figure is. A bullet with fewer than
 * two numeric figures pairs nothing.
 */
export function pairsUnstated(bullet: string, units: readonly string[]): boolean {
  const figures = numericFigures(figureForm(bullet)).map(comparisonForm);
  if (figures.length < 2) return false;
  return !units.some((unit) => {
    // A cheap filter first; then each figure must occur whole (`5%` is not in `6.5%`).
    if (!figures.every((figure) => unit.includes(figure))) return false;
    const occurs = wholeFigureFinder(unit);
    return figures.every((figure) => occurs(figure));
  });
}

/** Bullets that survived the figure check, and the count of those dropped. */
export interface CheckedBullets {
  bullets: DigestBullets;
  kept: number;
  dropped: number;
}

/**
 * Drops every bullet carrying a figure that does not occur verbatim in the source
 * (the digest contract: no invented figures; an injected instruction cannot plant one), and
 * every bullet pairing figures that no one sentence, table row or line of the source pairs
 * (see {@link pairsUnstated}), both compared in {@link figureForm} (digits of every script in
 * ASCII). Bullets are whitespace-collapsed, otherwise kept as written; empty and repeated
 * bullets are removed (not counted as dropped).
 */
export function checkBullets(bullets: DigestBullets, source: string): CheckedBullets {
  const occurs = sourceFigureFinder(source);
  let units: string[] | undefined;
  const result: { [section in DigestSection]?: string[] } = {};
  const seen = new Set<string>();
  let kept = 0;
  let dropped = 0;
  for (const { section } of DIGEST_SECTIONS) {
    const items = bullets[section];
    if (!Array.isArray(items)) continue;
    for (const raw of items) {
      if (typeof raw !== "string") continue;
      const bullet = raw.replace(/\s+/g, " ").trim();
      if (bullet === "" || seen.has(bullet)) continue;
      seen.add(bullet);
      if (inventedFigures(bullet, occurs).length > 0) {
        dropped += 1;
        continue;
      }
      units ??= pairingUnits(source);
      if (pairsUnstated(bullet, units)) {
        dropped += 1;
        continue;
      }
      const list = result[section] ?? [];
      list.push(bullet);
      result[section] = list;
      kept += 1;
    }
  }
  return { bullets: result, kept, dropped };
}
