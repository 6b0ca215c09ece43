import {
  createDigestRepository,
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

/** The drivers `CONTEXT_CLEANER_DB_DRIVER` may force. */
export const DATABASE_DRIVER_CHOICES = ["neon", "pg"] as const satisfies readonly ServerDatabaseDriver[];

/**
 * The database driver a deployment forces, from `CONTEXT_CLEANER_DB_DRIVER`: `neon` (Neon's
 * serverless driver over WebSocket) or `pg` (node-postgres); unset or empty, the URL decides.
 * @throws {Error} for any other value: a function must not guess how to reach its database.
 */
export function databaseDriverFromEnvironment(
  environment: Record<string, string | undefined>,
): ServerDatabaseDriver | undefined {
  const value = environment.CONTEXT_CLEANER_DB_DRIVER;
  if (value === undefined || value === "") return undefined;
  const driver = DATABASE_DRIVER_CHOICES.find((choice) => choice === value);
  if (driver === undefined) {
    throw new Error(
      `CONTEXT_CLEANER_DB_DRIVER must be one of ${DATABASE_DRIVER_CHOICES.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return driver;
}

/** The driver a function opens its database with: see {@link FunctionDatabaseConfig.databaseDriver}. */
export function functionDatabaseDriver(config: FunctionDatabaseConfig): ServerDatabaseDriver | undefined {
  return config.databaseDriver ?? (config.neon ? "neon" : undefined);
}

/**
 * Checks that the database is migrated: one indexed read as each role the functions use
 * (`app_user` on `thread_pass`, `app_sweeper` on `thread_owner`).
 * @throws {DatabaseNotMigratedError} when a role or a table is missing: run the migrations.
 */
export async function checkDatabaseMigrated(database: Database): Promise<void> {
  const repository = createDigestRepository(database);
  const probe = "context-cleaner-start-check";
  await repository.getPass(probe, probe);
  await repository.getThreadOwner(probe);
}

/**
 * Opens a function's application database, checked reachable and migrated once, here: while
 * it is down the function's start fails and the invocation is retried; on a database that
 * is not migrated (or a wrong password) the function does not start at all.
 * @throws {DatabaseConnectionError} naming the real cause when the database cannot be reached.
 * @throws {DatabaseNotMigratedError} when it has not been migrated.
 */
export async function openFunctionDatabase(config: FunctionDatabaseConfig): Promise<Database> {
  const driver = functionDatabaseDriver(config);
  const database = await createServerDatabase(config.databaseUrl, {
    checkConnection: true,
    ...(driver ? { driver } : {}),
    ...(config.neon ? { neon: config.neon } : {}),
  });
  try {
    await checkDatabaseMigrated(database);
  } catch (error) {
    await database.close().catch(() => undefined);
    throw error;
  }
  return database;
}
