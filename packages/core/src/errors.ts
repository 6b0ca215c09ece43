import { ContextCleanerError } from "@context-cleaner/assembler";

/**
 * Every error the worker package throws. Each extends {@link CoreError}, which extends the
 * shared `ContextCleanerError`: a stable `code` for programs, `retryable` for retry loops,
 * `cause` kept.
 */

const CORE_ERROR_MARKER = "context-cleaner.core.error";
const coreErrorSymbol = Symbol.for(CORE_ERROR_MARKER);

/**
 * Base class of every error packages/core throws. Each class carries a `Symbol.for` marker
 * and a static `isInstance`, which holds across two copies of the package (a bundle and
 * `node_modules`), where `instanceof` does not.
 */
export class CoreError extends ContextCleanerError {
  protected readonly [coreErrorSymbol] = true;

  constructor(message: string, options: { code: string; cause?: unknown; retryable?: boolean }) {
    super(message, options);
    this.name = "CoreError";
  }

  /** Whether `error` is a {@link CoreError} of any copy of this package. */
  static isInstance(error: unknown): error is CoreError {
    return CoreError.hasMarker(error, CORE_ERROR_MARKER);
  }

  /** Whether `error` carries the marker `Symbol.for(marker)` set to `true`. */
  protected static hasMarker(error: unknown, marker: string): boolean {
    const symbol = Symbol.for(marker);
    return (
      typeof error === "object" &&
      error !== null &&
      symbol in error &&
      (error as Record<symbol, unknown>)[symbol] === true
    );
  }
}

/** The marker of a core error class: `context-cleaner.core.error.<name>`. */
export function coreErrorMarker(name: string): string {
  return `${CORE_ERROR_MARKER}.${name}`;
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
  /** The answer was cut off at the output budget. */
  "truncated",
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
      code: "digest_model_failed",
      cause: details.cause,
      retryable: details.retryable ?? RETRYABLE_REASONS.has(details.reason),
    });
    this.name = "DigestModelError";
    this.reason = details.reason;
    this.status = details.status;
    this.costUsd = details.costUsd ?? 0;
  }
}

/** A job payload that is not a valid post-turn event; names the field. Never retryable. */
export class InvalidPayloadError extends CoreError {
  readonly issues: readonly string[];

  constructor(issues: readonly string[]) {
    super(`invalid digest job payload: ${issues.join("; ")}`, { code: "invalid_payload", retryable: false });
    this.name = "InvalidPayloadError";
    this.issues = issues;
  }
}

/** Why a checkpoint could not be read. */
export const CHECKPOINT_READ_REASONS = {
  /** The store failed (connection, permissions, missing tables). */
  storeFailed: "store_failed",
  /** The messages channel holds something other than an array of messages. */
  invalidChannel: "invalid_channel",
  /** A message in the channel could not be converted to the neutral model. */
  invalidMessage: "invalid_message",
  /** An optional peer dependency the reader needs is not installed. */
  missingDependency: "missing_dependency",
} as const;

export type CheckpointReadReason = (typeof CHECKPOINT_READ_REASONS)[keyof typeof CHECKPOINT_READ_REASONS];

/**
 * A checkpoint that exists but could not be read. `retryable` is true only for store
 * failures, where a later attempt may succeed; a malformed checkpoint stays malformed.
 */
export class CheckpointReadError extends CoreError {
  readonly reason: CheckpointReadReason;
  readonly threadId: string | undefined;

  constructor(
    message: string,
    details: { reason: CheckpointReadReason; threadId?: string; cause?: unknown },
  ) {
    super(message, {
      code: "checkpoint_unreadable",
      cause: details.cause,
      retryable: details.reason === CHECKPOINT_READ_REASONS.storeFailed,
    });
    this.name = "CheckpointReadError";
    this.reason = details.reason;
    this.threadId = details.threadId;
  }
}

/** Why a thread file could not be read. */
export const THREAD_FILE_REASONS = {
  notFound: "not_found",
  /** The file exists but cannot be read (a directory, no permission). */
  unreadable: "unreadable",
  /** The file is not UTF-8. */
  invalidEncoding: "invalid_encoding",
  invalidJson: "invalid_json",
  unknownFormat: "unknown_format",
  invalidField: "invalid_field",
} as const;

export type ThreadFileReason = (typeof THREAD_FILE_REASONS)[keyof typeof THREAD_FILE_REASONS];

/**
 * A thread file that cannot be used. The message is one line naming the file and the
 * problem (for `invalid_encoding` the byte offset, for `invalid_json` its line and column,
 * for `invalid_field` the field, e.g. `messages[3].toolCallId`), fit for a CLI to print as is.
 */
export class ThreadFileError extends CoreError {
  readonly reason: ThreadFileReason;
  readonly path: string | undefined;
  /** 1-based line of a JSON syntax error. */
  readonly line: number | undefined;
  /** 1-based column of a JSON syntax error. */
  readonly column: number | undefined;
  /** 0-based byte offset of the first ill-formed UTF-8 sequence, for `invalid_encoding`. */
  readonly byteOffset: number | undefined;
  /** Index of the offending message, for `invalid_field`. */
  readonly index: number | undefined;
  /** The offending field, e.g. `toolCalls[0].args`, for `invalid_field`. */
  readonly field: string | undefined;

  constructor(
    message: string,
    details: {
      reason: ThreadFileReason;
      path?: string;
      line?: number;
      column?: number;
      byteOffset?: number;
      index?: number;
      field?: string;
      cause?: unknown;
    },
  ) {
    super(message, { code: "invalid_thread_file", cause: details.cause });
    this.name = "ThreadFileError";
    this.reason = details.reason;
    this.path = details.path;
    this.line = details.line;
    this.column = details.column;
    this.byteOffset = details.byteOffset;
    this.index = details.index;
    this.field = details.field;
  }
}

/**
 * Codes of a value a digest store refuses: the codes the storage package's repository
 * gives the same value, so a caller branches the same way whichever store it runs on.
 */
export const STORE_INPUT_CODES = {
  missingOrganization: "missing_organization",
  invalidInput: "invalid_storage_input",
  /** What the repository's table CHECKs refuse (a malformed hash, a negative count). */
  constraintViolation: "constraint_violation",
} as const;

export type StoreInputCode = (typeof STORE_INPUT_CODES)[keyof typeof STORE_INPUT_CODES];

/** A value the in-memory digest store refuses, naming the field, never the value. Never retryable. */
export class StoreInputError extends CoreError {
  readonly field: string;

  constructor(field: string, problem: string, code: StoreInputCode = STORE_INPUT_CODES.invalidInput) {
    super(`Invalid ${field}: ${problem}`, { code, retryable: false });
    this.name = "StoreInputError";
    this.field = field;
  }
}

/** Bad command-line input (unknown command or flag, missing argument): exit code 2. */
export class UsageError extends CoreError {
  constructor(message: string) {
    super(message, { code: "usage" });
    this.name = "UsageError";
  }
}

/** The operations of the digest queue port, as errors name them. */
export type DigestQueueOperation = "send" | "receive" | "delete" | "changeVisibility" | "count";

/** A digest queue call that failed; says whether a retry can help. */
export class DigestQueueError extends CoreError {
  readonly operation: DigestQueueOperation;
  /** The queue service's error code (e.g. SQS `InvalidParameterValue`), or the adapter's own. */
  readonly serviceCode: string;

  constructor(
    message: string,
    details: { operation: DigestQueueOperation; code: string; retryable?: boolean; cause?: unknown },
  ) {
    super(message, { code: "queue_failed", cause: details.cause, retryable: details.retryable ?? false });
    this.name = "DigestQueueError";
    this.operation = details.operation;
    this.serviceCode = details.code;
  }
}

/** Why a secret could not be read. */
export type SecretReadReason = "not_found" | "access_denied" | "not_a_record" | "unavailable";

/**
 * A secret that could not be read. Its message and cause never carry the secret's text:
 * a JSON parse error would quote it, so none is kept.
 */
export class SecretReadError extends CoreError {
  readonly reason: SecretReadReason;
  readonly secretId: string;

  constructor(
    message: string,
    details: { reason: SecretReadReason; secretId: string; retryable: boolean; cause?: unknown },
  ) {
    super(message, { code: "secret_unreadable", cause: details.cause, retryable: details.retryable });
    this.name = "SecretReadError";
    this.reason = details.reason;
    this.secretId = details.secretId;
  }
}
