import type { Message } from "@context-cleaner/assembler";
import type { CheckpointReader } from "./checkpoints/checkpoint-reader";

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

/** A clock fixed at one instant, or advancing by `stepMs` on each read. */
export function fixedClock(at: Date, stepMs = 0): { now(): Date } {
  let current = at.getTime();
  return {
    now() {
      const value = new Date(current);
      current += stepMs;
      return value;
    },
  };
}

/** The wall clock. */
export const systemClock = { now: () => new Date() };
