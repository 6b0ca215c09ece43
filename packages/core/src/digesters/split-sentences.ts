/**
 * Sentences and clauses of reflowed legal prose. A sentence ends at `.` `!` `?` (a closing
 * quote or bracket may follow) before a capital, a digit, a quote, `(` or `§` — not after
 * an abbreviation (`Inc.`, `U.S.`, `No.`, `e.g.`) or an initial. An inline enumeration
 * (`…the following: (a) …; and (b) …`) splits into its clauses.
 */

const ABBREVIATIONS = new Set([
  "inc",
  "corp",
  "co",
  "ltd",
  "no",
  "nos",
  "sec",
  "secs",
  "art",
  "arts",
  "para",
  "paras",
  "e.g",
  "i.e",
  "mr",
  "mrs",
  "ms",
  "dr",
  "st",
  "jr",
  "sr",
  "vs",
  "v",
  "cf",
  "viz",
  "approx",
  "dept",
  "ft",
  "sq",
  "jan",
  "feb",
  "mar",
  "apr",
  "jun",
  "jul",
  "aug",
  "sep",
  "sept",
  "oct",
  "nov",
  "dec",
]);
/** Words after which a single capital letter is a reference (`Exhibit B.`), so the sentence may end there. */
const LETTER_REFERENCE = /(?:Exhibit|Schedule|Annex|Appendix|Class|Series|Tranche|Article)\s+[A-Z]$/;

const SENTENCE_END = /([.!?])[”"’')\]]*\s+(?=[“"(§\p{Lu}\d]|[a-z]{1,2}\.\p{Lu})/gu;
const ENUMERATION = /[:;]\s+(?:(?:and|or)\s+)?(?=\((?:[a-z]{1,2}|[ivxlc]{1,6}|\d{1,2}|[A-Z])\)\s)/g;

/** Whether the `.` at `at` closes an abbreviation or an initial rather than a sentence. */
function closesAbbreviation(text: string, at: number): boolean {
  if (text[at] !== ".") return false;
  const before = text.slice(Math.max(0, at - 24), at);
  const word = (/[^\s(“"]*$/.exec(before)?.[0] ?? "").toLowerCase();
  if (ABBREVIATIONS.has(word)) return true;
  // Initials and dotted abbreviations: `J.`, `U.S.`, `N.A.`, `L.L.C.`
  if (/^\p{L}$/u.test(word)) return !LETTER_REFERENCE.test(before);
  return /^(?:\p{L}\.)+\p{L}$/u.test(word);
}

/** The sentences and enumerated clauses of one paragraph, trimmed, in order. */
export function splitSentences(paragraph: string): string[] {
  const cuts: number[] = [];
  for (const match of paragraph.matchAll(SENTENCE_END)) {
    const at = match.index ?? 0;
    if (!closesAbbreviation(paragraph, at)) cuts.push(at + match[0].length);
  }
  for (const match of paragraph.matchAll(ENUMERATION)) {
    cuts.push((match.index ?? 0) + 1);
  }
  cuts.sort((left, right) => left - right);
  const sentences: string[] = [];
  let start = 0;
  for (const cut of [...cuts, paragraph.length]) {
    if (cut <= start) continue;
    const piece = paragraph.slice(start, cut).trim();
    start = cut;
    // The `and` / `or` joining the last clauses of an enumeration belongs to neither clause.
    const sentence = piece
      .replace(/^(?:and|or)\s+(?=\()/, "")
      .replace(/;\s+(?:and|or)$/, ";")
      .trim();
    if (sentence !== "") sentences.push(sentence);
  }
  return sentences;
}

/** A sentence or clause ends with closing punctuation (a closing quote or bracket may follow). */
export function endsSentence(text: string): boolean {
  return /[.;:!?][”"’')\]]*$/.test(text);
}

/** Words that begin an entity suffix or a year after a comma: no clause boundary there. */
const NOT_A_BOUNDARY_AFTER =
  /^(?:\d{4}\b|(?:LLC|L\.L\.C\.|LP|L\.P\.|LLP|Inc|Ltd|N\.A\.|plc|PLC|S\.A\.|GmbH|AG)\b)/;
const CLAUSE_BOUNDARIES: readonly RegExp[] = [/;\s/g, /:\s/g, /\s[—–]\s/g, /,\s/g];

function balancedAt(text: string, end: number): boolean {
  let parentheses = 0;
  let quotes = 0;
  for (let index = 0; index < end; index++) {
    const char = text[index];
    if (char === "(") parentheses++;
    else if (char === ")") parentheses--;
    else if (char === "“") quotes++;
    else if (char === "”") quotes--;
  }
  return parentheses <= 0 && quotes <= 0;
}

/**
 * A sentence no longer than `max` chars: the sentence itself, or its head cut at the last
 * clause boundary (`;`, `:`, a dash, `,`) that leaves at least `minShare` of `max`, outside
 * brackets and quotes and not inside a date or a party name, marked ` …`. Undefined when
 * no such boundary exists: the sentence is never cut mid-clause or mid-word.
 */
export function trimAtClause(sentence: string, max: number, minShare = 0.4): string | undefined {
  if (sentence.length <= max) return sentence;
  const limit = max - 2;
  const floor = Math.floor(max * minShare);
  for (const boundary of CLAUSE_BOUNDARIES) {
    let best: number | undefined;
    for (const match of sentence.matchAll(boundary)) {
      const at = match.index ?? 0;
      const end = match[0].trimStart().startsWith(",") || /^[;:]/.test(match[0]) ? at + 1 : at;
      if (end > limit) break;
      if (end < floor) continue;
      if (NOT_A_BOUNDARY_AFTER.test(sentence.slice(at + match[0].length))) continue;
      if (!balancedAt(sentence, end)) continue;
      best = end;
    }
    if (best !== undefined) {
      const head = sentence.slice(0, best).trimEnd();
      return /[—–]$/.test(head) || /[,;:]$/.test(head) ? `${head} …` : `${head} — …`;
    }
  }
  return undefined;
}
