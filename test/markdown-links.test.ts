/**
 * Every relative link of the repository's markdown resolves: the file or folder exists, and
 * an anchor (`page.md#section`, `#section`) names a heading of that page, slugged as GitHub
 * slugs headings. Links inside code (fenced blocks, inline spans) are not links; web
 * addresses are not checked (no network in the unit tier).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SKIPPED = new Set([
  "node_modules",
  ".git",
  "dist",
  ".sst",
  "bench-results",
  "reports",
  ".stryker-tmp",
  ".context-cleaner",
  "coverage",
  "tmp",
]);

function markdownFiles(folder = ROOT): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(folder, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(path));
    else if (entry.name.endsWith(".md")) files.push(path);
  }
  return files;
}

/** The text outside fenced code blocks, line by line (a fenced line becomes empty, so lines keep their numbers). */
function proseLines(markdown: string): string[] {
  let fence: string | undefined;
  return markdown.split("\n").map((line) => {
    const marker = /^\s*(```+|~~~+)/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === undefined) fence = marker[0];
      else if (marker[0] === fence) fence = undefined;
      return "";
    }
    return fence === undefined ? line : "";
  });
}

/** GitHub's anchor for a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function headingSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "").replace(/ /g, "-");
}

/** The anchors of a page's headings, a repeated heading numbered as GitHub numbers it (`-1`, `-2`). */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = headingSlug(heading);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** The relative links of a page (inline links and images), outside code. */
function linksOf(file: string, markdown: string): Link[] {
  const links: Link[] = [];
  proseLines(markdown).forEach((text, index) => {
    const prose = text.replace(/(`+)[\s\S]*?\1/g, "");
    for (const match of prose.matchAll(
      /!?\[(?:[^\][]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
    )) {
      const target = match[1] ?? "";
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      links.push({ file, line: index + 1, target });
    }
  });
  return links;
}

const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(path: string): Set<string> {
  let anchors = anchorCache.get(path);
  if (anchors === undefined) {
    anchors = anchorsOf(readFileSync(path, "utf8"));
    anchorCache.set(path, anchors);
  }
  return anchors;
}

/** Why a link does not resolve, or undefined when it does. */
function brokenBecause(link: Link): string | undefined {
  const [pathPart = "", anchor] = link.target.split("#", 2);
  const path = pathPart === "" ? link.file : resolve(dirname(link.file), decodeURI(pathPart));
  if (!existsSync(path)) return `no such file: ${relative(ROOT, path)}`;
  if (anchor === undefined || anchor === "") return undefined;
  if (statSync(path).isDirectory() || !path.endsWith(".md"))
    return `an anchor into a file that is not markdown`;
  if (!anchorsOfFile(path).has(decodeURIComponent(anchor).toLowerCase()))
    return `no heading #${anchor} in ${relative(ROOT, path)}`;
  return undefined;
}

describe("markdown links", () => {
  it("slugs headings as GitHub does", () => {
    expect(headingSlug("Re-read as a tool: `read_original`")).toBe("re-read-as-a-tool-read_original");
    expect(headingSlug("Turns through the caps (`npm start`, `npm run bench:peers`)")).toBe(
      "turns-through-the-caps-npm-start-npm-run-benchpeers",
    );
    expect(headingSlug("Prompt caching: pass the cache context")).toBe(
      "prompt-caching-pass-the-cache-context",
    );
    expect([...anchorsOf("# A\n\n## A\n\n```\n# not a heading\n```\n## A")]).toEqual(["a", "a-1", "a-2"]);
  });

  it("finds relative links outside code, and no web address", () => {
    const markdown = [
      "See [the guide](docs/guide.md#start) and ![a chart](chart.png).",
      "Not `[code](nowhere.md)`, nor [the web](https://example.com).",
      "```md",
      "[in a fence](nowhere.md)",
      "```",
    ].join("\n");
    expect(linksOf("/r/README.md", markdown).map((link) => [link.line, link.target])).toEqual([
      [1, "docs/guide.md#start"],
      [1, "chart.png"],
    ]);
  });

  it("every relative link of every *.md file resolves, anchors included", () => {
    const files = markdownFiles();
    expect(files.map((file) => relative(ROOT, file))).toEqual(
      expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/operate.md", "packages/core/README.md"]),
    );
    const broken = files
      .flatMap((file) => linksOf(file, readFileSync(file, "utf8")))
      .flatMap((link) => {
        const why = brokenBecause(link);
        return why === undefined
          ? []
          : [`${relative(ROOT, link.file)}:${link.line} (${link.target}): ${why}`];
      });
    expect(broken, `links that do not resolve:\n${broken.join("\n")}`).toEqual([]);
  });
});
