export type { CheckpointReader, CheckpointReadReason } from "./checkpoints/checkpoint-reader";
export { CHECKPOINT_READ_REASONS, CheckpointReadError } from "./checkpoints/checkpoint-reader";
export { createInMemoryCheckpointReader } from "./checkpoints/in-memory-checkpoint-reader";
export type { CandidateCategory, Classification, DigestCandidate } from "./classify/classify-thread";
export { CANDIDATE_CATEGORIES, classifyThread } from "./classify/classify-thread";
export type { CleanedThread, CleanThreadOptions } from "./cli/clean-thread";
export { CLEAN_THREAD_DEFAULTS, cleanThread } from "./cli/clean-thread";
export { fixedClock, systemClock } from "./clock";
export type { AnthropicDigesterOptions, MessagesClient } from "./digesters/anthropic/anthropic-digester";
export {
  ANTHROPIC_DIGESTER_DEFAULTS,
  createAnthropicDigester,
  toDigestModelError,
} from "./digesters/anthropic/anthropic-digester";
export { DIGEST_SYSTEM_PROMPT, DIGEST_TOOL, DIGEST_TOOL_NAME } from "./digesters/anthropic/digest-prompt";
export type { AnthropicModelId, ModelPrice } from "./digesters/anthropic/model-table";
export {
  ANTHROPIC_MODELS,
  costUsd,
  DEFAULT_ANTHROPIC_MODEL,
  isKnownModel,
} from "./digesters/anthropic/model-table";
export {
  createExtractiveDigester,
  EXTRACTIVE_DEFAULTS,
  EXTRACTIVE_MODEL_ID,
  extractBullets,
} from "./digesters/extractive-digester";
export { FALLBACK_METRIC, withFallback } from "./digesters/with-fallback";
export type { DigestFailureReason } from "./errors";
export { CoreError, DIGEST_FAILURE_REASONS, DigestModelError, InvalidCoreOptionError } from "./errors";
export type { DigestJobPayload } from "./job/payload";
export { digestJobPayloadSchema, InvalidPayloadError, parseDigestJobPayload } from "./job/payload";
export type {
  DigestJobDependencies,
  DigestJobOptions,
  DigestJobOutcome,
  DigestJobStats,
  SkipReason,
} from "./job/run-digest-job";
export { DIGEST_JOB_DEFAULTS, runDigestJob, SKIP_REASONS } from "./job/run-digest-job";
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
export type { CheckedBullets } from "./render/check-bullets";
export { checkBullets, comparisonForm, DIGEST_SECTIONS, inventedFigures } from "./render/check-bullets";
export type { DigestRenderInput, RenderedDigest } from "./render/render-digest";
export { DIGEST_RENDER_DEFAULTS, renderDigest } from "./render/render-digest";
export type { SupersededSearchInput } from "./render/render-superseded-search-stub";
export {
  extractHitIds,
  renderSupersededSearchStub,
  SUPERSEDED_SEARCH_HEADER,
} from "./render/render-superseded-search-stub";
export type { ThreadFile, ThreadFileFormat, ThreadFileReason } from "./thread-file/thread-file";
export {
  parseThreadFile,
  readThreadFile,
  serializeThread,
  THREAD_FILE_REASONS,
  ThreadFileError,
  writeThreadFile,
} from "./thread-file/thread-file";
