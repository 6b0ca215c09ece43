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
        "(or no URL for an in-memory PGlite database).",
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

/** An org-scoped call got no organization id. There is no unscoped code path. */
export class MissingOrganizationError extends StorageError {
  constructor(value: unknown) {
    super(
      `An organization id is required for every org-scoped operation (got ${value === "" ? "an empty string" : String(value)}).`,
      { code: STORAGE_ERROR_CODES.missingOrganization },
    );
    this.name = "MissingOrganizationError";
  }
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
