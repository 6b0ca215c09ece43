/**
 * What context-cleaner prints or logs of a setting or an error: the one redaction every
 * message path goes through, so no password, token or query reaches a log line.
 */

/** `scheme://user:password@` (the password may hold `/`, `:`, `+`, anything but a space or a quote). */
const URL_PASSWORD = /(\/\/[^\s"'/:@]*):[^\s"']*@/g;
/** A credential in a query string: `?password=…`, `&token=…`, `apikey=…`. */
const QUERY_CREDENTIAL =
  /([?&;](?:password|passwd|pwd|pass|sslpassword|token|secret|api[_-]?key|key)=)[^&;\s"']*/gi;

/**
 * `text` with every URL password and query credential replaced by `***`. It over-redacts
 * rather than under: a password is cut up to the last `@` of its word.
 */
export function redactSecrets(text: string): string {
  return text.replace(URL_PASSWORD, "$1:***@").replace(QUERY_CREDENTIAL, "$1***");
}

/**
 * An error as a message may show it: its name, its message redacted, its `code` and
 * `retryable`, and never its `cause` (a database driver's error carries the SQL and its
 * parameters there).
 */
export function safeErrorText(error: unknown): string {
  if (!(error instanceof Error)) return redactSecrets(String(error));
  const { code } = error as Error & { code?: unknown };
  return `${error.name}${typeof code === "string" ? ` (${code})` : ""}: ${redactSecrets(error.message)}`;
}

/**
 * A copy of `error` fit to print with its stack: the same name, redacted message and
 * `code`/`retryable`, without its `cause`; what a console that prints causes may be given.
 */
export function redactedError(error: unknown): Error {
  if (!(error instanceof Error)) return new Error(redactSecrets(String(error)));
  const copy = new Error(redactSecrets(error.message));
  copy.name = error.name;
  const { code, retryable } = error as Error & { code?: unknown; retryable?: unknown };
  if (typeof code === "string") Object.assign(copy, { code });
  if (typeof retryable === "boolean") Object.assign(copy, { retryable });
  const frames = error.stack?.indexOf("\n") ?? -1;
  copy.stack = `${copy.name}: ${copy.message}${frames >= 0 ? (error.stack ?? "").slice(frames) : ""}`;
  return copy;
}
