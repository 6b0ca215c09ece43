import type { Message } from "@context-cleaner/assembler";
import type { CheckpointReader } from "../ports";

/**
 * A checkpoint reader over threads held in memory: the CLI (a thread read from a file)
 * and tests use it. Returns copies of the arrays so a pass can never alter the source.
 */
export function createInMemoryCheckpointReader(
  threads: ReadonlyMap<string, readonly Message[]>,
): CheckpointReader {
  return {
    async readThread(threadId: string): Promise<Message[] | null> {
      const messages = threads.get(threadId);
      return messages ? [...messages] : null;
    },
  };
}
