// The published packages' manifests are the single source of truth for what gets built:
// every subpath of `exports` and every `bin` names its source and its dist/ outputs, and the
// build (tsdown.config.ts) derives one bundle entry per subpath from them. Adding a subpath
// to a package.json is all a new entry point needs.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The export condition that points at a subpath's TypeScript source. Listed first in every
 * subpath, it is set only inside this repository (tsconfig `customConditions`, vitest's
 * resolve conditions, the tsx-run scripts), so development needs no build; every other
 * consumer skips it and reaches dist/.
 */
export const SOURCE_CONDITION = "@context-cleaner/source";

type Conditions = Record<string, string>;

export interface PackageManifest {
  name: string;
  version: string;
  private?: boolean;
  files?: string[];
  exports?: Record<string, Conditions | string>;
  bin?: Record<string, string>;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  sideEffects?: boolean;
  engines?: Record<string, string>;
}

export interface WorkspacePackage {
  /** The package folder, absolute. */
  dir: string;
  manifest: PackageManifest;
}

/** The workspace packages under `packages/`, read from their package.json files. */
export function readWorkspacePackages(root: string): WorkspacePackage[] {
  const packagesDir = join(root, "packages");
  return readdirSync(packagesDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(packagesDir, entry.name))
    .filter((dir) => {
      try {
        readFileSync(join(dir, "package.json"));
        return true;
      } catch {
        return false;
      }
    })
    .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) }));
}

/** `./dist/langchain/middleware.js` → `langchain/middleware`; anything else → undefined. */
function distName(target: string): string | undefined {
  return /^\.\/dist\/(.+)\.js$/.exec(target)?.[1];
}

/** `./dist/bin/context-cleaner.js` is built from `./src/bin/context-cleaner.ts`. */
function binSource(target: string): string | undefined {
  const name = distName(target);
  return name === undefined ? undefined : `./src/${name}.ts`;
}

/**
 * The bundle entries of a package: output name under dist/ (without extension) → source
 * file, one per `exports` subpath (from its source condition) and one per `bin`.
 * @throws when the manifest breaks a rule of {@link manifestProblems}.
 */
export function buildEntries(manifest: PackageManifest): Record<string, string> {
  const problems = manifestProblems(manifest);
  if (problems.length > 0) {
    throw new Error(`${manifest.name}: package.json does not describe a build:\n  ${problems.join("\n  ")}`);
  }
  const entries: Record<string, string> = {};
  for (const conditions of Object.values(manifest.exports ?? {})) {
    const target = conditions as Conditions;
    entries[distName(target.import as string) as string] = target[SOURCE_CONDITION] as string;
  }
  for (const target of Object.values(manifest.bin ?? {})) {
    entries[distName(target) as string] = binSource(target) as string;
  }
  return entries;
}

/**
 * What is wrong with a publishable manifest, one line per problem. Each `exports` subpath
 * must be `{ [SOURCE_CONDITION]: "./src/….ts", types: "./dist/<name>.d.ts", import:
 * "./dist/<name>.js" }` in that order, with `<name>` the subpath (`index` for "."); each
 * `bin` must point at `./dist/<name>.js`, built from `./src/<name>.ts`.
 */
export function manifestProblems(manifest: PackageManifest): string[] {
  const problems: string[] = [];
  const exportsMap = manifest.exports ?? {};
  if (Object.keys(exportsMap).length === 0) problems.push("no exports");
  for (const [subpath, conditions] of Object.entries(exportsMap)) {
    const name = subpath === "." ? "index" : subpath.replace(/^\.\//, "");
    const expected = {
      [SOURCE_CONDITION]: typeof conditions === "object" ? conditions[SOURCE_CONDITION] : undefined,
      types: `./dist/${name}.d.ts`,
      import: `./dist/${name}.js`,
    };
    if (typeof conditions !== "object" || !/^\.\/src\/.+\.ts$/.test(conditions[SOURCE_CONDITION] ?? "")) {
      problems.push(`exports["${subpath}"]["${SOURCE_CONDITION}"] must name its source, "./src/….ts"`);
      continue;
    }
    if (JSON.stringify(conditions) !== JSON.stringify(expected)) {
      problems.push(`exports["${subpath}"] must be ${JSON.stringify(expected)}`);
    }
  }
  for (const [command, target] of Object.entries(manifest.bin ?? {})) {
    if (distName(target) === undefined) problems.push(`bin["${command}"] must point at "./dist/<name>.js"`);
  }
  return problems;
}
