/**
 * The publishable packages' package.json files: what the build derives its entries from and
 * what a registry install sees. (The build and an install from packed tarballs run in
 * pack.int.test.ts.)
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  buildEntries,
  manifestProblems,
  type PackageManifest,
  readWorkspacePackages,
  SOURCE_CONDITION,
} from "../../scripts/package-manifest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// A package kept `private` is neither built nor published, and not checked here.
const PACKAGES = readWorkspacePackages(ROOT).filter(({ manifest }) => !manifest.private);
const byName = (name: string): PackageManifest => {
  const found = PACKAGES.find(({ manifest }) => manifest.name === name);
  if (!found) throw new Error(`${name} is not a workspace package`);
  return found.manifest;
};

describe("workspace package manifests", () => {
  it("publishes the three packages", () => {
    expect(PACKAGES.map(({ manifest }) => manifest.name)).toEqual(
      expect.arrayContaining(["@context-cleaner/assembler", "@context-cleaner/core", "@context-cleaner/db"]),
    );
  });

  describe.each(PACKAGES.map(({ dir, manifest }) => [manifest.name, dir, manifest] as const))(
    "%s",
    (_name, dir, manifest) => {
      it("is ESM for Node 22+, side-effect free, shipping dist/ only", () => {
        expect(manifest).toMatchObject({ type: "module", sideEffects: false, engines: { node: ">=22" } });
        expect(manifest.files).toEqual(["dist"]);
      });

      it("gives every subpath its source condition first, then types and import under dist/", () => {
        expect(manifestProblems(manifest)).toEqual([]);
        for (const conditions of Object.values(manifest.exports ?? {})) {
          expect(Object.keys(conditions)[0]).toBe(SOURCE_CONDITION);
        }
      });

      it("builds every entry from a source file that exists", () => {
        const entries = buildEntries(manifest);
        expect(Object.keys(entries)).toContain("index");
        for (const source of Object.values(entries)) {
          expect(existsSync(join(dir, source)), `${manifest.name}: ${source}`).toBe(true);
        }
      });

      it("depends on sibling packages at their current version, never `*`", () => {
        for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
          if (!dependency.startsWith("@context-cleaner/")) continue;
          expect(range, `${manifest.name} → ${dependency}`).toBe(`^${byName(dependency).version}`);
        }
      });

      it("marks every peer dependency optional", () => {
        for (const peer of Object.keys(manifest.peerDependencies ?? {})) {
          expect(manifest.peerDependenciesMeta?.[peer]?.optional, `${manifest.name}: ${peer}`).toBe(true);
        }
      });
    },
  );

  it("keeps the assembler free of runtime dependencies", () => {
    const assembler = byName("@context-cleaner/assembler");
    expect(assembler.dependencies ?? {}).toEqual({});
  });

  it("ships the context-cleaner command from core's dist/", () => {
    expect(byName("@context-cleaner/core").bin).toEqual({
      "context-cleaner": "./dist/bin/context-cleaner.js",
    });
    expect(buildEntries(byName("@context-cleaner/core"))["bin/context-cleaner"]).toBe(
      "./src/bin/context-cleaner.ts",
    );
  });
});

describe("manifestProblems", () => {
  const valid: PackageManifest = {
    name: "@context-cleaner/example",
    version: "1.0.0",
    exports: {
      ".": { [SOURCE_CONDITION]: "./src/index.ts", types: "./dist/index.d.ts", import: "./dist/index.js" },
      "./a/b": { [SOURCE_CONDITION]: "./src/a/b.ts", types: "./dist/a/b.d.ts", import: "./dist/a/b.js" },
    },
    bin: { example: "./dist/bin/example.js" },
  };

  it("derives one entry per subpath and per bin", () => {
    expect(buildEntries(valid)).toEqual({
      index: "./src/index.ts",
      "a/b": "./src/a/b.ts",
      "bin/example": "./src/bin/example.ts",
    });
  });

  it("rejects a bare source path, a dist path off the subpath's name, and a condition order change", () => {
    const broken: PackageManifest = {
      ...valid,
      exports: {
        ".": "./src/index.ts",
        "./a": { [SOURCE_CONDITION]: "./src/a.ts", types: "./dist/other.d.ts", import: "./dist/a.js" },
        "./b": { types: "./dist/b.d.ts", [SOURCE_CONDITION]: "./src/b.ts", import: "./dist/b.js" },
      },
      bin: { example: "./bin/example.js" },
    };
    const problems = manifestProblems(broken);
    expect(problems).toHaveLength(4);
    expect(problems[0]).toContain('exports["."]');
    expect(problems[1]).toContain('exports["./a"]');
    expect(problems[2]).toContain('exports["./b"]');
    expect(problems[3]).toContain('bin["example"]');
    expect(() => buildEntries(broken)).toThrow(/does not describe a build/);
  });
});

describe("development from source", () => {
  it("resolves the source condition in tsc", () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, "tsconfig.json"), "utf8"));
    expect(tsconfig.compilerOptions.customConditions).toEqual([SOURCE_CONDITION]);
  });

  it("runs every tsx script of the root package.json with the source condition", () => {
    const scripts: Record<string, string> = JSON.parse(
      readFileSync(join(ROOT, "package.json"), "utf8"),
    ).scripts;
    for (const [name, script] of Object.entries(scripts)) {
      if (!script.includes("--import tsx")) continue;
      expect(script, name).toContain(`--conditions=${SOURCE_CONDITION} --import tsx`);
    }
  });
});
