import type { DatabaseDriver } from "./database-url";
import type { DrizzleTransaction } from "./drivers/driver-connection";

/** A transaction already scoped to one org (or to the sweeper role). */
export type ScopedTransaction = DrizzleTransaction;

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
  /** Applies pending migrations. @default migrationsFolder: the repository's `migrations/` */
  migrate(options?: { migrationsFolder?: string }): Promise<void>;
  close(): Promise<void>;
}
