import { findPostgresError } from "../database-error-mapping";
import { DatabaseConnectionError } from "../errors";

/** What both the node-postgres and the Neon serverless `Pool` offer. */
export interface ProbeablePool {
  query(text: string): Promise<unknown>;
  on(event: "error", listener: (error: Error) => void): unknown;
}

/**
 * Makes an idle client's error harmless: the pool drops that client, and a server restart
 * must not crash the process.
 */
export function ignoreIdleClientErrors<TPool extends ProbeablePool>(pool: TPool): TPool {
  pool.on("error", () => undefined);
  return pool;
}

/**
 * Runs a `select 1` on `pool` within `timeoutMs`; the pool stays open, so a later probe
 * can succeed once the server is back.
 * @throws {DatabaseConnectionError} naming host, port and the real cause, never credentials.
 */
export async function probePool(
  driver: string,
  target: string,
  timeoutMs: number,
  pool: ProbeablePool,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  const probe = pool.query("select 1");
  try {
    await Promise.race([probe, timeout]);
  } catch (error) {
    probe.catch(() => undefined); // after a timeout the query still settles; nobody awaits it
    throw new DatabaseConnectionError(driver, target, describeConnectionFailure(error), error);
  } finally {
    clearTimeout(timer);
  }
}

const MAX_DEPTH = 6;

/**
 * The real cause of a failed connection, in words: the server's SQLSTATE and message
 * (e.g. `28P01 password authentication failed for user "app"`), a system error code with
 * its message (`ECONNREFUSED`, `ENOTFOUND`), or the message of the error inside a
 * WebSocket `ErrorEvent` or an `AggregateError` (one per address tried). Never
 * `[object Object]`.
 */
export function describeConnectionFailure(error: unknown): string {
  const postgresError = findPostgresError(error);
  if (postgresError !== undefined) {
    const said = postgresError.message ? `: ${postgresError.message}` : "";
    return `the server answered SQLSTATE ${postgresError.code}${said}`;
  }
  return describeCause(error, 0) ?? "the driver gave no reason";
}

function describeCause(error: unknown, depth: number): string | undefined {
  if (depth >= MAX_DEPTH || error === null || error === undefined) return undefined;
  if (typeof error !== "object") return String(error);
  const candidate = error as {
    code?: unknown;
    message?: unknown;
    errors?: unknown;
    error?: unknown;
    cause?: unknown;
    type?: unknown;
  };
  const message = typeof candidate.message === "string" ? candidate.message.trim() : "";
  // AggregateError (Node's happy-eyeballs connect): one error per address, often with an
  // empty message of its own.
  const inner = Array.isArray(candidate.errors)
    ? [...new Set(candidate.errors.map((each) => describeCause(each, depth + 1)).filter(Boolean))].join("; ")
    : "";
  if (typeof candidate.code === "string") {
    const detail = inner || message;
    return detail && detail !== candidate.code ? `${candidate.code} (${detail})` : candidate.code;
  }
  if (inner) return inner;
  // A WebSocket ErrorEvent carries the real error in `error`.
  const wrapped = describeCause(candidate.error, depth + 1) ?? describeCause(candidate.cause, depth + 1);
  if (message && wrapped) {
    if (wrapped.includes(message)) return wrapped;
    return message.includes(wrapped) ? message : `${message}: ${wrapped}`;
  }
  if (message || wrapped) return message || wrapped;
  if (typeof candidate.type === "string") return `a WebSocket ${candidate.type} event without a message`;
  return undefined;
}
