/**
 * Corpus digest benchmark: pages each plain-text contract of a directory the way an agent
 * reads it (58,000-char pages of `read_document(file_id, offset)`), digests every page with
 * the extractive digester, renders it, and reports per document: chars in and out, the
 * ratio, the page figures the `figures verbatim` lines keep, the bullets shown, how many
 * end mid-sentence, and how many carry page furniture. Not a test: nothing here asserts.
 *
 *   npm run bench:corpus -- <directory of .txt contracts>      (or CORPUS_DIR=<directory>)
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { createToolPolicy, extractFigures } from "@context-cleaner/assembler";
import { normalizeWhitespace } from "@context-cleaner/assembler/internal";
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
}

const rows: Row[] = [];
const examples: string[] = [];
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
if (examples.length > 0) {
  console.log("\nsome bullets ending mid-sentence:");
  for (const example of examples) console.log(`  ${example.slice(0, 200)}`);
}
