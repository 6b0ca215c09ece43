/**
 * `@context-cleaner/db/server`: the storage package for servers and serverless functions
 * on any Postgres. It opens a `postgres://` URL through node-postgres, or through the Neon
 * serverless driver for Neon hosts, so a bundle of it never carries the embedded PGlite
 * engine; the repository and errors are the same as the main entry's.
 */

import { DATABASE_DEFAULTS, openDatabase } from "./database-handle";
import { resolveDatabaseTarget } from "./database-url";
import type { DriverConnection } from "./drivers/driver-connection";
import { connectNeon } from "./drivers/neon-driver";
import type { NeonSettings } from "./drivers/neon-settings";
import { connectNodePostgres } from "./drivers/node-postgres-driver";
import { UnsupportedDatabaseUrlError } from "./errors";
import { publicDatabase } from "./public-handle";
import type { Database } from "./public-types";

export * from "./entry-exports";

/** The server drivers: node-postgres, or Neon's serverless driver over WebSocket. */
export type ServerDatabaseDriver = "pg" | "neon";

/** Options of {@link createServerDatabase}. */
export interface ServerDatabaseOptions {
  /** Force a driver. @default `"neon"` for Neon hosts (`*.neon.tech`), `"pg"` otherwise */
  driver?: ServerDatabaseDriver;
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** Pool size. @default 10 */
  maxConnections?: number;
  /** Neon driver settings (process-global `neonConfig`), used by the Neon driver only. @default {} */
  neon?: NeonSettings;
  /**
   * Check that the server answers before resolving (a function whose start should fail,
   * and be retried, while the database is down). @default false: connect on the first
   * operation
   */
  checkConnection?: boolean;
}

/**
 * Opens a `postgres://` / `postgresql://` URL: through `@neondatabase/serverless` (a
 * WebSocket pool with interactive transactions) for a Neon host or `driver: "neon"`,
 * through node-postgres for any other Postgres (RDS, a container, a local server).
 * @example
 * const repository = createDigestRepository(await createServerDatabase(Resource.DatabaseUrl.value));
 * @throws {MissingDatabaseUrlError} for an undefined or empty URL.
 * @throws {UnsupportedDatabaseUrlError} for a URL that is not `postgres://` or `postgresql://`.
 * @throws {DatabaseConnectionError} with `checkConnection`, when the server cannot be reached.
 */
export async function createServerDatabase(
  url: string | undefined,
  options: ServerDatabaseOptions = {},
): Promise<Database> {
  const target = resolveDatabaseTarget(url, options.driver);
  if (target.driver === "pglite") {
    throw new UnsupportedDatabaseUrlError("pglite://", ["postgres://", "postgresql://"]);
  }
  const settings = {
    connectTimeoutMs: options.connectTimeoutMs ?? DATABASE_DEFAULTS.connectTimeoutMs,
    maxConnections: options.maxConnections ?? DATABASE_DEFAULTS.maxConnections,
  };
  const where = `${target.host}:${target.port}`;
  const connection: DriverConnection =
    target.driver === "neon"
      ? connectNeon(target.url, where, { ...settings, neon: options.neon ?? {} })
      : connectNodePostgres(target.url, where, settings);
  return publicDatabase(
    await openDatabase(target.driver, target.description, connection, options.checkConnection),
  );
}
