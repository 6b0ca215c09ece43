import {
  ConstraintViolationError,
  DatabaseNotMigratedError,
  DatabaseQueryError,
  DataExceptionError,
  RowSecurityError,
  StorageError,
} from "./errors";

interface PostgresErrorFields {
  code: string;
  constraint?: string | undefined;
  /** The server's message, e.g. `role "app_user" does not exist` (it may name values). */
  message?: string | undefined;
}

// SQLSTATEs with an error class of their own; any other SQLSTATE becomes a
// DatabaseQueryError, and an error without one is re-thrown untouched.
const CONSTRAINT_CODES = new Set([
  "23502", // not_null_violation
  "23505", // unique_violation
  "23514", // check_violation
]);
const INSUFFICIENT_PRIVILEGE = "42501";
// What an unmigrated database answers: 22023 (invalid_parameter_value) when the transaction
// sets the role `app_user` that does not exist yet, 42P01 (undefined_table) when the roles
// exist (another database of the cluster was migrated) but the tables do not.
const INVALID_PARAMETER_VALUE = "22023";
const MISSING_ROLE = /^role "[^"]*" does not exist$/;
const UNDEFINED_TABLE = "42P01";
// Class 22: data_exception (22021 a character the encoding cannot hold, 22P05 \u0000 in
// jsonb, 22003 a number out of range, 22001 a string too long).
const DATA_EXCEPTION_CLASS = "22";
// Where a later retry can succeed: 08 connection_exception, 40 transaction_rollback
// (40001 serialization_failure, 40P01 deadlock_detected), 53 insufficient_resources,
// 57P01-57P03 the server shutting down or starting, 58 system_error.
const RETRYABLE_CLASSES = new Set(["08", "40", "53", "58"]);
const RETRYABLE_CODES = new Set(["57P01", "57P02", "57P03"]);

/**
 * Finds the Postgres error (with a 5-character SQLSTATE `code`) in a cause chain:
 * drizzle wraps driver errors in `DrizzleQueryError`.
 */
export function findPostgresError(error: unknown): PostgresErrorFields | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth += 1) {
    const candidate = current as { code?: unknown; constraint?: unknown; message?: unknown; cause?: unknown };
    if (typeof candidate.code === "string" && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === "string" ? candidate.constraint : undefined,
        message: typeof candidate.message === "string" ? candidate.message : undefined,
      };
    }
    current = candidate.cause;
  }
  return undefined;
}

/**
 * Maps a database error to a {@link StorageError} subclass by SQLSTATE, or returns it as
 * is when it has none. The mapped error's message never carries the query or its values
 * (drizzle's message does: it stays on the `cause`).
 */
export function mapDatabaseError(error: unknown): unknown {
  if (error instanceof StorageError) {
    return error;
  }
  const postgresError = findPostgresError(error);
  if (postgresError === undefined) {
    return error;
  }
  if (CONSTRAINT_CODES.has(postgresError.code)) {
    return new ConstraintViolationError(postgresError.code, postgresError.constraint, error);
  }
  if (
    postgresError.code === UNDEFINED_TABLE ||
    (postgresError.code === INVALID_PARAMETER_VALUE && MISSING_ROLE.test(postgresError.message ?? ""))
  ) {
    return new DatabaseNotMigratedError(postgresError.code, postgresError.message, error);
  }
  if (postgresError.code === INSUFFICIENT_PRIVILEGE) {
    return new RowSecurityError(error);
  }
  const sqlClass = postgresError.code.slice(0, 2);
  if (sqlClass === DATA_EXCEPTION_CLASS) {
    return new DataExceptionError(postgresError.code, error);
  }
  const retryable = RETRYABLE_CLASSES.has(sqlClass) || RETRYABLE_CODES.has(postgresError.code);
  return new DatabaseQueryError(postgresError.code, retryable, error);
}
