/**
 * `@context-cleaner/db/neon`: the storage package for serverless functions on Neon. It opens
 * the database through `@neondatabase/serverless` only, so a bundle of it never carries the
 * embedded PGlite engine or node-postgres; the repository and errors are the same as the
 * main entry's.
 */

import { DATABASE_DEFAULTS, openDatabase } from "./database-handle";
import { resolveDatabaseTarget } from "./database-url";
import { connectNeon } from "./drivers/neon-driver";
import type { NeonSettings } from "./drivers/neon-settings";
import { publicDatabase } from "./public-handle";
import type { Database } from "./public-types";

export * from "./entry-exports";

/** Options of {@link createNeonDatabase}. */
export interface NeonDatabaseOptions {
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** Pool size. @default 10 */
  maxConnections?: number;
  /** Neon driver settings (process-global `neonConfig`). @default {} */
  neon?: NeonSettings;
  /** Check that the endpoint answers before resolving. @default false: connect on the first operation */
  checkConnection?: boolean;
}

/**
 * Opens a `postgres://` URL through the Neon serverless driver (a WebSocket pool with
 * interactive transactions), whatever the host: what `createDatabase(url, { driver: "neon" })`
 * does, without the other drivers. For any Postgres, Neon or not, `@context-cleaner/db/server`
 * picks the driver from the URL.
 * @example
 * const repository = createDigestRepository(await createNeonDatabase(Resource.DatabaseUrl.value));
 * @throws {UnsupportedDatabaseUrlError} for a URL that is not `postgres://` or `postgresql://`.
 * @throws {DatabaseConnectionError} with `checkConnection`, when the endpoint cannot be
 *   reached; otherwise the first operation throws it.
 */
export async function createNeonDatabase(url: string, options: NeonDatabaseOptions = {}): Promise<Database> {
  const target = resolveDatabaseTarget(url, "neon");
  if (target.driver !== "neon") {
    // resolveDatabaseTarget refuses a pglite URL for driver "neon"; this narrows the type.
    throw new Error("unreachable: a neon target was expected");
  }
  const connection = connectNeon(target.url, `${target.host}:${target.port}`, {
    connectTimeoutMs: options.connectTimeoutMs ?? DATABASE_DEFAULTS.connectTimeoutMs,
    maxConnections: options.maxConnections ?? DATABASE_DEFAULTS.maxConnections,
    neon: options.neon ?? {},
  });
  return publicDatabase(await openDatabase("neon", target.description, connection, options.checkConnection));
}
