import {
  createServerDatabase,
  type Database,
  type NeonSettings,
  type ServerDatabaseDriver,
} from "@context-cleaner/db/server";

/** Where a function's application database is and how to reach it. */
export interface FunctionDatabaseConfig {
  /** The application database, as `postgres://`: Neon, RDS, a container, any Postgres. */
  databaseUrl: string;
  /**
   * The driver. @default `"neon"` (Neon's serverless driver over WebSocket) for Neon hosts
   * (`*.neon.tech`) or when `neon` settings are given, `"pg"` (node-postgres) otherwise
   */
  databaseDriver?: ServerDatabaseDriver;
  /** Neon driver settings, e.g. a local WebSocket relay in tests. @default Neon's */
  neon?: NeonSettings;
}

/** The driver a function opens its database with: see {@link FunctionDatabaseConfig.databaseDriver}. */
export function functionDatabaseDriver(config: FunctionDatabaseConfig): ServerDatabaseDriver | undefined {
  return config.databaseDriver ?? (config.neon ? "neon" : undefined);
}

/**
 * Opens a function's application database, checked reachable once, here: while it is down
 * the function's start fails and the invocation is retried.
 * @throws {DatabaseConnectionError} naming the real cause when the database cannot be reached.
 */
export function openFunctionDatabase(config: FunctionDatabaseConfig): Promise<Database> {
  const driver = functionDatabaseDriver(config);
  return createServerDatabase(config.databaseUrl, {
    checkConnection: true,
    ...(driver ? { driver } : {}),
    ...(config.neon ? { neon: config.neon } : {}),
  });
}
