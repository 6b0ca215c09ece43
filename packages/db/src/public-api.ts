import { createDatabase as openDatabaseFromUrl } from "./database";
import { publicDatabase } from "./public-handle";
import type { Database, DatabaseOptions } from "./public-types";

/**
 * Opens a database from a URL: `postgres(ql)://` through node-postgres, or through
 * `@neondatabase/serverless` over WebSocket for Neon hosts (`*.neon.tech`) or with
 * `driver: "neon"`; `pglite://` (in memory) or `pglite://<dir>` (on disk) for the embedded
 * PGlite. Read the URL at the edge (a script or handler) and pass it in; nothing here
 * reads the environment, and no URL is an error, never a silent embedded database.
 *
 * A server database connects on the first operation, not here: an application can start
 * while the database is down, and each operation fails with a `DatabaseConnectionError`
 * until it answers (`checkConnection: true` checks here instead).
 * @example
 * const database = await createDatabase(process.env.DATABASE_URL);
 * const repository = createDigestRepository(database);
 * @throws {MissingDatabaseUrlError} for an undefined or empty URL.
 * @throws {UnsupportedDatabaseUrlError} for an unknown scheme.
 * @throws {DatabaseConnectionError} when PGlite cannot open its data directory, or with
 *   `checkConnection` when the server cannot be reached.
 */
export async function createDatabase(
  url: string | undefined,
  options: DatabaseOptions = {},
): Promise<Database> {
  return publicDatabase(await openDatabaseFromUrl(url, options));
}
