import { sql } from "drizzle-orm";
import { mapDatabaseError } from "./database-error-mapping";
import type { Database } from "./database-types";
import type { DatabaseDriver } from "./database-url";
import type { DriverConnection } from "./drivers/driver-connection";
import { defaultMigrationsFolder } from "./migrations-folder";
import { ROLE_NAMES } from "./schema/roles";
import { requireOrganizationId } from "./validation";

/** Defaults of the connection options (`DatabaseOptions`). */
export const DATABASE_DEFAULTS = {
  connectTimeoutMs: 5_000,
  maxConnections: 10,
} as const;

/**
 * The {@link Database} over one driver's connection: every query in an org-scoped (or
 * sweeper) transaction, database errors mapped to storage errors.
 */
export function toDatabase(
  driver: DatabaseDriver,
  description: string,
  connection: DriverConnection,
): Database {
  const run = async <T>(operation: () => Promise<T>): Promise<T> => {
    try {
      return await operation();
    } catch (error) {
      throw mapDatabaseError(error);
    }
  };
  return {
    driver,
    description,
    withOrganization(orgId, work, options = {}) {
      const organization = requireOrganizationId(orgId);
      return run(() =>
        connection.drizzle.transaction(
          async (transaction) => {
            // One round trip: org and role are both transaction-local settings.
            await transaction.execute(
              sql`select set_config('app.organization_id', ${organization}, true), set_config('role', ${ROLE_NAMES.app}, true)`,
            );
            return work(transaction);
          },
          { accessMode: options.readOnly ? "read only" : "read write" },
        ),
      );
    },
    withSweeper(work) {
      return run(() =>
        connection.drizzle.transaction(
          async (transaction) => {
            await transaction.execute(sql`select set_config('role', ${ROLE_NAMES.sweeper}, true)`);
            return work(transaction);
          },
          { accessMode: "read only" },
        ),
      );
    },
    migrate(options = {}) {
      return run(() => connection.migrate(options.migrationsFolder ?? defaultMigrationsFolder()));
    },
    close: () => connection.close(),
  };
}
