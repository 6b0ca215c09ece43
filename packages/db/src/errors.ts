/** Base class of every error thrown by `@context-cleaner/db`. Keeps `cause`. */
export class StorageError extends Error {
  /** Whether retrying the same call later can help (connection trouble, not bad input). */
  readonly retryable: boolean;

  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "StorageError";
    this.retryable = options.retryable ?? false;
  }
}

/** The database URL has a scheme (or shape) no driver serves. Never falls back silently. */
export class UnsupportedDatabaseUrlError extends StorageError {
  readonly scheme: string;

  constructor(scheme: string, supported: readonly string[]) {
    super(
      `Unsupported database URL scheme "${scheme}": expected one of ${supported.join(", ")} ` +
        "(or no URL for an in-memory PGlite database).",
    );
    this.name = "UnsupportedDatabaseUrlError";
    this.scheme = scheme;
  }
}

/** The database could not be reached or refused the connection. */
export class DatabaseConnectionError extends StorageError {
  readonly driver: string;
  /** `host:port` (or the PGlite data dir); never carries credentials. */
  readonly target: string;

  constructor(driver: string, target: string, detail: string, cause: unknown) {
    super(`Cannot connect to the ${driver} database at ${target}: ${detail}`, { cause, retryable: true });
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
    );
    this.name = "MissingOrganizationError";
  }
}

/** An argument failed validation before reaching the database. */
export class InvalidStorageInputError extends StorageError {
  readonly field: string;

  constructor(field: string, problem: string) {
    super(`Invalid ${field}: ${problem}`);
    this.name = "InvalidStorageInputError";
    this.field = field;
  }
}

/** The database refused a row: a CHECK, NOT NULL or unique constraint. */
export class ConstraintViolationError extends StorageError {
  /** The constraint's name, e.g. `context_digest_sha256_hex`, when the driver reports it. */
  readonly constraint: string | undefined;
  /** The SQLSTATE code, e.g. `23514`. */
  readonly code: string;

  constructor(code: string, constraint: string | undefined, cause: unknown) {
    super(
      `The database refused the row (SQLSTATE ${code}${constraint ? `, constraint ${constraint}` : ""}).`,
      {
        cause,
      },
    );
    this.name = "ConstraintViolationError";
    this.code = code;
    this.constraint = constraint;
  }
}

/** Row-level security or a grant refused the operation (SQLSTATE 42501). */
export class RowSecurityError extends StorageError {
  constructor(cause: unknown) {
    super("Row-level security or a missing grant refused the operation (SQLSTATE 42501).", { cause });
    this.name = "RowSecurityError";
  }
}
