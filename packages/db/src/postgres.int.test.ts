import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createScratchDatabase,
  requireTestPostgresUrl,
  type ScratchDatabase,
} from "../../../test/helpers/postgres";
import { createDatabase } from "./database";
import { createDigestRepository } from "./digest-repository";
import type { ConformanceHarness } from "./testing/conformance-harness";
import { describeRepositoryConformance } from "./testing/repository-conformance";
import { describeSecurityConformance } from "./testing/security-conformance";
import { createServerHarness } from "./testing/server-harness";

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
