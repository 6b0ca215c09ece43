import { DigestModelError } from "../errors";

/**
 * The digest error for an HTTP status a model API answered with, the same for every SDK:
 * 429 is `rate_limited`, 5xx `server_error`, any other `client_error` (retryable for 408
 * and 409). Each digester maps its own SDK's error classes, then its status, through this.
 */
export function digestModelErrorForStatus(status: number, cause: unknown): DigestModelError {
  if (status === 429)
    return new DigestModelError("digest call rate limited (429)", { reason: "rate_limited", status, cause });
  if (status >= 500)
    return new DigestModelError(`digest call failed (${status})`, { reason: "server_error", status, cause });
  return new DigestModelError(`digest call rejected (${status})`, {
    reason: "client_error",
    status,
    cause,
    retryable: status === 408 || status === 409,
  });
}
