import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultClientConditions, defaultServerConditions } from "vite";

// Tests run the workspace packages from their TypeScript sources: the
// "@context-cleaner/source" export condition (first in every subpath of their package.json)
// comes before vite's default conditions, which stay for every other package. Vitest also
// hands the server list to its Node workers as `--conditions` flags, so it leaves out vite's
// "module": Node would then pick bundler-only builds of dependencies (e.g. the AWS SDK's
// dist-es, whose relative imports have no extensions).
const SOURCE_CONDITION = "@context-cleaner/source";
const ROOT = fileURLToPath(new URL("..", import.meta.url));

// Tests beside a package's code reach test helpers through `#test/<package>/…` (a package's
// own test/ folder) and `#test/repo/…` (the repository's test/), never through relative
// paths out of src/: shipped code has no path into test code (a lint rule), and these
// names say at a glance that only tests use them. The same names are tsconfig `paths`.
const TEST_FOLDERS = {
  assembler: "packages/assembler/test",
  core: "packages/core/test",
  db: "packages/db/test",

  repo: "test",
};
export const TEST_ALIASES = Object.entries(TEST_FOLDERS).map(([name, folder]) => ({
  find: new RegExp(`^#test/${name}/`),
  replacement: `${join(ROOT, folder)}/`,
}));

export const resolveFromSource = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions], alias: TEST_ALIASES },
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, ...defaultServerConditions.filter((name) => name !== "module")],
    },
  },
};
