/** Base class of every error the assembler throws. */
export class ContextCleanerError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ContextCleanerError";
  }
}

/** A thread that is not well formed; names the offending message index and field. */
export class InvalidThreadError extends ContextCleanerError {
  readonly index: number | undefined;
  readonly field: string | undefined;

  constructor(message: string, details: { index?: number; field?: string } = {}) {
    super(message);
    this.name = "InvalidThreadError";
    this.index = details.index;
    this.field = details.field;
  }
}

/** A tool policy that cannot be used; names the tool and the field. */
export class InvalidToolPolicyError extends ContextCleanerError {
  readonly tool: string | undefined;
  readonly field: string | undefined;

  constructor(message: string, details: { tool?: string; field?: string } = {}) {
    super(message);
    this.name = "InvalidToolPolicyError";
    this.tool = details.tool;
    this.field = details.field;
  }
}

/** An option out of its range; names the option. */
export class InvalidOptionError extends ContextCleanerError {
  readonly field: string;

  constructor(message: string, field: string) {
    super(message);
    this.name = "InvalidOptionError";
    this.field = field;
  }
}
