import { CoreError } from "../errors";

/** The operations of the digest queue port, as errors name them. */
export type DigestQueueOperation = "send" | "receive" | "delete" | "changeVisibility";

/** A digest queue call that failed; says whether a retry can help. */
export class DigestQueueError extends CoreError {
  readonly operation: DigestQueueOperation;
  /** The queue service's error code (e.g. SQS `InvalidParameterValue`), or the adapter's own. */
  readonly code: string;

  constructor(
    message: string,
    details: { operation: DigestQueueOperation; code: string; retryable?: boolean; cause?: unknown },
  ) {
    super(message, { cause: details.cause, retryable: details.retryable ?? false });
    this.name = "DigestQueueError";
    this.operation = details.operation;
    this.code = details.code;
  }
}
