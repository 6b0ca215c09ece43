import { afterAll, beforeAll } from "vitest";
import type { ConformanceHarness } from "./testing/conformance-harness";
import { createPgliteHarness } from "./testing/pglite-harness";
import { describeRepositoryConformance } from "./testing/repository-conformance";
import { describeSecurityConformance } from "./testing/security-conformance";

let harness: ConformanceHarness;

beforeAll(async () => {
  harness = await createPgliteHarness();
});

afterAll(async () => {
  await harness?.close();
});

describeRepositoryConformance("PGlite", () => harness);
describeSecurityConformance("PGlite", () => harness);
