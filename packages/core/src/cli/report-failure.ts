import { ContextCleanerError } from "@context-cleaner/assembler";
import { redactSecrets } from "@context-cleaner/assembler/internal";

/**
 * Error codes that mean the environment failed (a database out of reach, a permission
 * missing, a query the database failed, e.g. on a missing table), not the input: exit code
 * 1. Retryable errors count as environment too.
 */
const ENVIRONMENT_CODES: ReadonlySet<string> = new Set([
  "database_unreachable",
  "row_security",
  "database_query_failed",
]);

/** What the CLI prints for a failure and the exit code it returns. */
export interface Failure {
  /** One line for stderr (a stack only for an unexpected failure: that is a bug to report). */
  readonly line: string;
  readonly exitCode: 1 | 2;
}

/**
 * Maps a failure to the CLI's answer, redacted (`redactSecrets`), never with a cause: any
 * context-cleaner error is one line, exit code 2
 * for bad input and 1 for the environment; anything else is unexpected (exit 1, with its
 * stack).
 */
export function reportFailure(error: unknown): Failure {
  if (error instanceof ContextCleanerError) {
    const environment = error.retryable || ENVIRONMENT_CODES.has(error.code);
    return {
      line: `context-cleaner: ${redactSecrets(error.message.split("\n")[0] ?? "")}`,
      exitCode: environment ? 1 : 2,
    };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { line: `context-cleaner: unexpected failure: ${redactSecrets(detail)}`, exitCode: 1 };
}
