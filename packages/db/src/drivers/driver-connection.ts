import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";

/** The drizzle handle every driver yields; only `database.ts` and the migrator touch it. */
export type DrizzleDatabase = PgDatabase<PgQueryResultHKT>;

/** A transaction on a {@link DrizzleDatabase}. */
export type DrizzleTransaction = Parameters<Parameters<DrizzleDatabase["transaction"]>[0]>[0];

/** What a driver adapter hands back to `createDatabase`. */
export interface DriverConnection {
  readonly drizzle: DrizzleDatabase;
  /** Applies the drizzle-kit migrations in `migrationsFolder` (idempotent). */
  migrate(migrationsFolder: string): Promise<void>;
  /**
   * Checks that the server answers. Nothing connects before the first operation, which
   * runs this first; after a failed check, the next operation checks again.
   * @throws {DatabaseConnectionError} naming the real cause.
   */
  probe(): Promise<void>;
  /** Releases connections; a no-op for an injected PGlite instance. */
  close(): Promise<void>;
}

/**
 * The {@link DriverConnection} of a drizzle handle and its driver's `migrate`.
 * @param probe checks the server answers (see {@link DriverConnection.probe}).
 * @param close releases what the driver opened.
 */
export function toDriverConnection<TDatabase>(
  database: TDatabase,
  migrate: (database: TDatabase, config: { migrationsFolder: string }) => Promise<void>,
  probe: () => Promise<void>,
  close: () => Promise<void>,
): DriverConnection {
  return {
    drizzle: database as unknown as DrizzleDatabase,
    migrate: (migrationsFolder) => migrate(database, { migrationsFolder }),
    probe,
    close,
  };
}
