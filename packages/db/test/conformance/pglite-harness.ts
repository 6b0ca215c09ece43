import { PGlite } from "@electric-sql/pglite";
import { createDatabase } from "../../src/database";
import type { ConformanceHarness } from "./conformance-harness";

/** One in-memory PGlite per test file (creation takes seconds), migrated. */
export async function createPgliteHarness(): Promise<ConformanceHarness & { pglite: PGlite }> {
  const pglite = await PGlite.create();
  const database = await createDatabase("pglite://", { pglite });
  await database.migrate();
  return {
    pglite,
    database,
    ownerTransaction: (statements) =>
      pglite.transaction(async (transaction) => {
        let rows: Record<string, unknown>[] = [];
        for (const statement of statements) {
          rows = (await transaction.query<Record<string, unknown>>(statement)).rows;
        }
        return rows;
      }),
    close: async () => {
      await database.close();
      await pglite.close();
    },
  };
}
