import type { PGlite } from "@electric-sql/pglite";
import { DATABASE_DEFAULTS, toDatabase } from "./database-handle";
import type { Database } from "./database-types";
import { type DatabaseDriver, resolveDatabaseTarget } from "./database-url";
import type { DriverConnection } from "./drivers/driver-connection";
import type { NeonSettings } from "./drivers/neon-driver";

/** Options of {@link createDatabase}. */
export interface DatabaseOptions {
  /** Force a driver, e.g. `"neon"` for a Neon-protocol endpoint on a non-Neon host. @default from the URL */
  driver?: DatabaseDriver;
  /** Use this PGlite instance instead of opening one (the caller keeps ownership; `close()` leaves it open). */
  pglite?: PGlite;
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** Pool size for `pg` and Neon. @default 10 */
  maxConnections?: number;
  /** Neon driver settings (process-global `neonConfig`). @default {} */
  neon?: NeonSettings;
}

/**
 * Opens a database from a URL: `pglite://<dir>`, `pglite://` or nothing (in-memory PGlite,
 * the embedded default), `postgres(ql)://` (node-postgres), Neon hosts (`*.neon.tech`, or
 * `driver: "neon"`) through `@neondatabase/serverless` over WebSocket. Read the URL at the
 * edge (a script or handler) and pass it in; nothing here reads the environment.
 * @example
 * const database = await createDatabase(process.env.DATABASE_URL);
 * const repository = createDigestRepository(database);
 * @throws {UnsupportedDatabaseUrlError} for an unknown scheme.
 * @throws {DatabaseConnectionError} when the server cannot be reached (checked once, here).
 */
export async function createDatabase(url?: string, options: DatabaseOptions = {}): Promise<Database> {
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
    connection = await connectNodePostgres(target.url, `${target.host}:${target.port}`, settings);
  } else {
    const { connectNeon } = await import("./drivers/neon-driver");
    connection = await connectNeon(target.url, `${target.host}:${target.port}`, {
      ...settings,
      neon: options.neon ?? {},
    });
  }
  return toDatabase(target.driver, target.description, connection);
}
