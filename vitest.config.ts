import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Tests run the workspace packages from their TypeScript sources: the
// "@context-cleaner/source" export condition (first in every subpath of their package.json)
// comes before vite's default conditions, which stay for every other package. Vitest also
// hands the server list to its Node workers as `--conditions` flags, so it leaves out vite's
// "module": Node would then pick bundler-only builds of dependencies (e.g. the AWS SDK's
// dist-es, whose relative imports have no extensions).
const SOURCE_CONDITION = "@context-cleaner/source";
const resolveFromSource = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, ...defaultServerConditions.filter((name) => name !== "module")],
    },
  },
};

// Pure tests live beside the code (packages/*/src) or in a package's test/ folder, plus the
// repository-wide test/ and functions/. `*.int.test.ts` files reach real services and run
// only in the services project (`npm run test:services`).
export default defineConfig({
  ...resolveFromSource,
  test: {
    projects: [
      {
        ...resolveFromSource,
        test: {
          name: "unit",
          include: [
            "packages/*/src/**/*.test.ts",
            "packages/*/test/**/*.test.ts",
            "functions/**/*.test.ts",
            "test/**/*.test.ts",
          ],
          exclude: ["**/*.int.test.ts", "**/node_modules/**"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        ...resolveFromSource,
        test: {
          name: "services",
          include: [
            "packages/*/src/**/*.int.test.ts",
            "packages/*/test/**/*.int.test.ts",
            "functions/**/*.int.test.ts",
            "test/**/*.int.test.ts",
          ],
          exclude: ["**/node_modules/**"],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
