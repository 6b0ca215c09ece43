import {
  countProblem,
  DIGEST_KINDS,
  type DigestRow,
  idProblem,
  PASS_STATUSES,
  textProblem,
  toolCallIdProblem,
  usdProblem,
  usdToMicroUsd,
} from "@context-cleaner/assembler/internal";
import { STORE_INPUT_CODES, type StoreInputCode, StoreInputError } from "../errors";
import type { PassUpdate } from "../ports";

/**
 * The in-memory store's input checks: the assembler's shared storage rules (ids, text,
 * counts), plus what the storage package's tables CHECK (hash, kinds, sizes), answered with
 * the code the repository gives the same value.
 */

const SHA256_HEX = /^[0-9a-f]{64}$/;

function refuse(
  field: string,
  problem: string | undefined,
  code: StoreInputCode = STORE_INPUT_CODES.invalidInput,
): void {
  if (problem) throw new StoreInputError(field, problem, code);
}

/** @throws {StoreInputError} `missing_organization`, or `invalid_storage_input` for a broken id rule. */
export function requireOrganization(orgId: unknown): string {
  if (typeof orgId !== "string" || orgId.trim() === "") {
    throw new StoreInputError(
      "orgId",
      "an organization id is required",
      STORE_INPUT_CODES.missingOrganization,
    );
  }
  refuse("orgId", idProblem(orgId, "orgId"));
  return orgId;
}

/** @throws {StoreInputError} for a thread id that breaks the id rule. */
export function requireThread(threadId: unknown, field = "threadId"): string {
  refuse(field, idProblem(threadId, "threadId"));
  return threadId as string;
}

/**
 * USD → integer micro-USD, as the repository's ledger stores it, by the assembler's
 * conversion.
 * @throws {StoreInputError} when the amount is not a finite number ≥ 0.
 */
export function checkedMicroUsd(usd: unknown, field: string): number {
  refuse(field, usdProblem(usd));
  return usdToMicroUsd(usd as number);
}

/** @throws {StoreInputError} unless `day` is a real UTC calendar day `YYYY-MM-DD`. */
export function requireDay(day: unknown): string {
  const parsed = typeof day === "string" ? new Date(`${day}T00:00:00Z`) : new Date(Number.NaN);
  if (
    typeof day !== "string" ||
    Number.isNaN(parsed.getTime()) ||
    parsed.toISOString().slice(0, 10) !== day
  ) {
    throw new StoreInputError("day", `expected a calendar day "YYYY-MM-DD", got ${JSON.stringify(day)}`);
  }
  return day;
}

function isNonNegativeInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/**
 * @throws {StoreInputError} for any field of the row the repository would refuse: the
 *   shared rules first (`invalid_storage_input`), then what its table CHECKs
 *   (`constraint_violation`).
 */
export function requireRow(row: DigestRow, at: string): void {
  requireThread(row.threadId, `${at}.threadId`);
  if (row.toolCallId !== "") refuse(`${at}.toolCallId`, toolCallIdProblem(row.toolCallId));
  for (const field of ["toolName", "model", "digest", "provenanceArgs"] as const) {
    refuse(`${at}.${field}`, textProblem(row[field]));
  }
  checkedMicroUsd(row.costUsd, "costUsd");
  const check = (ok: boolean, field: string, problem: string) =>
    refuse(`${at}.${field}`, ok ? undefined : problem, STORE_INPUT_CODES.constraintViolation);
  const args: unknown = row.provenanceArgs;
  check(row.toolCallId !== "", "toolCallId", "must not be empty");
  check(DIGEST_KINDS.includes(row.kind), "kind", `must be one of ${DIGEST_KINDS.join(", ")}`);
  check(typeof row.toolName === "string" && row.toolName !== "", "toolName", "must not be empty");
  check(
    args !== null && typeof args === "object" && !Array.isArray(args),
    "provenanceArgs",
    "must be an object",
  );
  check(SHA256_HEX.test(String(row.contentSha256)), "contentSha256", "must be 64 lowercase hex chars");
  check(typeof row.digest === "string" && row.digest !== "", "digest", "must not be empty");
  check(isNonNegativeInteger(row.originalChars), "originalChars", "must be an integer ≥ 0");
  check(
    row.digestChars === [...String(row.digest)].length,
    "digestChars",
    "must be the digest's length in code points",
  );
  check(
    isNonNegativeInteger(row.inputTokens) && isNonNegativeInteger(row.outputTokens),
    "usage",
    "tokens must be integers ≥ 0",
  );
}

/** @throws {StoreInputError} unless `value` is a valid Date. */
export function requireDate(value: unknown, field: string): Date {
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) {
    throw new StoreInputError(field, `expected a valid Date, got ${String(value)}`);
  }
  return new Date(value);
}

/** @throws {StoreInputError} for a pass the repository would refuse. */
export function requirePass(pass: PassUpdate): void {
  if (!PASS_STATUSES.includes(pass.status)) {
    throw new StoreInputError(
      "status",
      `expected one of ${PASS_STATUSES.join(", ")}, got ${String(pass.status)}`,
    );
  }
  refuse("reason", textProblem(pass.reason ?? null));
  for (const field of ["at", "coveredTurnEndedAt", "turnEndedAt"] as const) {
    const value = pass[field];
    if (value !== undefined && value !== null) requireDate(value, field);
  }
  refuse("rawToolChars", countProblem(pass.rawToolChars ?? 0));
  refuse("digestsWritten", countProblem(pass.digestsWritten ?? 0));
}
