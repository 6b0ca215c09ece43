/** Base class of every error packages/core throws: sets `name`, keeps `cause`, says whether a retry can help. */
export class CoreError extends Error {
  /** Whether retrying the same operation later can succeed. */
  readonly retryable: boolean;

  constructor(message: string, options: { cause?: unknown; retryable?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = "CoreError";
    this.retryable = options.retryable ?? false;
  }
}

/** Why a digest model failed; the fallback wrapper counts fallbacks by this reason. */
export const DIGEST_FAILURE_REASONS = [
  "rate_limited",
  "server_error",
  "timeout",
  "connection",
  "client_error",
  "aborted",
  "refusal",
  "malformed",
  "contract",
] as const;
export type DigestFailureReason = (typeof DIGEST_FAILURE_REASONS)[number];

const RETRYABLE_REASONS: ReadonlySet<DigestFailureReason> = new Set([
  "rate_limited",
  "server_error",
  "timeout",
  "connection",
]);

/** A digest model call that failed, was refused, or broke the digest contract. */
export class DigestModelError extends CoreError {
  readonly reason: DigestFailureReason;
  /** HTTP status of the failed call, when there was one. */
  readonly status: number | undefined;
  /** What the failed call was billed (a response arrived but broke the contract), in USD. @default 0 */
  readonly costUsd: number;

  constructor(
    message: string,
    details: {
      reason: DigestFailureReason;
      status?: number;
      cause?: unknown;
      retryable?: boolean;
      costUsd?: number;
    },
  ) {
    super(message, {
      cause: details.cause,
      retryable: details.retryable ?? RETRYABLE_REASONS.has(details.reason),
    });
    this.name = "DigestModelError";
    this.reason = details.reason;
    this.status = details.status;
    this.costUsd = details.costUsd ?? 0;
  }
}

/** An option of a core component out of its range; names the option. */
export class InvalidCoreOptionError extends CoreError {
  readonly field: string;

  constructor(message: string, field: string) {
    super(message);
    this.name = "InvalidCoreOptionError";
    this.field = field;
  }
}
