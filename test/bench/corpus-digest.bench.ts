/**
 * Corpus digest benchmark: pages each plain-text contract of a directory the way an agent
 * reads it (58,000-char pages of `read_document(file_id, offset)`), digests every page with
 * the extractive digester, renders it, and reports per document: chars in and out, the
 * ratio, the page figures the `figures verbatim` lines keep, the bullets shown, how many
 * end mid-sentence, and how many carry page furniture. Three probes of meaning, each built
 * here independently of the figure grammar:
 *   - scaled whole: amounts with a scale word, basis points and fractions of a percent that
 *     the page states (found by the probe's own patterns), and how many of them the digest
 *     lists whole (a listed figure contains the whole expression);
 *   - labelled: the figures in view (listed or in a bullet) that share at least two words of
 *     their source sentence on a line of the digest where they occur, all of them and the
 *     amounts, rates, dates, durations and areas among them;
 *   - unstated pairings: bullet lines pairing two or more numeric figures that no single
 *     sentence or line of the page holds together.
 * Not a test: nothing here asserts.
 *
 *   npm run bench:corpus -- <directory of .txt contracts>      (or CORPUS_DIR=<directory>)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createToolPolicy } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { figureSpans, normalizeWhitespace } from "@context-cleaner/assembler/internal";
import { createExtractiveDigester } from "@context-cleaner/core";
import { renderDigest } from "../../packages/core/src/render/render-digest";
import {
  carriesFurniture,
  digestBullets,
  digestFigures,
  endsMidSentence,
  startsMidSentence,
} from "../eval/digest-quality";

const PAGE_CHARS = 58_000;

const directory = process.argv[2] ?? process.env.CORPUS_DIR;
if (!directory || !existsSync(directory) || !statSync(directory).isDirectory()) {
  console.log(
    `bench:corpus: no corpus directory ${directory ? `at ${directory}` : "given"}; pass one as the first argument or set CORPUS_DIR. Nothing to measure.`,
  );
  process.exit(0);
}
const files = readdirSync(directory)
  .filter((name) => name.endsWith(".txt"))
  .sort();
if (files.length === 0) {
  console.log(`bench:corpus: ${directory} holds no .txt files. Nothing to measure.`);
  process.exit(0);
}

const rule = createToolPolicy().ruleFor("read_document");
const digester = createExtractiveDigester();

interface Row {
  name: string;
  pages: number;
  charsIn: number;
  charsOut: number;
  sourceFigures: number;
  keptFigures: number;
  bullets: number;
  midSentence: number;
  startsMid: number;
  furniture: number;
  scaledSource: number;
  scaledWhole: number;
  inView: number;
  labelled: number;
  numericInView: number;
  numericLabelled: number;
  pairingLines: number;
  unstatedPairings: number;
}

/** The probe's own view of a scaled amount, basis points and fractions of a percent (not the grammar's). */
const SCALED_PROBE =
  /(?:U\.S\.\s?\$|US\$|[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY)\s?)\s?\d[\d,]*(?:\.\d+)?\s?(?:thousand|million|billion|trillion|MM|bn)\b|\b\d+(?:\.\d+)?\s?basis points?\b|\b\d{1,2}\/\d{1,3}(?:th)? of (?:1|one) ?(?:%|percent)/gi;
/** Numbers with a currency mark or a percent sign, the figures a pairing line pairs. */
const NUMERIC_PROBE = /(?:[$€£¥]\s?\d[\d,.]*\d|\d[\d,.]*\s?%|\b(?:USD|EUR|GBP)\s?\d[\d,.]*\d)/g;
const STOP_WORDS = new Set(
  "the and that this with from shall such which such other than then each their there upon into under have been will would also been being more less date days any all for not per of to in on by or an a as at be is are its it".split(
    " ",
  ),
);

function contentWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const word of text.toLowerCase().match(/\p{L}{4,}/gu) ?? [])
    if (!STOP_WORDS.has(word)) words.add(word);
  return words;
}

/** The sentence of a whitespace-normalised page around `[start, end)`, at most 400 chars each side. */
function sentenceAround(page: string, start: number, end: number): string {
  const head = page.slice(Math.max(0, start - 400), start);
  const tail = page.slice(end, end + 400);
  const from = Math.max(head.lastIndexOf(". "), head.lastIndexOf("; "), head.lastIndexOf(": "));
  const to = tail.search(/[.;](?:\s|$)/);
  return `${head.slice(from + 1)} ${tail.slice(0, to === -1 ? tail.length : to)}`;
}

/** The units of a page a pairing must come from: its lines and the sentences of its normalised text. */
function pairingUnits(raw: string, normalized: string): string[] {
  return [...raw.split("\n"), ...normalized.split(/(?<=[.;])\s+/)].map((unit) => normalizeWhitespace(unit));
}

/** The probe's own kind of a figure, for the breakdown of figures in view without their label. */
function figureKind(figure: string, numeric: boolean): string {
  if (numeric) {
    if (/[$€£¥]|\b(?:USD|EUR|GBP|dollars?)\b/i.test(figure)) return "amount";
    if (/%|percent|per cent|basis point|bps/i.test(figure)) return "rate";
    if (/\b(?:days?|weeks?|months?|years?|hours?|quarters?)\b/i.test(figure)) return "duration";
    if (/square|acres?|hectares?|sq\./i.test(figure)) return "area";
    return "date";
  }
  if (/^["“]/.test(figure)) return "defined term";
  if (/^(?:§|[A-Za-z]+\s)/.test(figure) && /\d|\b[IVXLC]+\b|\b[A-Z]\b/.test(figure)) return "reference";
  return "party";
}

const missedByKind = new Map<string, { inView: number; missed: number; examples: string[] }>();
const rows: Row[] = [];
const examples: string[] = [];
const pairingExamples: string[] = [];
for (const name of files) {
  const text = readFileSync(join(directory, name), "utf8");
  const fileId = name.replace(/\.txt$/, "");
  const pages = [];
  for (let offset = 0; offset < text.length; offset += PAGE_CHARS) {
    pages.push({
      toolCallId: `${fileId}@${offset}`,
      content: text.slice(offset, offset + PAGE_CHARS),
      provenanceArgs: { file_id: fileId, offset },
      reread: `read_document(file_id="${fileId}", offset=${offset})`,
      offset,
    });
  }
  const result = await digester.digest({
    toolName: "read_document",
    sourceLabel: `file_id=${fileId}`,
    pages,
  });
  const row: Row = {
    name,
    pages: pages.length,
    charsIn: 0,
    charsOut: 0,
    sourceFigures: 0,
    keptFigures: 0,
    bullets: 0,
    midSentence: 0,
    startsMid: 0,
    furniture: 0,
    scaledSource: 0,
    scaledWhole: 0,
    inView: 0,
    labelled: 0,
    numericInView: 0,
    numericLabelled: 0,
    pairingLines: 0,
    unstatedPairings: 0,
  };
  pages.forEach((page, index) => {
    const rendered = renderDigest({
      call: { id: page.toolCallId, name: "read_document", args: { file_id: fileId, offset: page.offset } },
      rule,
      source: page.content,
      bullets: result.pages[index]?.bullets ?? {},
      totalChars: text.length,
      page: { index: index + 1, count: pages.length },
    });
    const figures = extractFigures(normalizeWhitespace(page.content));
    const listed = new Set(digestFigures(rendered.text).map(normalizeWhitespace));
    const bullets = digestBullets(rendered.text);
    row.charsIn += page.content.length;
    row.charsOut += rendered.chars;
    row.sourceFigures += figures.length;
    row.keptFigures += figures.filter((figure) => listed.has(figure)).length;
    row.bullets += bullets.length;
    const normalizedPage = normalizeWhitespace(page.content);
    const listedFigures = [...listed];
    for (const match of normalizedPage.matchAll(SCALED_PROBE)) {
      row.scaledSource += 1;
      if (listedFigures.some((figure) => figure.includes(match[0]))) row.scaledWhole += 1;
    }
    const lines = rendered.text
      .split("\n")
      .filter((line) => line.startsWith("  - ") || line.startsWith("figures verbatim: "));
    const numeric = new Set(
      figureSpans(normalizedPage)
        .filter((span) => span.numeric)
        .map((span) => span.text),
    );
    const inView = new Set([...listedFigures, ...bullets.flatMap((bullet) => extractFigures(bullet))]);
    for (const figure of inView) {
      const at = normalizedPage.indexOf(figure);
      if (at === -1) continue;
      row.inView += 1;
      const sentence = contentWords(sentenceAround(normalizedPage, at, at + figure.length));
      for (const word of contentWords(figure)) sentence.delete(word);
      const needed = Math.min(2, sentence.size);
      const labelled = lines.some((line) => {
        if (!line.includes(figure)) return false;
        let shared = 0;
        for (const word of contentWords(line.replace(figure, " "))) if (sentence.has(word)) shared += 1;
        return shared >= needed;
      });
      if (labelled) row.labelled += 1;
      const kind = figureKind(figure, numeric.has(figure));
      const tally = missedByKind.get(kind) ?? { inView: 0, missed: 0, examples: [] };
      tally.inView += 1;
      if (!labelled) {
        tally.missed += 1;
        if (tally.examples.length < 4) tally.examples.push(`${name} p${index + 1}: ${figure}`);
      }
      missedByKind.set(kind, tally);
      if (numeric.has(figure)) {
        row.numericInView += 1;
        if (labelled) row.numericLabelled += 1;
      }
    }
    const units = pairingUnits(page.content, normalizedPage);
    for (const bullet of bullets) {
      const numbers = [...new Set(bullet.match(NUMERIC_PROBE) ?? [])];
      if (numbers.length < 2) continue;
      row.pairingLines += 1;
      if (!units.some((unit) => numbers.every((number) => unit.includes(number)))) {
        row.unstatedPairings += 1;
        if (pairingExamples.length < 6) pairingExamples.push(`${name} p${index + 1}: ${bullet}`);
      }
    }
    for (const bullet of bullets) {
      if (endsMidSentence(bullet)) {
        row.midSentence += 1;
        if (examples.length < 6 && index === 1) examples.push(`${name} p${index + 1}: ${bullet}`);
      }
      if (startsMidSentence(bullet)) row.startsMid += 1;
      if (carriesFurniture(bullet)) row.furniture += 1;
    }
  });
  rows.push(row);
}

const integer = (value: number) => value.toLocaleString("en-US");
const percent = (part: number, whole: number) => `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
const COUNTS = [
  "pages",
  "charsIn",
  "charsOut",
  "sourceFigures",
  "keptFigures",
  "bullets",
  "midSentence",
  "startsMid",
  "furniture",
  "scaledSource",
  "scaledWhole",
  "inView",
  "labelled",
  "numericInView",
  "numericLabelled",
  "pairingLines",
  "unstatedPairings",
] as const;
const total: Row = { ...(rows[0] as Row), name: "all" };
for (const key of COUNTS) total[key] = rows.reduce((sum, row) => sum + row[key], 0);
console.log(`pages of ${integer(PAGE_CHARS)} chars; figures counted on the whitespace-normalised page\n`);
console.log(
  "| document | pages | chars in | chars out | ratio | figures kept | bullets | ending mid-sentence | starting mid-sentence | furniture |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const row of [...rows, total]) {
  console.log(
    `| ${row.name} | ${row.pages} | ${integer(row.charsIn)} | ${integer(row.charsOut)} | ${(row.charsIn / Math.max(1, row.charsOut)).toFixed(1)}:1 | ${percent(row.keptFigures, row.sourceFigures)} (${row.keptFigures} / ${row.sourceFigures}) | ${row.bullets} | ${row.midSentence} (${percent(row.midSentence, row.bullets)}) | ${row.startsMid} (${percent(row.startsMid, row.bullets)}) | ${row.furniture} |`,
  );
}
console.log(
  "\n| document | scaled figures kept whole | figures in view with their sentence's words on the line | of them amounts, rates, dates, durations, areas | pairing lines | pairings the page does not state |",
);
console.log("|---|---:|---:|---:|---:|---:|");
for (const row of [...rows, total]) {
  console.log(
    `| ${row.name} | ${percent(row.scaledWhole, row.scaledSource)} (${row.scaledWhole} / ${row.scaledSource}) | ${percent(row.labelled, row.inView)} (${row.labelled} / ${row.inView}) | ${percent(row.numericLabelled, row.numericInView)} (${row.numericLabelled} / ${row.numericInView}) | ${row.pairingLines} | ${row.unstatedPairings} |`,
  );
}
console.log(
  "\n| kind of figure (the probe's own reading) | in view | without their sentence's words on a line | some of them |",
);
console.log("|---|---:|---:|---|");
for (const [kind, tally] of [...missedByKind].sort((a, b) => b[1].missed - a[1].missed)) {
  console.log(
    `| ${kind} | ${tally.inView} | ${tally.missed} (${percent(tally.missed, tally.inView)}) | ${tally.examples.join("; ").slice(0, 240)} |`,
  );
}
if (pairingExamples.length > 0) {
  console.log("\nsome lines pairing figures the page does not state together:");
  for (const example of pairingExamples) console.log(`  ${example.slice(0, 200)}`);
}
if (examples.length > 0) {
  console.log("\nsome bullets ending mid-sentence:");
  for (const example of examples) console.log(`  ${example.slice(0, 200)}`);
}
