import { defineConfig } from "vitest/config";
import { resolveFromSource } from "./scripts/resolve-from-source";

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
