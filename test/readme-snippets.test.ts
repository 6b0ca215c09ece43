/**
 * Type-checks every ```ts block of the docs (the root's *.md: README.md, CONTRIBUTING.md;
 * packages/<name>/README.md; docs/*.md), so a snippet a reader pastes names calls that exist, with the shapes they take.
 *
 * Each block is a virtual module at the repository root (so package imports resolve as in an
 * app), compiled in one program with the repository's tsconfig options. Its
 * `customConditions` ("@context-cleaner/source") resolve the workspace packages to their
 * TypeScript sources: the same types the build emits as declarations.
 *
 * A block may assume values of the surrounding app (a thread id, a model, a repository). It
 * declares them in an HTML comment right before its fence, invisible on GitHub, which is
 * prepended to the block when compiling:
 *
 *   <!-- snippet: declare const orgId: string; declare const threadId: string; -->
 *
 * The comment may span lines, and may hold imports (`import type { Message } from "…"`).
 * Nothing else is special: a block without one compiles as written.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Snippet {
  /** Markdown file, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  fenceLine: number;
  /** The `<!-- snippet: … -->` declarations, or "". */
  prelude: string;
  code: string;
}

const FENCE_OPEN = /^```(ts|typescript)\s*$/;
const SNIPPET_COMMENT = /<!--\s*snippet:([\s\S]*?)-->\s*$/;

/** The ```ts blocks of one markdown text, each with the snippet comment just before its fence. */
function extractSnippets(file: string, markdown: string): Snippet[] {
  const lines = markdown.split("\n");
  const snippets: Snippet[] = [];
  for (let index = 0; index < lines.length; index++) {
    if (!FENCE_OPEN.test(lines[index] ?? "")) continue;
    const end = lines.findIndex((line, at) => at > index && /^```\s*$/.test(line));
    if (end < 0) throw new Error(`${file}:${index + 1}: a \`\`\`ts block is never closed`);
    let before = index - 1;
    while (before >= 0 && (lines[before] ?? "").trim() === "") before--;
    let prelude = "";
    if (before >= 0 && /-->\s*$/.test(lines[before] ?? "")) {
      let start = before;
      while (start > 0 && !(lines[start] ?? "").includes("<!--")) start--;
      const match = SNIPPET_COMMENT.exec(lines.slice(start, before + 1).join("\n"));
      if (match) prelude = (match[1] ?? "").trim();
    }
    snippets.push({ file, fenceLine: index + 1, prelude, code: lines.slice(index + 1, end).join("\n") });
    index = end;
  }
  return snippets;
}

/** The repository's own markdown: every *.md at its root (README, CONTRIBUTING), each package's README, docs/*.md. */
function docFiles(): string[] {
  const markdownIn = (folder: string) =>
    readdirSync(join(ROOT, folder))
      .filter((name) => name.endsWith(".md"))
      .map((name) => (folder === "." ? name : `${folder}/${name}`));
  const packages = readdirSync(join(ROOT, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}/README.md`);
  return [...markdownIn("."), ...packages, ...markdownIn("docs")].filter((file) => {
    try {
      readFileSync(join(ROOT, file));
      return true;
    } catch {
      return false;
    }
  });
}

function compilerOptions(): ts.CompilerOptions {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, "\n"));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath);
  return { ...parsed.options, noEmit: true };
}

/** Type errors of the snippets, each as "<file>:<line> (block at line <n>): TS<code> <message>". */
function typeCheckSnippets(snippets: Snippet[]): string[] {
  const options = compilerOptions();
  const virtual = new Map<string, { snippet: Snippet; text: string; preludeLines: number }>();
  for (const snippet of snippets) {
    const name = join(ROOT, `__snippet__${snippet.file.replaceAll("/", "_")}_${snippet.fenceLine}.ts`);
    const prelude = snippet.prelude === "" ? "" : `${snippet.prelude}\n`;
    // `export {}` makes every block a module (own scope, top-level await).
    const text = `${prelude}${snippet.code}\nexport {};\n`;
    virtual.set(name, { snippet, text, preludeLines: prelude === "" ? 0 : prelude.split("\n").length - 1 });
  }
  const host = ts.createCompilerHost(options, true);
  const getSourceFile = host.getSourceFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const readFile = host.readFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    const entry = virtual.get(fileName);
    if (entry) return ts.createSourceFile(fileName, entry.text, languageVersion, true);
    return getSourceFile(fileName, languageVersion, onError, shouldCreate);
  };
  host.fileExists = (fileName) => virtual.has(fileName) || fileExists(fileName);
  host.readFile = (fileName) => virtual.get(fileName)?.text ?? readFile(fileName);

  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });
  const errors = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(describeGlobal);
  for (const [name, { snippet, preludeLines }] of virtual) {
    const source = program.getSourceFile(name);
    if (!source) throw new Error(`${snippet.file}:${snippet.fenceLine}: block not compiled`);
    const diagnostics = [
      ...program.getSyntacticDiagnostics(source),
      ...program.getSemanticDiagnostics(source),
    ];
    for (const diagnostic of diagnostics) {
      const line = source.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line;
      const where =
        line < preludeLines
          ? `${snippet.file}:${snippet.fenceLine} (snippet comment of the block at line ${snippet.fenceLine})`
          : `${snippet.file}:${snippet.fenceLine + 1 + line - preludeLines} (block at line ${snippet.fenceLine})`;
      const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ");
      errors.push(`${where}: TS${diagnostic.code} ${message}`);
    }
  }
  return errors;
}

function describeGlobal(diagnostic: ts.Diagnostic): string {
  return `TS${diagnostic.code} ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n  ")}`;
}

const snippets = docFiles().flatMap((file) => extractSnippets(file, readFileSync(join(ROOT, file), "utf8")));

describe("docs code blocks", () => {
  it("finds the ```ts blocks of the READMEs and docs/", () => {
    const files = new Set(snippets.map((snippet) => snippet.file));
    expect(files).toContain("README.md");
    expect(files).toContain("docs/integrate.md");
    expect(files).toContain("packages/assembler/README.md");
    expect(snippets.length).toBeGreaterThan(10);
  });

  it("every ```ts block type-checks against the packages' types", () => {
    const errors = typeCheckSnippets(snippets);
    expect(errors, `README code that does not type-check:\n${errors.join("\n")}`).toEqual([]);
  }, 180_000); // one program for every block; loading the frameworks' declarations dominates

  it("names the file and line of an error, past the snippet comment", () => {
    const markdown = [
      "# t",
      "",
      "<!-- snippet:",
      "declare const threadId: string; -->",
      "```ts",
      'import { assembleModelView } from "@context-cleaner/assembler";',
      "const n: number = threadId;",
      "assembleModelView([], new Map());",
      "```",
    ].join("\n");
    const [snippet] = extractSnippets("t.md", markdown);
    expect(snippet?.prelude).toBe("declare const threadId: string;");
    expect(typeCheckSnippets(snippet ? [snippet] : [])).toEqual([
      expect.stringMatching(/^t\.md:7 \(block at line 5\): TS2322 /),
    ]);
  }, 60_000);
});
