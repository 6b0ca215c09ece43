import { sql } from "drizzle-orm";
import { findPostgresError, mapDatabaseError } from "./database-error-mapping";
import type { Database } from "./database-types";
import type { DatabaseDriver } from "./database-url";
import type { DriverConnection } from "./drivers/driver-connection";
import { MigrationPrivilegeError } from "./errors";
import { defaultMigrationsFolder } from "./migrations-folder";
import { ROLE_NAMES } from "./schema/roles";
import { requireOrganizationId } from "./validation";

/** Defaults of the connection options (`DatabaseOptions`). */
export const DATABASE_DEFAULTS = {
  connectTimeoutMs: 5_000,
  maxConnections: 10,
} as const;

/** SQLSTATE insufficient_privilege: while migrating, a missing CREATEROLE or grant. */
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * The {@link Database} over one driver's connection: every query in an org-scoped (or
 * sweeper) transaction, database errors mapped to storage errors. Nothing connects before
 * the first operation, which probes the server first (again after a failed probe), so an
 * application can start while its database is down.
 */
export function toDatabase(
  driver: DatabaseDriver,
  description: string,
  connection: DriverConnection,
  options: { checked?: boolean } = {},
): Database {
  let probed: Promise<void> | undefined = options.checked ? Promise.resolve() : undefined;
  const ready = () => {
    probed ??= connection.probe().catch((error: unknown) => {
      probed = undefined;
      throw error;
    });
    return probed;
  };
  const run = async <T>(operation: () => Promise<T>, mapError = mapDatabaseError): Promise<T> => {
    await ready();
    try {
      return await operation();
    } catch (error) {
      throw mapError(error);
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
      return run(
        () => connection.migrate(options.migrationsFolder ?? defaultMigrationsFolder()),
        mapMigrationError,
      );
    },
    close: () => connection.close(),
  };
}

/**
 * {@link toDatabase}, after checking the server answers when `checkConnection` is set (the
 * connection is closed when it does not).
 * @throws {DatabaseConnectionError} with `checkConnection`, when the server cannot be reached.
 */
export async function openDatabase(
  driver: DatabaseDriver,
  description: string,
  connection: DriverConnection,
  checkConnection = false,
): Promise<Database> {
  if (checkConnection) {
    try {
      await connection.probe();
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }
  return toDatabase(driver, description, connection, { checked: checkConnection });
}

/** A refused privilege while migrating says which role or grant is needed; others map as usual. */
function mapMigrationError(error: unknown): unknown {
  const postgresError = findPostgresError(error);
  if (postgresError?.code === INSUFFICIENT_PRIVILEGE) {
    return new MigrationPrivilegeError(postgresError.message, error);
  }
  return mapDatabaseError(error);
}
