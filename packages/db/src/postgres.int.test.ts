import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceHarness } from "#test/db/conformance/conformance-harness";
import { describePolicyConformance } from "#test/db/conformance/policy-conformance";
import { describeRepositoryConformance } from "#test/db/conformance/repository-conformance";
import { describeSecurityConformance } from "#test/db/conformance/security-conformance";
import { createServerHarness } from "#test/db/conformance/server-harness";
import { describeValueRulesConformance } from "#test/db/conformance/value-rules-conformance";
import {
  createScratchDatabase,
  requireTestPostgresUrl,
  type ScratchDatabase,
} from "#test/repo/services/postgres";
import { createDatabase } from "./database";
import { createDigestRepository } from "./digest-repository";

let scratch: ScratchDatabase;
let harness: ConformanceHarness;

beforeAll(async () => {
  scratch = await createScratchDatabase(requireTestPostgresUrl(), "cc_pg");
  harness = await createServerHarness(scratch.url, { maxConnections: 20 });
});

afterAll(async () => {
  await harness?.close();
  await scratch?.drop();
});

describeRepositoryConformance("Debian postgres (node-postgres)", () => harness);
describeSecurityConformance("Debian postgres (node-postgres)", () => harness);
describeValueRulesConformance("Debian postgres (node-postgres)", () => harness);
describePolicyConformance("Debian postgres (node-postgres)", () => harness);

describe("a second database in the same cluster", () => {
  it("migrates although the roles already exist, and keeps its rows apart", async () => {
    const second = await createScratchDatabase(requireTestPostgresUrl(), "cc_pg2");
    try {
      const database = await createDatabase(second.url);
      try {
        await database.migrate();
        const repository = createDigestRepository(database);
        expect((await repository.reserveSpend("org-x", "2026-11-30", 1, 2)).ok).toBe(true);
        expect(await repository.getSpend("org-x", "2026-11-30")).toEqual({ reservedUsd: 1, spentUsd: 0 });
      } finally {
        await database.close();
      }
      expect(await createDigestRepository(harness.database).getSpend("org-x", "2026-11-30")).toEqual({
        reservedUsd: 0,
        spentUsd: 0,
      });
    } finally {
      await second.drop();
    }
  });
});
