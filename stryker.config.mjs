// @ts-check
/**
 * Mutation testing (`npm run test:mutation`): the modules below, against the tests of
 * stryker/vitest.config.ts. One module at a time: `npm run test:mutation -- --mutate <file>`.
 * Reports go to reports/mutation/ (clear text on the console, JSON and HTML on disk).
 * @type {import("@stryker-mutator/api/core").PartialStrykerOptions}
 */
export default {
  testRunner: "vitest",
  vitest: { configFile: "stryker/vitest.config.ts", related: true },
  coverageAnalysis: "perTest",
  // The serverless core's tests run digest jobs on PGlite: the initial run takes minutes.
  dryRunTimeoutMinutes: 20,
  concurrency: 2,
  mutate: [
    "packages/assembler/src/assemble.ts",
    "packages/assembler/src/steps/backstop/backstop-plan.ts",
    "packages/assembler/src/budget.ts",
    "packages/assembler/src/steps/clean-view.ts",
    "packages/assembler/src/steps/backstop/compact-history.ts",
    "packages/assembler/src/contract/compaction-note.ts",
    "packages/assembler/src/rules/error-retry.ts",
    "packages/assembler/src/thread/exchange-units.ts",
    "packages/assembler/src/contract/figures.ts",
    "packages/assembler/src/contract/hash.ts",
    "packages/assembler/src/steps/inline-clean.ts",
    "packages/assembler/src/thread/keep-index.ts",
    "packages/assembler/src/rules/keep-rules.ts",
    "packages/assembler/src/steps/protect.ts",
    "packages/assembler/src/contract/stubs.ts",
    "packages/assembler/src/rules/window-references.ts",
    "packages/core/src/classify/classify-thread.ts",
    "packages/core/src/render/check-bullets.ts",
    "packages/core/src/render/render-digest.ts",
    "packages/core/src/render/render-superseded-search-stub.ts",
    "packages/core/src/job/claim-thread.ts",
    "packages/core/src/job/commit-pass.ts",
    "packages/core/src/job/options.ts",
    "packages/core/src/job/pass-gates.ts",
    "packages/core/src/job/payload.ts",
    "packages/core/src/job/provenance-args.ts",
    "packages/core/src/job/admit-call.ts",
    "packages/core/src/job/org-policy.ts",
    "packages/core/src/job/report-fallbacks.ts",
    "packages/core/src/job/run-digest-job.ts",
    "packages/core/src/worker/digest-handler.ts",
    "packages/core/src/worker/sqs-event.ts",
    "functions/lib/lazy-handler.ts",
    "functions/lib/secrets.ts",
  ],
  thresholds: { high: 95, low: 90, break: 90 },
  reporters: ["clear-text", "progress", "json", "html"],
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  ignorePatterns: ["reports", ".sst", ".context-cleaner", ".pgdata", "coverage"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
};
