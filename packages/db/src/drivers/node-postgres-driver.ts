import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import { probeConnection } from "./connection-probe";
import type { DriverConnection, DrizzleDatabase } from "./driver-connection";

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
  // An idle client's error (server restart) must not crash the process; the pool drops it.
  pool.on("error", () => undefined);
  await probeConnection(
    "postgres",
    target,
    settings.connectTimeoutMs,
    () => pool.query("select 1"),
    () => pool.end(),
  );
  const database = drizzle({ client: pool });
  return {
    drizzle: database as unknown as DrizzleDatabase,
    migrate: (migrationsFolder) => migrate(database, { migrationsFolder }),
    close: () => pool.end(),
  };
}
