import { ContextCleanerError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { mapDatabaseError } from "./database-error-mapping";
import {
  ConstraintViolationError,
  DatabaseConnectionError,
  InvalidStorageInputError,
  MissingOrganizationError,
  RowSecurityError,
  StorageError,
  UnsupportedDatabaseUrlError,
} from "./errors";

describe("storage errors", () => {
  const cause = new Error("driver said no");
  const cases: [StorageError, string, string, boolean][] = [
    [
      new UnsupportedDatabaseUrlError("mysql://", ["postgres://"]),
      "UnsupportedDatabaseUrlError",
      "unsupported_database_url",
      false,
    ],
    [
      new DatabaseConnectionError("pg", "127.0.0.1:5432", "ECONNREFUSED", cause),
      "DatabaseConnectionError",
      "database_unreachable",
      true,
    ],
    [new MissingOrganizationError(""), "MissingOrganizationError", "missing_organization", false],
    [new InvalidStorageInputError("day", "bad"), "InvalidStorageInputError", "invalid_storage_input", false],
    [
      new ConstraintViolationError("23514", "c", cause),
      "ConstraintViolationError",
      "constraint_violation",
      false,
    ],
    [new RowSecurityError(cause), "RowSecurityError", "row_security", false],
  ];

  it.each(cases)("%s has its name, a stable code and its retryable flag", (error, name, code, retryable) => {
    expect(error).toBeInstanceOf(StorageError);
    expect(error).toBeInstanceOf(ContextCleanerError);
    expect(error).toMatchObject({ name, code, retryable });
  });

  it("keeps the SQLSTATE of a refused row apart from the stable code", () => {
    const error = new ConstraintViolationError("23505", "context_digest_pkey", cause);
    expect(error).toMatchObject({
      code: "constraint_violation",
      sqlState: "23505",
      constraint: "context_digest_pkey",
    });
    expect(error.message).toContain("SQLSTATE 23505");
    expect(error.cause).toBe(cause);
  });
});

describe("mapDatabaseError", () => {
  it("maps a check violation wrapped by the query builder to a ConstraintViolationError", () => {
    const driverError = Object.assign(new Error("check"), {
      code: "23514",
      constraint: "spend_ledger_spent_nonnegative",
    });
    const wrapped = new Error("query failed", { cause: driverError });
    const mapped = mapDatabaseError(wrapped);
    expect(mapped).toBeInstanceOf(ConstraintViolationError);
    expect(mapped).toMatchObject({
      code: "constraint_violation",
      sqlState: "23514",
      constraint: "spend_ledger_spent_nonnegative",
      cause: wrapped,
    });
  });

  it("maps insufficient privilege to a RowSecurityError and leaves other errors alone", () => {
    const denied = Object.assign(new Error("denied"), { code: "42501" });
    expect(mapDatabaseError(denied)).toMatchObject({ code: "row_security", cause: denied });
    const other = Object.assign(new Error("syntax"), { code: "42601" });
    expect(mapDatabaseError(other)).toBe(other);
    const storage = new InvalidStorageInputError("limit", "too big");
    expect(mapDatabaseError(storage)).toBe(storage);
  });
});
