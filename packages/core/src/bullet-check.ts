import { extractFigures } from "@context-cleaner/assembler";
import type { DigestBullets, DigestSection } from "./ports";

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

/**
 * The figures of a bullet that do not occur in the source: its extracted figures and
 * its numeric tokens, each compared in {@link comparisonForm}.
 */
export function inventedFigures(bullet: string, normalizedSource: string): string[] {
  const candidates = [...extractFigures(bullet), ...(bullet.match(NUMERIC_TOKEN) ?? [])];
  const invented: string[] = [];
  for (const figure of candidates) {
    const needle = comparisonForm(figure);
    if (needle !== "" && !normalizedSource.includes(needle) && !invented.includes(figure)) {
      invented.push(figure);
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
 * (DESIGN §6: no invented figures; an injected instruction cannot plant one). Bullets are
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
