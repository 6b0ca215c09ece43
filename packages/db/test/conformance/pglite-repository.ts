import type { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll } from "vitest";
import type { Database } from "../../src/database-types";
import { createDigestRepository } from "../../src/digest-repository";
import type { DigestRepository, PassInput } from "../../src/repository-types";
import { createPgliteHarness } from "./pglite-harness";

/** The migrated PGlite database a test file shares, and the repository over it. */
export interface PgliteRepository {
  readonly pglite: PGlite;
  readonly database: Database;
  readonly repository: DigestRepository;
  /**
   * Records a pass as if the database's clock had read `pass.at` (the repository stamps the
   * record with its own now): what a test of the sweep needs to lay out passes over days.
   */
  recordPassAt(orgId: string, threadId: string, pass: PassInput & { at: Date }): Promise<void>;
}

/**
 * One in-memory PGlite per test file (creation takes seconds), migrated, with the digest
 * repository over it: registers the file's `beforeAll` that opens it and `afterAll` that
 * closes it. Call it at the top level, before any hook that uses it; read its fields in
 * hooks and tests (before the file's `beforeAll` has run they throw).
 * @example
 * const storage = usePgliteRepository();
 * it("…", async () => expect(await storage.repository.getPass(orgId, threadId)).toBeNull());
 */
export function usePgliteRepository(): PgliteRepository {
  let opened: (Omit<PgliteRepository, "recordPassAt"> & { close(): Promise<void> }) | undefined;
  beforeAll(async () => {
    const harness = await createPgliteHarness();
    opened = { ...harness, repository: createDigestRepository(harness.database) };
  });
  afterAll(async () => {
    await opened?.close();
    opened = undefined;
  });
  const current = () => {
    if (!opened) throw new Error("the PGlite repository is open only inside the test file's hooks and tests");
    return opened;
  };
  return {
    get pglite() {
      return current().pglite;
    },
    get database() {
      return current().database;
    },
    get repository() {
      return current().repository;
    },
    async recordPassAt(orgId, threadId, pass) {
      await current().repository.recordPass(orgId, threadId, pass);
      await current().pglite.query(
        "update thread_pass set recorded_at = $1 where org_id = $2 and thread_id = $3",
        [pass.at.toISOString(), orgId, threadId],
      );
    },
  };
}
