import { afterAll, beforeAll } from "vitest";
import type { ConformanceHarness } from "#test/db/conformance/conformance-harness";
import { createPgliteHarness } from "#test/db/conformance/pglite-harness";
import { describePolicyConformance } from "#test/db/conformance/policy-conformance";
import { describeRepositoryConformance } from "#test/db/conformance/repository-conformance";
import { describeSecurityConformance } from "#test/db/conformance/security-conformance";
import { describeValueRulesConformance } from "#test/db/conformance/value-rules-conformance";

let harness: ConformanceHarness;

beforeAll(async () => {
  harness = await createPgliteHarness();
});

afterAll(async () => {
  await harness?.close();
});

describeRepositoryConformance("PGlite", () => harness);
describeSecurityConformance("PGlite", () => harness);
describeValueRulesConformance("PGlite", () => harness);
describePolicyConformance("PGlite", () => harness);
