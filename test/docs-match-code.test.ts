/**
 * The docs name what the code has: the storage README lists every migration of
 * `migrations/`; each package's README names each of its entry points (`exports` of its
 * package.json); the assembler's README names every export of every entry point, and
 * core's README every export of `./worker`. Export names are read with the TypeScript
 * checker (types, `export *` and re-exports included), from the sources the entries resolve to.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { readWorkspacePackages } from "../scripts/package-manifest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const readme = (dir: string) => readFileSync(join(ROOT, dir, "README.md"), "utf8");

/** Whether `text` names `name` as a whole word (`extractFigures`, not `extractFiguresOf`). */
function names(text: string, name: string): boolean {
  const escaped = name.replace(/[$]/g, "\\$");
  return new RegExp(`(?<![\\w$])${escaped}(?![\\w$])`).test(text);
}

interface Entry {
  /** `@context-cleaner/assembler/events` */
  specifier: string;
  dir: string;
  source: string;
}

function entriesOf(packageDir: string): Entry[] {
  const manifest = JSON.parse(readFileSync(join(ROOT, packageDir, "package.json"), "utf8")) as {
    name: string;
    exports: Record<string, { "@context-cleaner/source": string }>;
  };
  return Object.entries(manifest.exports).map(([subpath, conditions]) => ({
    specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
    dir: packageDir,
    source: join(ROOT, packageDir, conditions["@context-cleaner/source"]),
  }));
}

/** Every name each entry exports, types included, by specifier. */
function exportedNames(entries: readonly Entry[]): Map<string, string[]> {
  const configPath = join(ROOT, "tsconfig.json");
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const options = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT, undefined, configPath).options;
  const program = ts.createProgram({ rootNames: entries.map((entry) => entry.source), options });
  const checker = program.getTypeChecker();
  return new Map(
    entries.map((entry) => {
      const source = program.getSourceFile(entry.source);
      const module = source && checker.getSymbolAtLocation(source);
      if (!module) throw new Error(`${entry.specifier}: no module at ${entry.source}`);
      return [entry.specifier, checker.getExportsOfModule(module).map((symbol) => symbol.name)];
    }),
  );
}

const published = readWorkspacePackages(ROOT)
  .map((workspace) => workspace.manifest)
  .filter((manifest) => !manifest.private);
const assemblerEntries = entriesOf("packages/assembler");
const workerEntry = entriesOf("packages/core").filter(
  (entry) => entry.specifier === "@context-cleaner/core/worker",
);
const exported = exportedNames([...assemblerEntries, ...workerEntry]);

/** The names of `specifier`'s exports that `text` does not name. */
function unnamed(specifier: string, text: string): string[] {
  const list = exported.get(specifier);
  if (!list) throw new Error(`no exports read for ${specifier}`);
  return list.filter((name) => !names(text, name));
}

describe("the docs match the code", () => {
  it("matches a name as a whole word only", () => {
    expect(names("`extractFigures(text)` lists", "extractFigures")).toBe(true);
    expect(names("`extractFiguresOf`", "extractFigures")).toBe(false);
    expect(names("`$TURN`", "TURN")).toBe(false);
  });

  it("the storage README lists every migration of migrations/", () => {
    const migrations = readdirSync(join(ROOT, "migrations"))
      .filter((file) => file.endsWith(".sql"))
      .map((file) => file.replace(/\.sql$/, ""));
    expect(migrations.length).toBeGreaterThanOrEqual(8);
    const text = readme("packages/db");
    expect(migrations.filter((migration) => !names(text, migration))).toEqual([]);
  });

  it("each published package's README names each of its entry points", () => {
    expect(published.map((manifest) => manifest.name).sort()).toEqual([
      "@context-cleaner/assembler",
      "@context-cleaner/core",
      "@context-cleaner/db",
    ]);
    for (const manifest of published) {
      const dir = `packages/${manifest.name.split("/")[1]}`;
      const text = readme(dir);
      const missing = entriesOf(dir)
        .filter((entry) => entry.specifier !== manifest.name)
        .map((entry) => `./${entry.specifier.slice(manifest.name.length + 1)}`)
        .filter(
          (subpath) =>
            !text.includes(`\`${subpath}\``) && !text.includes(`${manifest.name}${subpath.slice(1)}`),
        );
      expect(missing, `${dir}/README.md does not name`).toEqual([]);
    }
  });

  it("the assembler's README names every export of every entry point", () => {
    const text = readme("packages/assembler");
    for (const entry of assemblerEntries) {
      expect(unnamed(entry.specifier, text), `${entry.specifier}: exported, not in the README`).toEqual([]);
    }
  });

  it("core's README names every export of ./worker", () => {
    expect(exported.get("@context-cleaner/core/worker")?.length).toBeGreaterThan(20);
    expect(unnamed("@context-cleaner/core/worker", readme("packages/core"))).toEqual([]);
  });
}, 120_000);
