import type { Message } from "@context-cleaner/assembler";
import { CoreError } from "../errors";

/**
 * The port through which the worker reads a thread's raw record (DESIGN §2, §8 step 5).
 *
 * Read-only by contract: an implementation never writes, migrates or deletes anything in
 * the checkpoint store — the cleaner's output lives in its own side table.
 *
 * @example
 * const messages = await reader.readThread(threadId);
 * if (messages === null) return { status: "skipped", reason: "no_checkpoint" };
 */
export interface CheckpointReader {
  /**
   * The messages of the thread's latest checkpoint, in the neutral model.
   *
   * @returns `null` when the store holds no checkpoint for `threadId`.
   * @throws {CheckpointReadError} when the checkpoint exists but cannot be read as messages.
   */
  readThread(threadId: string): Promise<Message[] | null>;
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
      cause: details.cause,
      retryable: details.reason === CHECKPOINT_READ_REASONS.storeFailed,
    });
    this.name = "CheckpointReadError";
    this.reason = details.reason;
    this.threadId = details.threadId;
  }
}
