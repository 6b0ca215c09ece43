/**
 * `@context-cleaner/assembler/internal`: the building blocks the sibling packages (the
 * worker in `@context-cleaner/core`, the storage in `@context-cleaner/db`) share with the
 * assembler and a runtime integrator does not need. No stability promise: names here may
 * change or go away in any release.
 */
export type { BreakpointPlacement } from "./adapters/anthropic/breakpoints";
export { breakpointPlacements } from "./adapters/anthropic/breakpoints";
export { contentChars, contentText } from "./content";
export { figureSpans, normalizeWhitespace, numberWordRuns, wholeFigureFinder } from "./contract/figures";
export { canonicalJson, messageContentSha256 } from "./contract/hash";
export { messageChars } from "./contract/message-chars";
export type { IdField } from "./contract/stored-values";
export {
  countProblem,
  idProblem,
  microUsdToUsd,
  storableText,
  textProblem,
  toolCallIdProblem,
  usdProblem,
  usdToMicroUsd,
} from "./contract/stored-values";
export { DIGEST_HEADER, renderToolCall } from "./contract/stubs";
export type { DigestKind, DigestRow, LeftBehindReason, PassReason, PassStatus } from "./contract/vocabulary";
export { DIGEST_KINDS, PASS_STATUSES } from "./contract/vocabulary";
export { withDeadline } from "./events/deadline";
export { POLICY_MODES } from "./org-policy";
export { resolveToolPolicy } from "./policy";
export { redactedError, redactSecrets, safeErrorText } from "./redact";
export { isErrorResult } from "./rules/error-retry";
export { nextTurnWallStart, readOffset, recencyWallStart, sourceKey } from "./rules/keep-rules";
export { inlineStubs } from "./steps/inline-clean";
export { protectMessages } from "./steps/protect";
export { midTurnWallStart } from "./steps/watermark";
export { indexThread } from "./thread/thread-index";
export { checkInteger, integerProblem, isRecord } from "./validate";
