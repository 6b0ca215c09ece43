import { afterAll, beforeAll } from "vitest";
import type { ConformanceHarness } from "../test/conformance/conformance-harness";
import { createPgliteHarness } from "../test/conformance/pglite-harness";
import { describeRepositoryConformance } from "../test/conformance/repository-conformance";
import { describeSecurityConformance } from "../test/conformance/security-conformance";
import { describeValueRulesConformance } from "../test/conformance/value-rules-conformance";

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
