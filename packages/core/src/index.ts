/**
 * `@context-cleaner/core`: the worker — the digest job and its payload, the digesters, the
 * in-memory reader and store, the clocks, the ports they plug into, and the errors they
 * throw. A deployed function imports this entry: it never loads the command line's one-shot
 * clean (which opens embedded databases; see `./cli`) nor LangChain (the LangGraph readers
 * live behind `./langgraph`).
 */

export { createInMemoryCheckpointReader } from "./checkpoints/in-memory-checkpoint-reader";
export { fixedClock, systemClock } from "./clock";
export type { AnthropicDigesterOptions, MessagesClient } from "./digesters/anthropic/anthropic-digester";
export {
  ANTHROPIC_DIGESTER_DEFAULTS,
  createAnthropicDigester,
} from "./digesters/anthropic/anthropic-digester";
export { createExtractiveDigester, EXTRACTIVE_MODEL_ID } from "./digesters/extractive-digester";
export { withFallback } from "./digesters/with-fallback";
export {
  CheckpointReadError,
  CoreError,
  DigestModelError,
  InvalidPayloadError,
  StoreInputError,
} from "./errors";
export type { DigestJobPorts, JobDelivery } from "./job/job-context";
export { DIGEST_JOB_DEFAULTS, type DigestJobOptions } from "./job/options";
export type { DigestJobOutcome, DigestJobStats, PartialReason, SkipReason } from "./job/outcome";
export { PARTIAL_REASONS, SKIP_REASONS } from "./job/outcome";
export { type DigestJobPayload, parseDigestJobPayload, type TurnClockCheck } from "./job/payload";
export { runDigestJob } from "./job/run-digest-job";
export type {
  ActiveThread,
  ActiveThreadsPage,
  ActiveThreadsQuery,
  CheckpointReader,
  Clock,
  DigestModel,
  DigestRequest,
  DigestResult,
  DigestStore,
  Logger,
  Metric,
  MetricsSink,
  MetricUnit,
  ThreadDirectory,
  TurnLock,
} from "./ports";
export { NO_TURN_LOCK } from "./ports";
export { createInMemoryDigestStore } from "./stores/in-memory-digest-store";
