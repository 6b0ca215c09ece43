import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { resolveFromSource } from "../scripts/resolve-from-source";

// The test run Stryker mutates against (`npm run test:mutation`): one project with the tests
// beside the mutated modules, the assembler's core (not its provider adapters, whose suites
// load the SDKs on every reload) and core's classify and render code. Left out as well:
// `*.int.test.ts` (real services) and the PGlite-backed digest-job and CLI tests.
// Property tests run PROPERTY_RUNS cases (20 unless set): every mutant reruns them.
export default defineConfig({
  // The workspace packages resolve to their sources, as in the root vitest.config.ts.
  ...resolveFromSource,
  root: fileURLToPath(new URL("..", import.meta.url)),
  test: {
    include: [
      "packages/assembler/src/*.test.ts",
      "packages/assembler/src/{contract,rules,thread,steps}/**/*.test.ts",
      "packages/core/src/classify/**/*.test.ts",
      "packages/core/src/render/**/*.test.ts",
    ],
    exclude: ["**/*.int.test.ts", "**/node_modules/**"],
    env: { PROPERTY_RUNS: process.env.PROPERTY_RUNS ?? "20" },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
