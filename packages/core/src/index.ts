/**
 * `@context-cleaner/core`: the worker side of context-cleaner — the digest job and its
 * stages' entry point, the digesters, the checkpoint readers, the neutral thread file,
 * the ports they plug into, and the errors they throw. LangGraph readers live behind the
 * `./langgraph` subpath so that importing this module never loads LangChain.
 */

export { createInMemoryCheckpointReader } from "./checkpoints/in-memory-checkpoint-reader";
export type { CleanedThread, CleanThreadOptions } from "./cli/clean-thread";
export { CLEAN_THREAD_DEFAULTS, cleanThread } from "./cli/clean-thread";
export { systemClock } from "./clock";
export type { AnthropicDigesterOptions, MessagesClient } from "./digesters/anthropic/anthropic-digester";
export {
  ANTHROPIC_DIGESTER_DEFAULTS,
  createAnthropicDigester,
} from "./digesters/anthropic/anthropic-digester";
export type { AnthropicModelId, ModelPrice, ModelRequestTraits } from "./digesters/anthropic/model-table";
export {
  ANTHROPIC_MODEL_TRAITS,
  ANTHROPIC_MODELS,
  DEFAULT_ANTHROPIC_MODEL,
} from "./digesters/anthropic/model-table";
// Digesters.
export {
  createExtractiveDigester,
  EXTRACTIVE_DEFAULTS,
  EXTRACTIVE_MODEL_ID,
} from "./digesters/extractive-digester";
export { withFallback } from "./digesters/with-fallback";
// Errors.
export type { CheckpointReadReason, DigestFailureReason, StoreInputCode, ThreadFileReason } from "./errors";
export {
  CHECKPOINT_READ_REASONS,
  CheckpointReadError,
  CoreError,
  DIGEST_FAILURE_REASONS,
  DigestModelError,
  InvalidPayloadError,
  STORE_INPUT_CODES,
  StoreInputError,
  THREAD_FILE_REASONS,
  ThreadFileError,
} from "./errors";
export type { DigestJobPorts } from "./job/job-context";
export { DIGEST_JOB_DEFAULTS, type DigestJobOptions } from "./job/options";
export type {
  DigestJobOutcome,
  DigestJobStats,
  PartialReason,
  SkipReason,
} from "./job/outcome";
export { PARTIAL_REASONS, SKIP_REASONS } from "./job/outcome";
export { type DigestJobPayload, parseDigestJobPayload } from "./job/payload";
// The digest job.
export { runDigestJob } from "./job/run-digest-job";
// Ports and the adapters that need no optional dependency.
export type {
  ActiveThread,
  ActiveThreadsPage,
  ActiveThreadsQuery,
  CheckpointReader,
  Clock,
  DigestBullets,
  DigestModel,
  DigestPageInput,
  DigestRequest,
  DigestResult,
  DigestRow,
  DigestSection,
  DigestStore,
  DigestUsage,
  Logger,
  Metric,
  MetricsSink,
  MetricUnit,
  PageDigest,
  PassUpdate,
  ThreadClaimRequest,
  ThreadClaimResult,
  ThreadDirectory,
  TurnLock,
} from "./ports";
export { NO_TURN_LOCK } from "./ports";
export type { InMemoryPassRecord } from "./stores/in-memory-digest-store";
export { createInMemoryDigestStore } from "./stores/in-memory-digest-store";
// The neutral JSON thread file and the one-shot clean the CLI runs.
export type { ThreadFile, ThreadFileFormat } from "./thread-file/thread-file";
export { parseThreadFile, readThreadFile, serializeThread, writeThreadFile } from "./thread-file/thread-file";
