import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConformanceHarness } from "#test/db/conformance/conformance-harness";
import { describePolicyConformance } from "#test/db/conformance/policy-conformance";
import { describeRepositoryConformance } from "#test/db/conformance/repository-conformance";
import { describeSecurityConformance } from "#test/db/conformance/security-conformance";
import { createServerHarness } from "#test/db/conformance/server-harness";
import { describeValueRulesConformance } from "#test/db/conformance/value-rules-conformance";
import { type NeonRelay, startNeonRelay } from "#test/repo/services/neon-relay";
import {
  createScratchDatabase,
  requireTestPostgresUrl,
  type ScratchDatabase,
} from "#test/repo/services/postgres";
import { createDigestRepository, createNeonDatabase } from "./neon";

let scratch: ScratchDatabase;
let relay: NeonRelay;
let harness: ConformanceHarness;

beforeAll(async () => {
  scratch = await createScratchDatabase(requireTestPostgresUrl(), "cc_neon");
  const target = new URL(scratch.url);
  relay = await startNeonRelay({ host: target.hostname, port: Number(target.port || 5432) });
  harness = await createServerHarness(scratch.url, {
    driver: "neon",
    maxConnections: 20,
    neon: { wsProxy: relay.wsProxy, useSecureWebSocket: false, pipelineTLS: false, pipelineConnect: false },
  });
});

afterAll(async () => {
  await harness?.close();
  await relay?.close();
  await scratch?.drop();
});

describe("the Neon driver path", () => {
  it("really runs through the WebSocket relay", () => {
    expect(harness.database.driver).toBe("neon");
    expect(relay.connections()).toBeGreaterThan(0);
  });
});

describe("createNeonDatabase (@context-cleaner/db/neon)", () => {
  it("opens the database through the relay and serves the repository", async () => {
    const before = relay.connections();
    const database = await createNeonDatabase(scratch.url, {
      neon: { wsProxy: relay.wsProxy, useSecureWebSocket: false, pipelineTLS: false, pipelineConnect: false },
    });
    try {
      expect(database.driver).toBe("neon");
      const repository = createDigestRepository(database);
      await repository.recordPass("org-neon-entry", "t", { status: "done", at: new Date() });
      expect((await repository.getPass("org-neon-entry", "t"))?.status).toBe("done");
      expect(relay.connections()).toBeGreaterThan(before);
    } finally {
      await database.close();
    }
  });
});

describeRepositoryConformance(
  "the Neon driver (@neondatabase/serverless Pool via a local relay)",
  () => harness,
);
describeSecurityConformance(
  "the Neon driver (@neondatabase/serverless Pool via a local relay)",
  () => harness,
);
describeValueRulesConformance(
  "the Neon driver (@neondatabase/serverless Pool via a local relay)",
  () => harness,
);
describePolicyConformance("the Neon driver (@neondatabase/serverless Pool via a local relay)", () => harness);
