import { DATABASE_DEFAULTS, openDatabase } from "./database-handle";
import type { Database } from "./database-types";
import { resolveDatabaseTarget } from "./database-url";
import type { DriverConnection } from "./drivers/driver-connection";
import type { DatabaseOptions } from "./public-types";

export type { DatabaseOptions } from "./public-types";

/**
 * Opens a database from a URL: `postgres(ql)://` through node-postgres, or through
 * `@neondatabase/serverless` over WebSocket for Neon hosts (`*.neon.tech`) or with
 * `driver: "neon"`; `pglite://` (in memory) or `pglite://<dir>` (on disk) for the embedded
 * PGlite. Read the URL at the edge (a script or handler) and pass it in; nothing here
 * reads the environment, and no URL is an error, never a silent embedded database.
 *
 * A server database connects on the first operation, not here: an application can start
 * while the database is down, and each operation fails with a `DatabaseConnectionError`
 * until it answers.
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
  const target = resolveDatabaseTarget(url, options.pglite ? "pglite" : options.driver);
  const settings = {
    connectTimeoutMs: options.connectTimeoutMs ?? DATABASE_DEFAULTS.connectTimeoutMs,
    maxConnections: options.maxConnections ?? DATABASE_DEFAULTS.maxConnections,
  };
  let connection: DriverConnection;
  if (target.driver === "pglite") {
    const { connectPglite } = await import("./drivers/pglite-driver");
    connection = await connectPglite(target.dataDir, options.pglite);
  } else if (target.driver === "pg") {
    const { connectNodePostgres } = await import("./drivers/node-postgres-driver");
    connection = connectNodePostgres(target.url, `${target.host}:${target.port}`, settings);
  } else {
    const { connectNeon } = await import("./drivers/neon-driver");
    connection = connectNeon(target.url, `${target.host}:${target.port}`, {
      ...settings,
      neon: options.neon ?? {},
    });
  }
  return openDatabase(target.driver, target.description, connection, options.checkConnection);
}
