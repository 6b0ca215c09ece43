import { resolve } from "node:path";
import { createDatabase } from "../database";

const DEFAULTS = {
  /** Where `db:migrate` keeps the embedded database when no `DATABASE_URL` is set. */
  pgliteDataDir: ".context-cleaner/pglite",
} as const;

/**
 * `npm run db:migrate`: applies `migrations/` to `databaseUrl`, or, when unset, to an
 * embedded PGlite database under `<cwd>/.context-cleaner/pglite`.
 * @default databaseUrl: pglite://<cwd>/.context-cleaner/pglite
 */
export async function runMigrateCommand(
  databaseUrl: string | undefined,
  cwd: string,
  log: (line: string) => void,
): Promise<void> {
  const url = databaseUrl || `pglite://${resolve(cwd, DEFAULTS.pgliteDataDir)}`;
  if (!databaseUrl) {
    log(`DATABASE_URL is not set: using the embedded PGlite database at ${url.slice("pglite://".length)}`);
  }
  const database = await createDatabase(url);
  try {
    log(`Migrating ${database.description} …`);
    const started = performance.now();
    await database.migrate();
    log(`Migrations applied (${Math.round(performance.now() - started)} ms).`);
  } finally {
    await database.close();
  }
}
