import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { ignoreIdleClientErrors, probePool } from "./connection-probe";
import { type DriverConnection, toDriverConnection } from "./driver-connection";

/** Pool settings for node-postgres. */
export interface NodePostgresSettings {
  connectTimeoutMs: number;
  maxConnections: number;
}

/**
 * A node-postgres pool. Opening it does no I/O: the first operation connects, after a
 * probe that turns an unreachable server into a `DatabaseConnectionError`.
 */
export function connectNodePostgres(
  url: string,
  target: string,
  settings: NodePostgresSettings,
): DriverConnection {
  const pool = ignoreIdleClientErrors(
    new pg.Pool({
      connectionString: url,
      connectionTimeoutMillis: settings.connectTimeoutMs,
      max: settings.maxConnections,
    }),
  );
  return toDriverConnection(
    drizzle({ client: pool }),
    migrate,
    () => probePool("postgres", target, settings.connectTimeoutMs, pool),
    () => pool.end(),
  );
}
