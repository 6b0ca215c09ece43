import { ContextCleanerError } from "@context-cleaner/assembler";

/** Stable codes of the storage errors, one per class. */
const STORAGE_ERROR_CODES = {
  unsupportedDatabaseUrl: "unsupported_database_url",
  databaseUnreachable: "database_unreachable",
  missingOrganization: "missing_organization",
  invalidStorageInput: "invalid_storage_input",
  constraintViolation: "constraint_violation",
  rowSecurity: "row_security",
  dataException: "data_exception",
  databaseQueryFailed: "database_query_failed",
  missingDatabaseUrl: "missing_database_url",
  databaseNotMigrated: "database_not_migrated",
  migrationPrivilege: "migration_privilege",
} as const;

/**
 * Base class of every error thrown by `@context-cleaner/db`. Keeps `cause`; `code` is
 * stable; `retryable` is true only for connection trouble, never for bad input.
 */
export class StorageError extends ContextCleanerError {
  constructor(message: string, options: { code: string; cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.name = "StorageError";
  }
}

/** The database URL has a scheme (or shape) no driver serves. Never falls back silently. */
export class UnsupportedDatabaseUrlError extends StorageError {
  readonly scheme: string;

  constructor(scheme: string, supported: readonly string[]) {
    super(
      `Unsupported database URL scheme "${scheme}": expected one of ${supported.join(", ")} ` +
        "(pglite:// for an in-memory PGlite database).",
      { code: STORAGE_ERROR_CODES.unsupportedDatabaseUrl },
    );
    this.name = "UnsupportedDatabaseUrlError";
    this.scheme = scheme;
  }
}

/** The database could not be reached or refused the connection. Retryable. */
export class DatabaseConnectionError extends StorageError {
  readonly driver: string;
  /** `host:port` (or the PGlite data dir); never carries credentials. */
  readonly target: string;

  constructor(driver: string, target: string, detail: string, cause: unknown) {
    super(`Cannot connect to the ${driver} database at ${target}: ${detail}`, {
      code: STORAGE_ERROR_CODES.databaseUnreachable,
      cause,
      retryable: true,
    });
    this.name = "DatabaseConnectionError";
    this.driver = driver;
    this.target = target;
  }
}

/**
 * An org-scoped call got no organization id (`orgId`), or the text of a missing one
 * (`"undefined"`). There is no unscoped code path.
 */
export class MissingOrganizationError extends StorageError {
  constructor(value: unknown) {
    super(
      `An organization id (orgId) is required for every org-scoped operation (got ${describeOrgId(value)}).`,
      {
        code: STORAGE_ERROR_CODES.missingOrganization,
      },
    );
    this.name = "MissingOrganizationError";
  }
}

function describeOrgId(value: unknown): string {
  if (value === "") return "an empty string";
  if (value === "undefined" || value === "null") {
    return (
      `the string "${value}": a missing value turned into text, e.g. String(turn.configurable.org_id) ` +
      "on a turn run without configurable.org_id; pass the org id the turn runs for"
    );
  }
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** An argument failed validation before reaching the database. */
export class InvalidStorageInputError extends StorageError {
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`Invalid ${field}: ${problem}`, { code: STORAGE_ERROR_CODES.invalidStorageInput });
    this.name = "InvalidStorageInputError";
    this.field = field;
  }
}

/** The database refused a row: a CHECK, NOT NULL or unique constraint. */
export class ConstraintViolationError extends StorageError {
  /** The constraint's name, e.g. `context_digest_sha256_hex`, when the driver reports it. */
  readonly constraint: string | undefined;
  /** The SQLSTATE the database answered, e.g. `23514`. */
  readonly sqlState: string;

  constructor(sqlState: string, constraint: string | undefined, cause: unknown) {
    super(
      `The database refused the row (SQLSTATE ${sqlState}${constraint ? `, constraint ${constraint}` : ""}).`,
      { code: STORAGE_ERROR_CODES.constraintViolation, cause },
    );
    this.name = "ConstraintViolationError";
    this.sqlState = sqlState;
    this.constraint = constraint;
  }
}

/** Row-level security or a grant refused the operation (SQLSTATE 42501). */
export class RowSecurityError extends StorageError {
  constructor(cause: unknown) {
    super("Row-level security or a missing grant refused the operation (SQLSTATE 42501).", {
      code: STORAGE_ERROR_CODES.rowSecurity,
      cause,
    });
    this.name = "RowSecurityError";
  }
}

/**
 * The database refused a value (SQLSTATE class 22, data exception: a character the column
 * cannot hold, a number out of range, a string too long). The same value fails again:
 * never retryable. The message names the SQLSTATE only, never the query or its values.
 */
export class DataExceptionError extends StorageError {
  /** The SQLSTATE the database answered, e.g. `22021`. */
  readonly sqlState: string;

  constructor(sqlState: string, cause: unknown) {
    super(`The database refused a value (SQLSTATE ${sqlState}, data exception).`, {
      code: STORAGE_ERROR_CODES.dataException,
      cause,
    });
    this.name = "DataExceptionError";
    this.sqlState = sqlState;
  }
}

/**
 * Any other error the database answered with a SQLSTATE. Retryable when a retry can help
 * (a lost connection, a serialization failure or deadlock, exhausted resources, a server
 * shutting down). The message names the SQLSTATE only; the driver's error, with its query,
 * is the `cause`.
 */
export class DatabaseQueryError extends StorageError {
  /** The SQLSTATE the database answered, e.g. `40001`. */
  readonly sqlState: string;

  constructor(sqlState: string, retryable: boolean, cause: unknown) {
    super(`The database failed the operation (SQLSTATE ${sqlState}).`, {
      code: STORAGE_ERROR_CODES.databaseQueryFailed,
      cause,
      retryable,
    });
    this.name = "DatabaseQueryError";
    this.sqlState = sqlState;
  }
}

/**
 * No database URL was given (typically an unset environment variable). Nothing is opened:
 * the embedded database is only ever opened when asked for, as `pglite://`.
 */
export class MissingDatabaseUrlError extends StorageError {
  constructor(value: unknown) {
    super(
      `No database URL was given (got ${value === "" ? "an empty string" : String(value)}; ` +
        "is DATABASE_URL set?): pass a postgres:// URL, or pglite:// for an in-memory " +
        "embedded database, pglite://<dir> for one on disk.",
      { code: STORAGE_ERROR_CODES.missingDatabaseUrl },
    );
    this.name = "MissingDatabaseUrlError";
  }
}

/**
 * The database has not been migrated: the `app_user` / `app_sweeper` roles or the tables
 * the queries need do not exist (SQLSTATE 22023 on `SET ROLE`, or 42P01). Never retryable:
 * run the migrations (`database.migrate()`, or `npm run db:migrate` in the repository).
 */
export class DatabaseNotMigratedError extends StorageError {
  /** The SQLSTATE the database answered: `22023` (a role is missing) or `42P01` (a table). */
  readonly sqlState: string;

  constructor(sqlState: string, serverMessage: string | undefined, cause: unknown) {
    super(
      `The database is not migrated${serverMessage ? ` (${serverMessage})` : ""}: run the migrations ` +
        `(database.migrate(), or npm run db:migrate) on this database first (SQLSTATE ${sqlState}).`,
      { code: STORAGE_ERROR_CODES.databaseNotMigrated, cause },
    );
    this.name = "DatabaseNotMigratedError";
    this.sqlState = sqlState;
  }
}

/** The statements to run as an administrator before migrating as a role without `CREATEROLE`. */
const CREATE_ROLES_FIRST =
  "CREATE ROLE app_user NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT; " +
  "CREATE ROLE app_sweeper NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT; " +
  "GRANT app_user, app_sweeper TO <migrating role> WITH ADMIN OPTION;";

/**
 * Migrating was refused a privilege (SQLSTATE 42501). The migrations create the roles
 * `app_user` and `app_sweeper` and grant them to the migrating role, so that role needs
 * `CREATEROLE`, or an administrator creates the roles first and grants them to it with
 * `ADMIN OPTION`; it must also own (or be allowed to create in) the schema.
 */
export class MigrationPrivilegeError extends StorageError {
  readonly sqlState = "42501";

  constructor(serverMessage: string | undefined, cause: unknown) {
    const said = serverMessage ? ` (the server said: ${serverMessage})` : "";
    const roleNeeded = /\brole\b/i.test(serverMessage ?? "");
    const creating = /\bcreate role\b/i.test(serverMessage ?? "");
    super(
      creating
        ? `Migrating needs a role with CREATEROLE${said}: the migrations create the roles app_user and ` +
            "app_sweeper and grant them to the migrating role. Migrate as a role with CREATEROLE, or " +
            `have an administrator run first: ${CREATE_ROLES_FIRST} (SQLSTATE 42501).`
        : roleNeeded
          ? `Migrating needs the roles app_user and app_sweeper with ADMIN OPTION${said}: migrate as a ` +
            "role with CREATEROLE, or have an administrator run first: GRANT app_user, app_sweeper TO " +
            "<migrating role> WITH ADMIN OPTION; (SQLSTATE 42501)."
          : `Migrating was refused a privilege${said}: the migrating role must own the schema (or have ` +
            "CREATE on it and on the database), and have CREATEROLE or be granted app_user and " +
            "app_sweeper WITH ADMIN OPTION (SQLSTATE 42501).",
      { code: STORAGE_ERROR_CODES.migrationPrivilege, cause },
    );
    this.name = "MigrationPrivilegeError";
  }
}
