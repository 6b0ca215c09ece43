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
  /** Releases connections; a no-op for an injected PGlite instance. */
  close(): Promise<void>;
}
