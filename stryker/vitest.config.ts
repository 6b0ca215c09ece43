import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";
import { resolveFromSource } from "../scripts/resolve-from-source";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * The workspace packages' names resolve to the sources under this run's root. Stryker runs
 * the tests in a copy of the repository whose node_modules links to the original's, where
 * `@context-cleaner/*` link to the original, unmutated packages: a test importing a module
 * by its package name (`@context-cleaner/core/worker`) would otherwise test the original.
 */
function workspaceSources(): Plugin {
  const exportsOf = new Map<string, Record<string, unknown>>();
  const sourceOf = (name: string, subpath: string): string | undefined => {
    let exports = exportsOf.get(name);
    if (exports === undefined) {
      try {
        const manifest = JSON.parse(readFileSync(join(ROOT, "packages", name, "package.json"), "utf8"));
        exports = (manifest.exports ?? {}) as Record<string, unknown>;
      } catch {
        exports = {};
      }
      exportsOf.set(name, exports);
    }
    const entry = exports[subpath];
    const source =
      typeof entry === "object" && entry !== null
        ? (entry as Record<string, unknown>)["@context-cleaner/source"]
        : undefined;
    return typeof source === "string" ? join(ROOT, "packages", name, source) : undefined;
  };
  return {
    name: "workspace-sources",
    enforce: "pre",
    resolveId(id) {
      const match = /^@context-cleaner\/([a-z-]+)(\/.*)?$/.exec(id);
      if (!match) return null;
      return sourceOf(match[1] as string, `.${match[2] ?? ""}`) ?? null;
    },
  };
}

/**
 * Test files under `folders` that open a PGlite database (`usePgliteRepository`): each
 * boots and migrates its own, seconds per file, and every mutant they cover would rerun
 * them. They stay in the unit tier; the mutation run relies on the in-memory tests.
 */
function pgliteBacked(folders: readonly string[]): string[] {
  return folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".test.ts"))
      .map((file) => `${folder}/${file}`)
      .filter((path) => readFileSync(join(ROOT, path), "utf8").includes("usePgliteRepository")),
  );
}

// The test run Stryker mutates against (`npm run test:mutation`): one project with the tests
// beside the mutated modules: the assembler's core (not its provider adapters, whose suites
// load the SDKs on every reload), core's classify and render code, and the serverless core
// (core's digest job and worker, the functions' shared code). Left out: `*.int.test.ts`
// (real services), the CLI tests and the PGlite-backed tests of the serverless core.
// Property tests run PROPERTY_RUNS cases (20 unless set): every mutant reruns them.
export default defineConfig({
  // The workspace packages resolve to their sources, as in the root vitest.config.ts.
  ...resolveFromSource,
  plugins: [workspaceSources()],
  root: ROOT,
  test: {
    include: [
      "packages/assembler/src/*.test.ts",
      "packages/assembler/src/{contract,rules,thread,steps}/**/*.test.ts",
      "packages/core/src/classify/**/*.test.ts",
      "packages/core/src/render/**/*.test.ts",
      "packages/core/src/job/**/*.test.ts",
      "packages/core/src/worker/**/*.test.ts",
      "functions/lib/**/*.test.ts",
    ],
    exclude: [
      "**/*.int.test.ts",
      "**/node_modules/**",
      ...pgliteBacked(["packages/core/src/job", "packages/core/src/worker", "functions/lib"]),
    ],
    env: { PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? "20" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
