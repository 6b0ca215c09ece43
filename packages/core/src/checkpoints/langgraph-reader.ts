import type { Message } from "@context-cleaner/assembler";
import { fromLangChain, type LangChainMessageInput } from "@context-cleaner/assembler/langchain";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { CHECKPOINT_READ_REASONS, CheckpointReadError } from "../errors";
import type { CheckpointReader } from "../ports";

/**
 * The only part of a LangGraph `BaseCheckpointSaver` the reader touches. Typing the
 * dependency this narrowly makes "read-only" a compile-time property: the reader cannot
 * call `setup()`, `put`, `putWrites` or `deleteThread`.
 */
export type CheckpointTupleSource = Pick<BaseCheckpointSaver, "getTuple">;

/** Options of {@link LangGraphCheckpointReader}. */
export interface LangGraphReaderOptions {
  /** Any LangGraph checkpointer: `PostgresSaver`, `MemorySaver`, `SqliteSaver`, … */
  saver: CheckpointTupleSource;
  /**
   * The state channel holding the thread's messages.
   * @default "messages"
   */
  channel?: string;
  /**
   * The checkpoint namespace (`""` is the root graph; subgraphs use their own).
   * @default ""
   */
  checkpointNamespace?: string;
}

/** Defaults of {@link LangGraphReaderOptions}. */
export const LANGGRAPH_READER_DEFAULTS = {
  channel: "messages",
  checkpointNamespace: "",
} as const;

/**
 * Reads the messages channel of a thread's latest LangGraph checkpoint and converts it to
 * the neutral model with the assembler's LangChain adapter. Read-only: it calls only
 * `getTuple` (see {@link CheckpointTupleSource}).
 *
 * A checkpoint without the channel (a thread that has not produced messages yet) reads as
 * `[]`; no checkpoint at all reads as `null`. Pending writes of an unfinished super-step
 * are not part of the checkpoint's state and are not returned.
 *
 * @example
 * const reader = new LangGraphCheckpointReader({ saver: checkpointer });
 * const messages = await reader.readThread("thread-42"); // Message[] | null
 */
export class LangGraphCheckpointReader implements CheckpointReader {
  readonly #saver: CheckpointTupleSource;
  readonly #channel: string;
  readonly #checkpointNamespace: string;

  constructor(options: LangGraphReaderOptions) {
    this.#saver = options.saver;
    this.#channel = options.channel ?? LANGGRAPH_READER_DEFAULTS.channel;
    this.#checkpointNamespace = options.checkpointNamespace ?? LANGGRAPH_READER_DEFAULTS.checkpointNamespace;
  }

  /**
   * @returns the latest checkpoint's messages, or `null` when the thread has no checkpoint.
   * @throws {CheckpointReadError} `store_failed` (retryable) when the saver throws;
   *   `invalid_channel` when the channel is not an array; `invalid_message` when a message
   *   cannot be converted.
   */
  async readThread(threadId: string): Promise<Message[] | null> {
    let tuple: Awaited<ReturnType<CheckpointTupleSource["getTuple"]>>;
    try {
      tuple = await this.#saver.getTuple({
        configurable: { thread_id: threadId, checkpoint_ns: this.#checkpointNamespace },
      });
    } catch (error) {
      throw new CheckpointReadError(`reading the checkpoint of thread ${threadId} failed`, {
        reason: CHECKPOINT_READ_REASONS.storeFailed,
        threadId,
        cause: error,
      });
    }
    if (tuple === undefined) return null;
    const value: unknown = tuple.checkpoint.channel_values[this.#channel];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      throw new CheckpointReadError(
        `channel "${this.#channel}" of thread ${threadId} must hold an array of messages, got ${typeof value}`,
        { reason: CHECKPOINT_READ_REASONS.invalidChannel, threadId },
      );
    }
    try {
      return fromLangChain(value as LangChainMessageInput[]);
    } catch (error) {
      throw new CheckpointReadError(
        `channel "${this.#channel}" of thread ${threadId}: ${(error as Error).message}`,
        { reason: CHECKPOINT_READ_REASONS.invalidMessage, threadId, cause: error },
      );
    }
  }
}
