import pg from "pg";
import { runInTransaction } from "../../../../test/services/postgres";
import { createDatabase, type DatabaseOptions } from "../../src/database";
import type { ConformanceHarness } from "./conformance-harness";

/**
 * A migrated database on a Postgres server (node-postgres, or the Neon driver via
 * `options`), plus an owner pool for assertions the app role cannot make.
 */
export async function createServerHarness(
  url: string,
  options: DatabaseOptions = {},
): Promise<ConformanceHarness> {
  const database = await createDatabase(url, options);
  await database.migrate();
  const owner = new pg.Pool({ connectionString: url, max: 2 });
  return {
    database,
    ownerTransaction: (statements) => runInTransaction(owner, statements),
    close: async () => {
      await database.close();
      await owner.end();
    },
  };
}
