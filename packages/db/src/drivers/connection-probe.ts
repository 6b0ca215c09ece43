import { findPostgresError } from "../database-error-mapping";
import { DatabaseConnectionError } from "../errors";

/** What both the node-postgres and the Neon serverless `Pool` offer. */
export interface ProbeablePool {
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Makes an idle client's error harmless, then runs a `select 1` on `pool` within
 * `timeoutMs`; on failure ends the pool and throws.
 * @throws {DatabaseConnectionError} naming host and port, never credentials.
 */
export async function probePool(
  driver: string,
  target: string,
  timeoutMs: number,
  pool: ProbeablePool,
): Promise<void> {
  // An idle client's error (server restart) must not crash the process; the pool drops it.
  pool.on("error", () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([pool.query("select 1"), timeout]);
  } catch (error) {
    await pool.end().catch(() => undefined);
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
