/**
 * `@context-cleaner/core/worker`: what a deployed worker needs — the digest job, the
 * digesters, the clock, the ports and the errors — without the command line's one-shot
 * clean, which opens embedded databases. Serverless functions import this entry so their
 * bundles never carry the embedded PGlite engine.
 */
export { createInMemoryCheckpointReader } from "./checkpoints/in-memory-checkpoint-reader";
export { systemClock } from "./clock";
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
} from "./errors";
export type { DigestJobPorts } from "./job/job-context";
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
  DigestStore,
  Metric,
  MetricsSink,
  MetricUnit,
  ThreadDirectory,
  ThreadOwner,
  ThreadOwnership,
  TurnLock,
} from "./ports";
export { NO_TURN_LOCK } from "./ports";
