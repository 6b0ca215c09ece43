/**
 * `@context-cleaner/core/cli`: what the `context-cleaner` command runs, for use from code —
 * the neutral JSON thread file (parse, read, write, serialize, and its error) and the
 * one-shot clean of a thread (worker and assembler in one process, digests in memory or in
 * a database).
 */

export type { ThreadFileReason } from "../errors";
export { THREAD_FILE_REASONS, ThreadFileError } from "../errors";
export type { ThreadFile, ThreadFileFormat } from "../thread-file/thread-file";
export {
  parseThreadFile,
  readThreadFile,
  serializeThread,
  writeThreadFile,
} from "../thread-file/thread-file";
export type { CleanedThread, CleanThreadOptions } from "./clean-thread";
export { CLEAN_THREAD_DEFAULTS, cleanThread } from "./clean-thread";
