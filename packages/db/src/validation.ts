import { containsNul, NUL_PROBLEM } from "@context-cleaner/assembler/internal";
import { InvalidStorageInputError, MissingOrganizationError } from "./errors";

/**
 * @throws {MissingOrganizationError} when the org id is missing, empty or not a string.
 * @throws {InvalidStorageInputError} when it holds a character Postgres cannot store.
 */
export function requireOrganizationId(orgId: unknown): string {
  if (typeof orgId !== "string" || orgId.trim() === "") {
    throw new MissingOrganizationError(orgId);
  }
  return requireStorable(orgId, "orgId");
}

/** @throws {InvalidStorageInputError} when the value is not a non-empty string Postgres can store. */
export function requireStorableId(value: unknown, field: string): string {
  return requireStorable(requireNonEmpty(value, field), field);
}

/**
 * A text or jsonb value checked before the database: U+0000 anywhere in it (a string, or
 * a key or string inside an object) is refused here, naming the field and never the value.
 * @throws {InvalidStorageInputError} when the value holds U+0000.
 */
export function requireStorable<T>(value: T, field: string): T {
  if (containsNul(value)) {
    throw new InvalidStorageInputError(field, NUL_PROBLEM);
  }
  return value;
}

/** @throws {InvalidStorageInputError} when the value is not a non-empty string. */
function requireNonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value === "") {
    throw new InvalidStorageInputError(field, `expected a non-empty string, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** @throws {InvalidStorageInputError} unless `day` is a real UTC calendar day `YYYY-MM-DD`. */
export function requireUtcDay(day: unknown): string {
  if (typeof day !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(day)) {
    throw new InvalidStorageInputError("day", `expected "YYYY-MM-DD", got ${JSON.stringify(day)}`);
  }
  const parsed = new Date(`${day}T00:00:00Z`);
  if (Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) {
    throw new InvalidStorageInputError("day", `${day} is not a calendar day`);
  }
  return day;
}

/** @throws {InvalidStorageInputError} unless the value is an integer in [min, max]. */
export function requireInteger(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidStorageInputError(
      field,
      `expected an integer in [${min}, ${max}], got ${String(value)}`,
    );
  }
  return value;
}

/** @throws {InvalidStorageInputError} unless the value is a valid Date (or null/undefined → null). */
export function optionalDate(value: unknown, field: string): Date | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new InvalidStorageInputError(field, `expected a valid Date, got ${String(value)}`);
  }
  return value;
}

/** The UTC day (`YYYY-MM-DD`) of an instant: the spend ledger's key. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
