/**
 * `@context-cleaner/assembler/internal`: the building blocks the sibling packages (the
 * worker in `@context-cleaner/core`, the storage in `@context-cleaner/db`) share with the
 * assembler and a runtime integrator does not need. No stability promise: names here may
 * change or go away in any release.
 */
export { contentChars, contentText } from "./content";
export { isErrorResult } from "./error-retry";
export { normalizeWhitespace } from "./figures";
export { canonicalArgs, canonicalJson, messageContentSha256 } from "./hash";
export { inlineStubs } from "./inline-clean";
export type { KeepReason } from "./keep-rules";
export {
  hasEmptyToolCallId,
  isInterruptResult,
  isLedgerFirstPage,
  isPolicyKept,
  KEEP_REASONS,
  nextTurnWallStart,
  provenanceKeys,
  readOffset,
  recencyWallStart,
  sourceKey,
} from "./keep-rules";
export { messageChars } from "./message-chars";
export { resolveToolPolicy } from "./policy";
export type { Protection } from "./protect";
export { protectMessages } from "./protect";
export type { IdField } from "./stored-values";
export {
  countProblem,
  idProblem,
  microUsdToUsd,
  STORED_VALUE_LIMITS,
  storableText,
  textProblem,
  toolCallIdProblem,
  usdProblem,
  usdToMicroUsd,
  utf8Bytes,
} from "./stored-values";
export {
  COMPACTION_NOTE_PREFIX,
  DIGEST_HEADER,
  ERROR_GIST_MAX_CHARS,
  renderDuplicateStub,
  renderErrorRetryStub,
  renderToolCall,
} from "./stubs";
export type { ThreadIndex } from "./thread-index";
export { indexThread } from "./thread-index";
export type { DigestKind, DigestRow, LeftBehindReason, PassReason, PassStatus } from "./vocabulary";
export { DIGEST_KINDS, LEFT_BEHIND_REASONS, PASS_REASONS, PASS_STATUSES } from "./vocabulary";
