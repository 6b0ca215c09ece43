import { findPostgresError } from "../database-error-mapping";
import { DatabaseConnectionError } from "../errors";

/**
 * Runs `probe` (a `select 1`) within `timeoutMs`; on failure closes the pool and throws
 * a {@link DatabaseConnectionError} naming host and port, never credentials.
 */
export async function probeConnection(
  driver: string,
  target: string,
  timeoutMs: number,
  probe: () => Promise<unknown>,
  close: () => Promise<void>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([probe(), timeout]);
  } catch (error) {
    await close().catch(() => undefined);
    throw new DatabaseConnectionError(driver, target, describeFailure(error), error);
  } finally {
    clearTimeout(timer);
  }
}

function describeFailure(error: unknown): string {
  const postgresError = findPostgresError(error);
  if (postgresError !== undefined) {
    return `the server answered SQLSTATE ${postgresError.code}`;
  }
  const systemCode = (error as { code?: unknown } | null)?.code;
  if (typeof systemCode === "string") {
    return systemCode; // e.g. ECONNREFUSED, ENOTFOUND
  }
  return error instanceof Error ? error.message : String(error);
}
