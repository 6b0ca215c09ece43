import {
  countProblem,
  type IdField,
  idProblem,
  textProblem,
  toolCallIdProblem,
  usdProblem,
  usdToMicroUsd,
} from "@context-cleaner/assembler/internal";
import { InvalidStorageInputError, MissingOrganizationError } from "./errors";

// The id, text, count and USD rules are the assembler's shared storage rules, the same the
// worker's payload schema and in-memory store apply: a value one side accepts the other
// never refuses.

// What `String(x)` or a template literal makes of a missing value: a turn without
// `configurable.org_id` would otherwise load (and write) digests for an org named "undefined".
const STRINGIFIED_MISSING_VALUES = new Set(["undefined", "null"]);

/**
 * @throws {MissingOrganizationError} when the org id is missing, empty, blank, not a string,
 *   or a missing value turned into text (`"undefined"`, `"null"`).
 * @throws {InvalidStorageInputError} when it breaks the id rule (taken as given, never
 *   trimmed: no surrounding whitespace, control characters or lone surrogates, at most 200
 *   UTF-8 bytes).
 */
export function requireOrganizationId(orgId: unknown): string {
  if (typeof orgId !== "string" || orgId.trim() === "" || STRINGIFIED_MISSING_VALUES.has(orgId)) {
    throw new MissingOrganizationError(orgId);
  }
  return requireId(orgId, "orgId");
}

/**
 * @param label the field named in the error. @default id
 * @throws {InvalidStorageInputError} when the value breaks the id rule of `id`.
 */
export function requireId(value: unknown, id: IdField, label: string = id): string {
  const problem = idProblem(value, id);
  if (problem) throw new InvalidStorageInputError(label, problem);
  return value as string;
}

/** @throws {InvalidStorageInputError} when a tool call id cannot key a row unaltered. */
export function requireToolCallId(value: unknown, label: string): string {
  const problem = toolCallIdProblem(value);
  if (problem) throw new InvalidStorageInputError(label, problem);
  return value as string;
}

/**
 * A text or jsonb value checked before the database: U+0000 or a lone surrogate anywhere
 * in it (a string, or a key or string inside an object) is refused here, naming the field
 * and never the value.
 * @throws {InvalidStorageInputError} when Postgres would refuse or alter the value.
 */
export function requireStorable<T>(value: T, field: string): T {
  const problem = textProblem(value);
  if (problem) throw new InvalidStorageInputError(field, problem);
  return value;
}

/** @throws {InvalidStorageInputError} unless the value is an integer from 0 to 2^31 − 1. */
export function requireCount(value: unknown, field: string): number {
  const problem = countProblem(value);
  if (problem) throw new InvalidStorageInputError(field, problem);
  return value as number;
}

/**
 * USD → integer micro-USD (what the ledger stores, so sums never drift), by the
 * assembler's conversion.
 * @throws {InvalidStorageInputError} when the amount is not a finite number ≥ 0.
 */
export function checkedMicroUsd(usd: unknown, field: string): number {
  const problem = usdProblem(usd);
  if (problem) throw new InvalidStorageInputError(field, problem);
  return usdToMicroUsd(usd as number);
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
