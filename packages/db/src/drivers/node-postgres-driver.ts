import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { probePool } from "./connection-probe";
import { type DriverConnection, toDriverConnection } from "./driver-connection";

/** Pool settings for node-postgres. */
export interface NodePostgresSettings {
  connectTimeoutMs: number;
  maxConnections: number;
}

/**
 * A node-postgres pool, probed once so an unreachable server fails here, fast.
 * @throws {DatabaseConnectionError} when the server cannot be reached.
 */
export async function connectNodePostgres(
  url: string,
  target: string,
  settings: NodePostgresSettings,
): Promise<DriverConnection> {
  const pool = new pg.Pool({
    connectionString: url,
    connectionTimeoutMillis: settings.connectTimeoutMs,
    max: settings.maxConnections,
  });
  await probePool("postgres", target, settings.connectTimeoutMs, pool);
  return toDriverConnection(drizzle({ client: pool }), migrate, () => pool.end());
}
