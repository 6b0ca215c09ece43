import { ContextCleanerError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { mapDatabaseError } from "./database-error-mapping";
import {
  ConstraintViolationError,
  DatabaseConnectionError,
  DatabaseNotMigratedError,
  DatabaseQueryError,
  DataExceptionError,
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

  it("maps insufficient privilege to a RowSecurityError and leaves errors without a SQLSTATE alone", () => {
    const denied = Object.assign(new Error("denied"), { code: "42501" });
    expect(mapDatabaseError(denied)).toMatchObject({ code: "row_security", cause: denied });
    const storage = new InvalidStorageInputError("limit", "too big");
    expect(mapDatabaseError(storage)).toBe(storage);
    const network = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    expect(mapDatabaseError(network)).toBe(network);
  });
});

describe("mapDatabaseError: messages carry no SQL and no values", () => {
  const query =
    'Failed query: insert into "context_digest" ("digest") values ($1)\nparams: confidential clause';

  it.each(["22021", "22P05", "22003", "22001"])(
    "maps a data exception (SQLSTATE %s) to a non-retryable DataExceptionError",
    (sqlState) => {
      const driverError = Object.assign(new Error("invalid byte sequence"), { code: sqlState });
      const wrapped = new Error(query, { cause: driverError });
      const mapped = mapDatabaseError(wrapped);
      expect(mapped).toBeInstanceOf(DataExceptionError);
      expect(mapped).toMatchObject({ code: "data_exception", sqlState, retryable: false, cause: wrapped });
      expect((mapped as Error).message).toContain(`SQLSTATE ${sqlState}`);
      expect((mapped as Error).message).not.toMatch(/insert|params|confidential/);
    },
  );

  it.each([
    ["42601", false],
    ["42703", false],
    ["40001", true],
    ["40P01", true],
    ["08006", true],
    ["53300", true],
    ["57P01", true],
  ])(
    "maps any other SQLSTATE (%s) to a DatabaseQueryError, retryable only when a retry can help",
    (sqlState, retryable) => {
      const wrapped = new Error(query, { cause: Object.assign(new Error("failed"), { code: sqlState }) });
      const mapped = mapDatabaseError(wrapped);
      expect(mapped).toBeInstanceOf(DatabaseQueryError);
      expect(mapped).toMatchObject({ code: "database_query_failed", sqlState, retryable, cause: wrapped });
      expect((mapped as Error).message).toContain(`SQLSTATE ${sqlState}`);
      expect((mapped as Error).message).not.toMatch(/insert|params|confidential/);
    },
  );
});

describe("mapDatabaseError: an unmigrated database says to run the migrations", () => {
  it.each([
    ["22023", 'role "app_user" does not exist'],
    ["42P01", 'relation "context_digest" does not exist'],
  ])("maps SQLSTATE %s (%s) to a DatabaseNotMigratedError", (sqlState, serverMessage) => {
    const wrapped = new Error("Failed query: select ...", {
      cause: Object.assign(new Error(serverMessage), { code: sqlState }),
    });
    const mapped = mapDatabaseError(wrapped);
    expect(mapped).toBeInstanceOf(DatabaseNotMigratedError);
    expect(mapped).toMatchObject({
      code: "database_not_migrated",
      sqlState,
      retryable: false,
      cause: wrapped,
    });
    expect((mapped as Error).message).toContain("run the migrations");
    expect((mapped as Error).message).toContain(serverMessage);
  });

  it("leaves any other invalid parameter value (22023) a data exception", () => {
    const driverError = Object.assign(new Error('invalid value for parameter "x"'), { code: "22023" });
    expect(mapDatabaseError(driverError)).toBeInstanceOf(DataExceptionError);
  });
});
