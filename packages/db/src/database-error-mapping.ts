import { ConstraintViolationError, RowSecurityError, StorageError } from "./errors";

interface PostgresErrorFields {
  code: string;
  constraint?: string | undefined;
}

// SQLSTATE classes we translate; everything else is re-thrown untouched.
const CONSTRAINT_CODES = new Set([
  "23502", // not_null_violation
  "23505", // unique_violation
  "23514", // check_violation
]);
const INSUFFICIENT_PRIVILEGE = "42501";

/**
 * Finds the Postgres error (with a 5-character SQLSTATE `code`) in a cause chain:
 * drizzle wraps driver errors in `DrizzleQueryError`.
 */
export function findPostgresError(error: unknown): PostgresErrorFields | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Object; depth += 1) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof candidate.code === "string" && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === "string" ? candidate.constraint : undefined,
      };
    }
    current = candidate.cause;
  }
  return undefined;
}

/** Maps a database error to a {@link StorageError} subclass by SQLSTATE, or returns it as is. */
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
  if (postgresError.code === INSUFFICIENT_PRIVILEGE) {
    return new RowSecurityError(error);
  }
  return error;
}
