/** What every context-cleaner error carries besides its message. */
export interface ContextCleanerErrorOptions {
  /** A stable snake_case code, e.g. `invalid_thread`; safe to branch on. */
  code: string;
  /** Whether retrying the same call later can help. @default false */
  retryable?: boolean;
  cause?: unknown;
}

/**
 * Base class of every context-cleaner error (the assembler's, the storage package's and
 * the worker's). `code` is stable and meant for programs; `message` is for people.
 */
export class ContextCleanerError extends Error {
  /** A stable snake_case code, e.g. `invalid_thread`. */
  readonly code: string;
  /** Whether retrying the same call later can help (connection trouble, not bad input). */
  readonly retryable: boolean;

  constructor(message: string, options: ContextCleanerErrorOptions) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ContextCleanerError";
    this.code = options.code;
    this.retryable = options.retryable ?? false;
  }
}

/** A thread that is not well formed; names the offending message index and field. */
export class InvalidThreadError extends ContextCleanerError {
  readonly index: number | undefined;
  readonly field: string | undefined;

  constructor(message: string, details: { index?: number; field?: string; cause?: unknown } = {}) {
    super(message, { code: "invalid_thread", cause: details.cause });
    this.name = "InvalidThreadError";
    this.index = details.index;
    this.field = details.field;
  }
}

/** A tool policy that cannot be used; names the tool and the field. */
export class InvalidToolPolicyError extends ContextCleanerError {
  readonly tool: string | undefined;
  readonly field: string | undefined;

  constructor(message: string, details: { tool?: string; field?: string; cause?: unknown } = {}) {
    super(message, { code: "invalid_tool_policy", cause: details.cause });
    this.name = "InvalidToolPolicyError";
    this.tool = details.tool;
    this.field = details.field;
  }
}

/** An option out of its range; names the option. */
export class InvalidOptionError extends ContextCleanerError {
  readonly field: string;

  constructor(message: string, field: string) {
    super(message, { code: "invalid_option" });
    this.name = "InvalidOptionError";
    this.field = field;
  }
}

/** Raised when a call to the queue or to Redis outlives its deadline. */
export class DeadlineExceededError extends ContextCleanerError {
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number) {
    super(`${operation} did not finish within ${timeoutMs} ms`, {
      code: "deadline_exceeded",
      retryable: true,
    });
    this.name = "DeadlineExceededError";
    this.timeoutMs = timeoutMs;
  }
}

/** A field of the turn-ended event, or `event` for the value as a whole. */
export type TurnEventField =
  | "orgId"
  | "threadId"
  | "rawToolChars"
  | "turnEndedAt"
  | "messageCount"
  | "lastMessageId"
  | "midTurn"
  | "event";

/** A turn event that cannot be published; names the field and what is wrong with it. */
export class InvalidTurnEventError extends ContextCleanerError {
  readonly field: TurnEventField;

  constructor(message: string, field: TurnEventField) {
    super(message, { code: "invalid_turn_event" });
    this.name = "InvalidTurnEventError";
    this.field = field;
  }
}
