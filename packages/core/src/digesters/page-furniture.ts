/**
 * Page furniture of documents converted from print: page numbers, page rules, image
 * placeholders, document-management ids and running footers. None of it is content, and
 * page breaks fall mid-sentence, so a reflow drops these lines and joins the text around them.
 */

/** A line of one repeated character: `-----`, `_____`, `=====`, `* * * * *`. */
const RULE = /^([-–—_=*~•·])(?:\s?\1){4,}$/;
/** A bare page number: `12`, `-12-`, `- 12 -`, `- i -`, `-ii-`, `[12]`. */
const PAGE_NUMBER = /^(?:[-–—]\s?)?(?:\d{1,4}|[ivxlc]{1,7}|[IVXLC]{1,7})(?:\s?[-–—])?$|^\[\d{1,4}\]$/;
/** `Page 12`, `Page 12 of 80`, `Page | 12`, `12 | Page`, `p. 12`. */
const PAGE_LABEL = /^(?:page\s?\|?\s?\d{1,4}(?:\s?(?:of|\/)\s?\d{1,4})?|\d{1,4}\s?\|\s?page|p\.\s?\d{1,4})$/i;
/** Image and page placeholders of converters, anywhere in a line. */
const PLACEHOLDER =
  /\[(?:image|graphic|logo|picture|figure|chart)\b[^\]\n]{0,120}\]|<(?:PAGE|IMG|img)\b[^>\n]{0,200}>|\[?\b[\w-]{1,80}\.(?:jpe?g|png|gif|bmp|tiff?)\]?/gi;
/** Document-management ids printed in footers: `#2572901v4`, `233773760 v5`, `DOCS_NY:123456.2`. */
const DMS_ID =
  /^(?:#\d{5,12}v\d{1,3}|\d{6,12}\s?v\.?\s?\d{1,3}|[A-Z]{2,10}_[A-Z]{2,10}[:\s]\d{4,12}(?:\.\d{1,3})?)$/;
/** Printed notes that stand for no text: signature-page captions and blank-page notes. */
const PAGE_NOTE =
  /^\[?(?:\(?(?:the\s)?remainder of (?:this\s)?page (?:is\s)?intentionally (?:left\s)?blank\.?\)?|signature pages? (?:follows?|to follow)\.?|signature page (?:to|of)\b[^\]]{0,120}|this page intentionally left blank\.?)\]?$/i;

/** A lettered page number of an appendix or exhibit: `Appendix A-11`, `Exhibit B-2`, `A-11`. */
const LETTERED_PAGE = /^(?:(?:Appendix|Annex|Exhibit|Schedule)\s+)?([A-Z]{1,2})-\d{1,3}$/;
/** Lettered page numbers are told from a heading (`Exhibit B-2`) by their sequence: two or more of a letter. */
const LETTERED_PAGE_MIN_REPEATS = 2;

/** A running footer or header repeats this often on a page, always beside other furniture. */
const FOOTER_MIN_REPEATS = 2;
const FOOTER_MAX_CHARS = 90;
/** How many lines away from a page number or rule a running footer sits. */
const FOOTER_REACH = 3;

/** A line with its image placeholders removed (a converter may glue one to a heading); spacing kept. */
export function withoutPlaceholders(line: string): string {
  return line.replace(PLACEHOLDER, "");
}

/** Whether one trimmed line is furniture on its own, whatever surrounds it. */
export function isFurnitureLine(line: string): boolean {
  const text = line.trim();
  if (text === "") return false;
  if (withoutPlaceholders(text).trim() === "") return true;
  return (
    RULE.test(text) ||
    PAGE_NUMBER.test(text) ||
    PAGE_LABEL.test(text) ||
    DMS_ID.test(text) ||
    PAGE_NOTE.test(text)
  );
}

/**
 * Marks the furniture lines of a page: lines that are furniture on their own, plus running
 * footers — short lines that repeat on the page and sit beside a page number or rule at
 * least twice (`Third Amended and Restated` / `Produced Water Services Agreement`).
 */
export function markFurniture(lines: readonly string[]): boolean[] {
  const marked = lines.map(isFurnitureLine);
  const letteredPages = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const match = LETTERED_PAGE.exec(line.trim());
    if (!match) return;
    const key = `${line.trim().split(/\s/)[0]}:${match[1]}`;
    letteredPages.set(key, [...(letteredPages.get(key) ?? []), index]);
  });
  for (const indices of letteredPages.values()) {
    if (indices.length >= LETTERED_PAGE_MIN_REPEATS) for (const index of indices) marked[index] = true;
  }
  const anchors: number[] = [];
  marked.forEach((isFurniture, index) => {
    if (isFurniture) anchors.push(index);
  });
  if (anchors.length === 0) return marked;
  const nearAnchor = new Array<boolean>(lines.length).fill(false);
  for (const anchor of anchors) {
    for (let step = 1, seen = 0; seen < FOOTER_REACH && anchor - step >= 0; step++) {
      if ((lines[anchor - step] ?? "").trim() === "") continue;
      nearAnchor[anchor - step] = true;
      seen++;
    }
    for (let step = 1, seen = 0; seen < FOOTER_REACH && anchor + step < lines.length; step++) {
      if ((lines[anchor + step] ?? "").trim() === "") continue;
      nearAnchor[anchor + step] = true;
      seen++;
    }
  }
  const besideFurniture = new Map<string, number>();
  lines.forEach((line, index) => {
    const text = line.trim();
    if (!nearAnchor[index] || marked[index] || text === "" || text.length > FOOTER_MAX_CHARS) return;
    besideFurniture.set(text, (besideFurniture.get(text) ?? 0) + 1);
  });
  lines.forEach((line, index) => {
    if (nearAnchor[index] && (besideFurniture.get(line.trim()) ?? 0) >= FOOTER_MIN_REPEATS)
      marked[index] = true;
  });
  return marked;
}
