import { redactSecrets } from "../../redact";

/** Defaults of {@link FailureBackoff}. */
export const FAILURE_BACKOFF_DEFAULTS = {
  /** How long calls are skipped after a first failure. */
  initialMs: 30_000,
  /** The longest skip: each failed retry doubles it up to this. */
  maxMs: 300_000,
} as const;

/** The timing of a {@link FailureBackoff}. */
export interface FailureBackoffSettings {
  /** @default 30,000 */
  readonly initialMs?: number;
  /** @default 300,000 */
  readonly maxMs?: number;
}

/** What a backoff guards, for its one message: `loading the thread's digests`, and what a turn does meanwhile. */
export interface GuardedCall {
  readonly what: string;
  readonly meanwhile: string;
}

/** A system error code (`ECONNREFUSED`, `ETIMEDOUT`, `UND_ERR_CONNECT_TIMEOUT`) or a SQLSTATE. */
const CAUSE_CODE = /^[A-Z0-9][A-Z0-9_]+$/;

/**
 * The cause at the bottom of an error's chain (`cause`, or an AggregateError's first error),
 * as one line: the deepest system error code with its message (`ECONNREFUSED: connect
 * ECONNREFUSED 127.0.0.1:5432`), else the error's own message, redacted. A deeper cause's
 * message is never printed: a driver's carries the SQL and its parameters.
 */
export function rootCause(error: unknown): string {
  let coded = "";
  let current: unknown = error;
  for (let depth = 0; depth < 10 && current !== undefined && current !== null; depth++) {
    const { message, code, cause, errors } = current as {
      message?: unknown;
      code?: unknown;
      cause?: unknown;
      errors?: unknown;
    };
    const text = typeof message === "string" && message !== "" ? message : String(current);
    if (typeof code === "string" && CAUSE_CODE.test(code)) {
      coded = text.includes(code) ? text : `${code}: ${text}`;
    }
    current = cause ?? (Array.isArray(errors) ? errors[0] : undefined);
  }
  return redactSecrets(coded || (error instanceof Error ? error.message : String(error)));
}

/**
 * After a failure, skips a call for a while instead of paying its timeout on every turn (a
 * database that accepts connections but never answers, a Redis that is down): the first
 * failure skips it for `initialMs`, each failed retry doubles that up to `maxMs`, and a
 * success ends it. An outage is reported once, naming its root cause; an error marked not
 * retryable (`retryable: false`, a refusal of this one call) is reported as it is and never
 * starts a backoff.
 */
export class FailureBackoff {
  readonly #call: GuardedCall;
  readonly #settings: Required<FailureBackoffSettings>;
  #skipUntilMs = 0;
  #windowMs = 0;
  #reported = false;

  constructor(call: GuardedCall, settings: FailureBackoffSettings = {}) {
    this.#call = call;
    this.#settings = { ...FAILURE_BACKOFF_DEFAULTS, ...settings };
  }

  /**
   * Runs `call` unless a backoff is on (then resolves `skipped` at once). A failure resolves
   * `skipped` too, after handing `report` what to say: the outage's one message (an Error
   * whose `cause` is the failure), or the refusal itself; nothing while the outage goes on.
   */
  async run<T, S>(
    call: () => T | PromiseLike<T>,
    skipped: S,
    nowMs: number,
    report: (error: unknown) => void,
  ): Promise<T | S> {
    if (nowMs < this.#skipUntilMs) return skipped;
    try {
      const value = await call();
      this.#skipUntilMs = 0;
      this.#windowMs = 0;
      this.#reported = false;
      return value;
    } catch (error) {
      if ((error as { retryable?: unknown } | null)?.retryable === false) {
        report(error);
        return skipped;
      }
      // Calls made at the same time fail together: the first opens (or grows) the window,
      // the others fall inside it and leave it as it is.
      if (nowMs >= this.#skipUntilMs) {
        const { initialMs, maxMs } = this.#settings;
        this.#windowMs = this.#windowMs === 0 ? initialMs : Math.min(maxMs, this.#windowMs * 2);
        this.#skipUntilMs = nowMs + this.#windowMs;
      }
      if (!this.#reported) {
        this.#reported = true;
        const seconds = Math.round(this.#windowMs / 1000);
        report(
          new Error(
            `${this.#call.what} failed (${rootCause(error)}): it is skipped for ${seconds} s (longer while it keeps failing) and ${this.#call.meanwhile}; said once until it works again`,
            { cause: error },
          ),
        );
      }
      return skipped;
    }
  }
}
