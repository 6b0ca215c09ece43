import { InvalidThreadError } from "@context-cleaner/assembler";
import {
  DatabaseConnectionError,
  DatabaseQueryError,
  DataExceptionError,
  RowSecurityError,
  UnsupportedDatabaseUrlError,
} from "@context-cleaner/db";
import { describe, expect, it } from "vitest";
import { CheckpointReadError, ThreadFileError, UsageError } from "../errors";
import { reportFailure } from "./report-failure";

describe("reportFailure", () => {
  it("answers bad input with one line and exit code 2", () => {
    for (const error of [
      new UsageError("unknown command"),
      new InvalidThreadError("messages[3].content must be a string"),
      new ThreadFileError("t.json: not found", { reason: "not_found", path: "t.json" }),
      new UnsupportedDatabaseUrlError("mysql", ["postgres"]),
      new DataExceptionError("22021", new Error("Failed query: insert …\nparams: …")),
    ]) {
      const failure = reportFailure(error);
      expect(failure.exitCode, error.name).toBe(2);
      expect(failure.line).not.toContain("\n");
      expect(failure.line).not.toContain("    at ");
    }
  });

  it("answers an environment failure (database unreachable, permission, store down) with exit code 1 and no stack", () => {
    const cause = new Error("connect ECONNREFUSED 127.0.0.1:5999");
    for (const error of [
      new DatabaseConnectionError("node-postgres", "127.0.0.1:5999", "connection refused", cause),
      new RowSecurityError(cause),
      new CheckpointReadError("the checkpoint store failed", { reason: "store_failed", cause }),
      new DatabaseQueryError("42P01", false, cause),
    ]) {
      const failure = reportFailure(error);
      expect(failure.exitCode, error.name).toBe(1);
      expect(failure.line).toMatch(/^context-cleaner: [^\n]+$/);
      expect(failure.line).not.toContain("    at ");
    }
  });

  it("keeps the stack of an unexpected failure, which is a bug to report", () => {
    const failure = reportFailure(new TypeError("x is not a function"));
    expect(failure.exitCode).toBe(1);
    expect(failure.line).toContain("unexpected failure");
    expect(failure.line).toContain("    at ");
  });
});
