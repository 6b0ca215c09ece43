import type { DatabaseDriver } from "./database-url";
import type { NeonSettings } from "./drivers/neon-settings";

declare const SCOPED_TRANSACTION: unique symbol;

/**
 * A transaction already scoped to one org (or to the sweeper role). Opaque in the public
 * declarations, so a consumer's type check never loads the query builder's declarations
 * (they do not pass `skipLibCheck: false`). At run time it is a drizzle-orm `PgTransaction`:
 * cast it to that type to run queries of your own.
 */
export interface ScopedTransaction {
  readonly [SCOPED_TRANSACTION]: "ScopedTransaction";
}

/** A database handle. Every query runs inside an org-scoped (or sweeper) transaction. */
export interface Database {
  readonly driver: DatabaseDriver;
  /** Where it points, without credentials, e.g. `postgres://127.0.0.1:5433/app`. */
  readonly description: string;
  /**
   * Runs `work` in a transaction that sets `app.organization_id` and the role `app_user`
   * locally, so row-level security confines it to `orgId`.
   * @throws {MissingOrganizationError} when `orgId` is missing or empty.
   */
  withOrganization<T>(
    orgId: string,
    work: (transaction: ScopedTransaction) => Promise<T>,
    options?: { readOnly?: boolean },
  ): Promise<T>;
  /** Runs `work` read-only as `app_sweeper`, which sees only the pass record's routing columns. */
  withSweeper<T>(work: (transaction: ScopedTransaction) => Promise<T>): Promise<T>;
  /** Applies pending migrations. @default migrationsFolder: the package's migrations */
  migrate(options?: { migrationsFolder?: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * What `createDatabase` needs of an injected PGlite instance (`new PGlite()` or
 * `PGlite.create()` from `@electric-sql/pglite`), named structurally so the public
 * declarations carry none of PGlite's.
 */
export interface PgliteInstance {
  query(query: string, params?: unknown[]): Promise<unknown>;
  exec(query: string): Promise<unknown>;
  close(): Promise<void>;
  readonly closed: boolean;
}

/** Options of `createDatabase`. */
export interface DatabaseOptions {
  /** Force a driver, e.g. `"neon"` for a Neon-protocol endpoint on a non-Neon host. @default from the URL */
  driver?: DatabaseDriver;
  /** Use this PGlite instance instead of opening one (the caller keeps ownership; `close()` leaves it open). */
  pglite?: PgliteInstance;
  /** @default 5000 */
  connectTimeoutMs?: number;
  /** Pool size for `pg` and Neon. @default 10 */
  maxConnections?: number;
  /** Neon driver settings (process-global `neonConfig`). @default {} */
  neon?: NeonSettings;
  /**
   * Check that a server answers before resolving. @default false: connect on the first
   * operation, so an application starts while its database is down
   */
  checkConnection?: boolean;
}
