/**
 * How well a rendered digest reads, measured the same way on any digester's output: the
 * bullets it shows, which of them end mid-sentence, which carry page furniture, and how
 * many of the page's figures its `figures verbatim` line keeps.
 */

const FIGURES_PREFIX = "figures verbatim: ";
const LEFT_OUT = / \[\+\d+ more figures left out; re-read for all\]$/;
const GROUP_LABEL = /^(?:Parties|Dates|Amounts|Obligations|Defined terms|Cross-references): /;

/** The bullets of a rendered digest, without their `  - Label: ` prefix. */
export function digestBullets(digest: string): string[] {
  const lines = digest.split("\n");
  const start = lines.indexOf("digest:");
  const bullets: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("  - ")) break;
    bullets.push(line.slice(4).replace(GROUP_LABEL, ""));
  }
  return bullets;
}

/** The figures listed on a rendered digest's `figures verbatim` line. */
export function digestFigures(digest: string): string[] {
  const line = digest.split("\n").find((text) => text.startsWith(FIGURES_PREFIX));
  if (!line || line === `${FIGURES_PREFIX}(none)`) return [];
  return line.slice(FIGURES_PREFIX.length).replace(LEFT_OUT, "").split("; ");
}

const ENDS_CLAUSE = /[.;:!?][”"’')\]]*$/;
const TRIMMED_AT_CLAUSE = /[,;:—–] …$/;
/** An outline entry opens with a heading: a numbered or lettered heading, an ALL-CAPS run. */
const OUTLINE_ENTRY =
  /^(?:(?:ARTICLE|Article|SECTION|Section|EXHIBIT|Exhibit|SCHEDULE|Schedule|ANNEX|Annex|APPENDIX|Appendix)\s+[\dA-Z]|§\s?\d|\(?[\da-z]{1,3}(?:\.\d{1,3})*[.)]?\s*[A-Z]|[^a-z]{4,}(?::|$))/;
const OUTLINE_MAX_CHARS = 240;
const TABLE_ROW = /^[^|]+(?: \| [^|]+)+(?<=\d%?\)?)$/;
const TERM_ENTRY = /^[“"][^”"]{1,80}[”"]: \S/;
const NUMBER_OR_FIGURE = /[$€£]?\d[\d,.]*%?/g;

/**
 * Whether a bullet stops in the middle of a sentence: it does not end with `.` `;` `:` `!`
 * or `?` (a closing quote or bracket may follow), is not a clause trimmed at a clause
 * boundary and marked ` …`, and is neither an outline entry (at most 240 chars opening with
 * an ARTICLE / Section / numbered heading or an ALL-CAPS run) nor a table row (a short
 * label with figures, ending in a figure, or cells joined by ` | ` ending in a figure), nor
 * a defined term with its value (`“Term”: 128 months`).
 */
export function endsMidSentence(bullet: string): boolean {
  const text = bullet.trim();
  if (ENDS_CLAUSE.test(text) || TRIMMED_AT_CLAUSE.test(text)) return false;
  if (text.length <= OUTLINE_MAX_CHARS && OUTLINE_ENTRY.test(text)) return false;
  // A table row: cells joined by ` | `, the last one a figure (each cell may carry its column's header).
  if (TABLE_ROW.test(text)) return false;
  // A defined term with its value (`“Term”: 128 months`), as an index or a definitions list gives it.
  if (TERM_ENTRY.test(text)) return false;
  const words = text
    .replace(NUMBER_OR_FIGURE, "")
    .replace(/[|·\s]+/g, " ")
    .trim();
  if (/\d%?$/.test(text) && words.length <= 60 && (text.match(NUMBER_OR_FIGURE) ?? []).length > 0)
    return false;
  return true;
}

/**
 * Whether a bullet starts in the middle of a sentence: with a lowercase word (not an
 * enumerator such as `z. Use of Proceeds`), or with closing punctuation.
 */
export function startsMidSentence(bullet: string): boolean {
  const text = bullet.trim();
  // An enumerator (`z. Use of Proceeds`) opens a clause or a heading, not the middle of a sentence.
  return /^(?:\p{Ll}|[),;.\]])/u.test(text) && !/^[a-z]{1,3}[.)]\s?\p{Lu}/u.test(text);
}

const FURNITURE = [
  /-{5,}|_{5,}|={5,}/,
  /(?:^|\s)-\s?[\divxlc]{1,4}\s?-(?:\s|$)/i,
  /\bPage \d{1,4}(?: of \d{1,4})?\b/,
  /\[image[^\]]*\]|<PAGE>|\.jpg\b/i,
  /#\d{5,}v\d+|\b\d{6,} v\d+\b/,
];

/** Whether a bullet carries page furniture: a page rule, a page number, an image placeholder, a DMS id. */
export function carriesFurniture(bullet: string): boolean {
  return FURNITURE.some((pattern) => pattern.test(bullet));
}
