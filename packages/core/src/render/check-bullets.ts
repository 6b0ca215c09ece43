import { extractFigures } from "@context-cleaner/assembler";
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

/**
 * The comparison form for "occurs verbatim": whitespace runs collapsed, curly quotes
 * straightened and letters lower-cased (a model may retype `“Term”` as `"Term"` or a
 * heading's `ARTICLE 8` as `Article 8`); digits, punctuation and words must still match.
 */
export function comparisonForm(text: string): string {
  return text
    .replace(/[“”„‟]/g, '"')
    .replace(/[‘’‚‛]/g, "'")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

const DIGIT = /\d/;
const LETTER = /\p{L}/u;
const ALPHANUMERIC = /[\p{L}\d]/u;

/**
 * Whether the characters around `source[start, end)` continue the needle into a larger
 * figure: a digit, a `.`/`,` between digits (`$1,250` in `$1,250,000`, `5%` in `2.5%`,
 * `§8` in `§8.3`), and for a figure (not a bare numeric token) ending in a digit also a
 * letter or `%` (`Section 1` in `Section 1A`, `$5` in `$5m`); a needle starting or ending
 * with a letter continues into an adjacent letter or digit.
 */
function continuesFigure(
  source: string,
  needle: string,
  start: number,
  end: number,
  figure: boolean,
): boolean {
  const first = needle[0] as string;
  const last = needle[needle.length - 1] as string;
  const before = source[start - 1];
  const after = source[end];
  if (before !== undefined) {
    if (DIGIT.test(first)) {
      if (DIGIT.test(before)) return true;
      if ((before === "." || before === ",") && DIGIT.test(source[start - 2] ?? "")) return true;
    } else if (LETTER.test(first) && ALPHANUMERIC.test(before)) return true;
  }
  if (after !== undefined) {
    if (DIGIT.test(last)) {
      if (DIGIT.test(after)) return true;
      if ((after === "." || after === ",") && DIGIT.test(source[end + 1] ?? "")) return true;
      if (figure && (after === "%" || LETTER.test(after))) return true;
    } else if (LETTER.test(last) && ALPHANUMERIC.test(after)) return true;
  }
  return false;
}

/** Whether `needle` occurs in `source` as a whole figure, not as part of a larger one. */
function occursWhole(source: string, needle: string, figure: boolean): boolean {
  for (let at = source.indexOf(needle); at !== -1; at = source.indexOf(needle, at + 1)) {
    if (!continuesFigure(source, needle, at, at + needle.length, figure)) return true;
  }
  return false;
}

/**
 * The figures of a bullet that do not occur in the source: its extracted figures and
 * its numeric tokens, each compared in {@link comparisonForm} and as a whole figure
 * (`$1,250` does not occur in `$1,250,000`, nor `2.5%` in `12.5%`, nor `§8` in `§8.3`).
 */
export function inventedFigures(bullet: string, normalizedSource: string): string[] {
  const candidates: { text: string; figure: boolean }[] = [
    ...extractFigures(bullet).map((text) => ({ text, figure: true })),
    ...(bullet.match(NUMERIC_TOKEN) ?? []).map((text) => ({ text, figure: false })),
  ];
  const invented: string[] = [];
  for (const { text, figure } of candidates) {
    const needle = comparisonForm(text);
    // Stryker disable next-line StringLiteral: a figure or numeric token is never blank, so `needle !== ""` always holds
    if (needle !== "" && !occursWhole(normalizedSource, needle, figure) && !invented.includes(text)) {
      invented.push(text);
    }
  }
  return invented;
}

/** Bullets that survived the figure check, and the count of those dropped. */
export interface CheckedBullets {
  bullets: DigestBullets;
  kept: number;
  dropped: number;
}

/**
 * Drops every bullet carrying a figure that does not occur verbatim in the source
 * (the digest contract: no invented figures; an injected instruction cannot plant one). Bullets are
 * whitespace-collapsed; empty and repeated bullets are removed (not counted as dropped).
 */
export function checkBullets(bullets: DigestBullets, source: string): CheckedBullets {
  const normalizedSource = comparisonForm(source);
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
      if (inventedFigures(bullet, normalizedSource).length > 0) {
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
