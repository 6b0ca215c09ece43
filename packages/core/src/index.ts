export type { AnthropicDigesterOptions, MessagesClient } from "./anthropic/anthropic-digester";
export {
  ANTHROPIC_DIGESTER_DEFAULTS,
  createAnthropicDigester,
  toDigestModelError,
} from "./anthropic/anthropic-digester";
export { DIGEST_SYSTEM_PROMPT, DIGEST_TOOL, DIGEST_TOOL_NAME } from "./anthropic/digest-prompt";
export type { AnthropicModelId, ModelPrice } from "./anthropic/model-table";
export { ANTHROPIC_MODELS, costUsd, DEFAULT_ANTHROPIC_MODEL, isKnownModel } from "./anthropic/model-table";
export type { CheckedBullets } from "./bullet-check";
export { checkBullets, comparisonForm, DIGEST_SECTIONS, inventedFigures } from "./bullet-check";
export type { CheckpointReader, CheckpointReadReason } from "./checkpoints/checkpoint-reader";
export { CHECKPOINT_READ_REASONS, CheckpointReadError } from "./checkpoints/checkpoint-reader";
export type { ThreadFile, ThreadFileFormat, ThreadFileReason } from "./checkpoints/json-thread-file";
export {
  parseThreadFile,
  readThreadFile,
  serializeThread,
  THREAD_FILE_REASONS,
  ThreadFileError,
  writeThreadFile,
} from "./checkpoints/json-thread-file";
export type { CandidateCategory, Classification, DigestCandidate } from "./classify";
export { CANDIDATE_CATEGORIES, classifyThread } from "./classify";
export type { CleanedThread, CleanThreadOptions } from "./cli/clean-thread";
export { CLEAN_THREAD_DEFAULTS, cleanThread } from "./cli/clean-thread";
export { fixedClock, systemClock } from "./clock";
export type {
  DigestJobDependencies,
  DigestJobOptions,
  DigestJobOutcome,
  DigestJobStats,
  SkipReason,
} from "./digest-job";
export { DIGEST_JOB_DEFAULTS, runDigestJob, SKIP_REASONS } from "./digest-job";
export type { DigestJobPayload } from "./digest-job-payload";
export { digestJobPayloadSchema, InvalidPayloadError, parseDigestJobPayload } from "./digest-job-payload";
export type { DigestRenderInput, RenderedDigest } from "./digest-render";
export { DIGEST_RENDER_DEFAULTS, renderDigest } from "./digest-render";
export type { DigestFailureReason } from "./errors";
export { CoreError, DIGEST_FAILURE_REASONS, DigestModelError, InvalidCoreOptionError } from "./errors";
export {
  createExtractiveDigester,
  EXTRACTIVE_DEFAULTS,
  EXTRACTIVE_MODEL_ID,
  extractBullets,
} from "./extractive-digester";
export { createInMemoryCheckpointReader } from "./in-memory-checkpoint-reader";
export type { DigestStore, TurnLock } from "./job-ports";
export { NO_TURN_LOCK } from "./job-ports";
export type {
  Clock,
  DigestBullets,
  DigestModel,
  DigestPageInput,
  DigestRequest,
  DigestResult,
  DigestSection,
  DigestUsage,
  Metric,
  MetricsSink,
  MetricUnit,
  PageDigest,
} from "./ports";
export type { SupersededSearchInput } from "./superseded-search-stub";
export {
  extractHitIds,
  renderSupersededSearchStub,
  SUPERSEDED_SEARCH_HEADER,
} from "./superseded-search-stub";
export { FALLBACK_METRIC, withFallback } from "./with-fallback";
