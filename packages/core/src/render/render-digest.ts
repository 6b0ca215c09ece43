import { InvalidOptionError, type ToolCall } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import {
  DIGEST_HEADER,
  normalizeWhitespace,
  readOffset,
  renderToolCall,
} from "@context-cleaner/assembler/internal";
import type { DigestBullets } from "../ports";
import { checkBullets, DIGEST_SECTIONS, inventedFigures, sourceFigureFinder } from "./check-bullets";

/** Defaults of digest rendering (docs/architecture.md#the-digest-contract). */
export const DIGEST_RENDER_DEFAULTS = {
  /** Upper bound of a digest in chars. */
  digestCharCap: 4_000,
  /** How far the cap stretches to fit the figures line of a dense page. */
  digestCharCapMax: 8_000,
  /** A longer bullet is cut at a word boundary. */
  maxBulletChars: 600,
  /** A longer title is cut. */
  maxTitleChars: 120,
} as const;

/** What to render for one page. */
export interface DigestRenderInput {
  /** The call that produced the page: its name and args (the re-read call is built from them). */
  call: ToolCall;
  /** The policy rule's provenance args and offset arg. */
  rule: { readonly provenanceArgs: readonly string[]; readonly offsetArg: string | undefined };
  /** The exact original text of the page: figures are extracted from it, bullets checked against it. */
  source: string;
  /** The model's bullets (checked here: a bullet with an invented figure is dropped). */
  bullets: DigestBullets;
  /** The model's title of the document (checked here: dropped when it carries an invented figure). */
  title?: string;
  /** Total length of the document in chars, when known. */
  totalChars?: number;
  /** 1-based page number and page count, when known. */
  page?: { index: number; count?: number };
  /** The output of a time-varying tool: the source line says it is as it was at the time of the call. */
  asOfCall?: boolean;
}

/** A rendered digest and what rendering did. */
export interface RenderedDigest {
  text: string;
  chars: number;
  figures: { found: number; shown: number; omitted: number };
  bullets: { kept: number; dropped: number; trimmed: number };
}

const EMPTY_BULLET = "  - (figures only; re-read for the full text)";

function formatInteger(value: number): string {
  return Math.trunc(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function renderValue(value: unknown): string {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return /^[\w.\-:/#@]+$/.test(text) ? text : JSON.stringify(text);
}

function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}

/**
 * The model's title, whitespace-collapsed, or `undefined` when it carries a figure absent
 * from the source: a title is model text like a bullet and must not plant figures.
 */
function checkedTitle(input: DigestRenderInput): string | undefined {
  const title = input.title?.replace(/\s+/g, " ").trim();
  if (!title) return undefined;
  return inventedFigures(title, sourceFigureFinder(input.source)).length > 0 ? undefined : title;
}

/** What the source line of a time-varying tool's digest says of its content. */
export const AS_OF_CALL_NOTE = "as it was at the time of the call";

function sourceLine(input: DigestRenderInput): string {
  const line = sourceDescription(input);
  return input.asOfCall ? `${line} · ${AS_OF_CALL_NOTE}` : line;
}

function sourceDescription(input: DigestRenderInput): string {
  const idArg = input.rule.provenanceArgs[0];
  const parts: string[] = [];
  if (idArg !== undefined && idArg in input.call.args) {
    parts.push(`${idArg}=${renderValue(input.call.args[idArg])}`);
  }
  const title = checkedTitle(input)?.replace(/"/g, "'");
  if (title) parts.push(`"${cutAtWord(title, DIGEST_RENDER_DEFAULTS.maxTitleChars)}"`);
  const head = parts.join(" ") || input.call.name;
  const offset = readOffset(input.call, input.rule.offsetArg);
  const page = input.page
    ? `page ${input.page.index}${input.page.count !== undefined ? ` of ${input.page.count}` : ""}`
    : undefined;
  if (offset !== undefined) {
    const range = `characters ${formatInteger(offset)}–${formatInteger(offset + input.source.length)}`;
    const total = input.totalChars !== undefined ? ` of ${formatInteger(input.totalChars)}` : "";
    return `${head} · ${range}${total}${page ? ` (${page})` : ""}`;
  }
  return page ? `${head} · ${page}` : head;
}

function figuresLine(figures: readonly string[], shown: number): string {
  const omitted = figures.length - shown;
  const list = figures.length === 0 ? "(none)" : figures.slice(0, shown).join("; ");
  return `figures verbatim: ${list}${omitted > 0 ? ` [+${omitted} more figures left out; re-read for all]` : ""}`;
}

function validateCaps(cap: number, capMax: number): void {
  if (!Number.isInteger(cap) || cap < 200) {
    throw new InvalidOptionError(
      `digestCharCap must be an integer ≥ 200, got ${String(cap)}`,
      "digestCharCap",
    );
  }
  if (!Number.isInteger(capMax) || capMax < cap) {
    throw new InvalidOptionError(
      `digestCharCapMax must be an integer ≥ digestCharCap (${cap}), got ${String(capMax)}`,
      "digestCharCapMax",
    );
  }
}

/**
 * Renders the digest of one page in exactly the digest contract's format (docs/architecture.md#the-digest-contract). The `figures verbatim`
 * line is extracted mechanically from the source; bullets carrying a figure absent from
 * the source are dropped (counted); bullets are trimmed first to meet `digestCharCap`;
 * when the figures line alone exceeds the cap, the cap stretches up to `digestCharCapMax`
 * and the line says how many figures were left out. Deterministic: same input, same bytes.
 *
 * @throws {InvalidOptionError} when a cap is not an integer, below 200, or max < cap.
 * @example
 * renderDigest({ call, rule: policy.ruleFor(call.name), source: page, bullets: { amounts: ["Rent $1,250,000/yr"] } });
 */
export function renderDigest(
  input: DigestRenderInput,
  options: { digestCharCap?: number; digestCharCapMax?: number } = {},
): RenderedDigest {
  const cap = options.digestCharCap ?? DIGEST_RENDER_DEFAULTS.digestCharCap;
  const capMax = options.digestCharCapMax ?? DIGEST_RENDER_DEFAULTS.digestCharCapMax;
  validateCaps(cap, capMax);
  const head = [DIGEST_HEADER, `tool: ${input.call.name}`, `source: ${sourceLine(input)}`, "digest:"].join(
    "\n",
  );
  const reread = `re-read: ${renderToolCall(input.call, input.rule.provenanceArgs)}`;
  // Hard-wrapped text breaks figures across lines (`April 29,` / `2020`); whitespace-normalised
  // they are found, and still occur verbatim in the whitespace-normalised comparison.
  const figures = extractFigures(normalizeWhitespace(input.source));
  const fixedChars = (line: string) =>
    head.length + 1 + EMPTY_BULLET.length + 1 + line.length + 1 + reread.length;

  let shown = figures.length;
  let line = figuresLine(figures, shown);
  const limit = Math.max(cap, Math.min(fixedChars(line), capMax));
  while (shown > 0 && fixedChars(line) > limit) {
    shown -= 1;
    line = figuresLine(figures, shown);
  }

  const checked = checkBullets(input.bullets, input.source);
  const bulletLines: string[] = [];
  let room = limit - fixedChars(line) + EMPTY_BULLET.length + 1;
  let trimmed = 0;
  for (const { section, label } of DIGEST_SECTIONS) {
    for (const bullet of checked.bullets[section] ?? []) {
      const text = `  - ${label ? `${label}: ` : ""}${cutAtWord(bullet, DIGEST_RENDER_DEFAULTS.maxBulletChars)}`;
      if (text.length + 1 <= room) {
        bulletLines.push(text);
        room -= text.length + 1;
      } else {
        trimmed += 1;
      }
    }
  }
  if (bulletLines.length === 0) bulletLines.push(EMPTY_BULLET);
  const text = [head, ...bulletLines, line, reread].join("\n");
  return {
    text,
    chars: text.length,
    figures: { found: figures.length, shown, omitted: figures.length - shown },
    bullets: { kept: checked.kept - trimmed, dropped: checked.dropped, trimmed },
  };
}
