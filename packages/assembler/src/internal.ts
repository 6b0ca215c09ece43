/**
 * `@context-cleaner/assembler/internal`: the building blocks the sibling packages (the
 * worker in `@context-cleaner/core`, the storage in `@context-cleaner/db`) share with the
 * assembler and a runtime integrator does not need, and the defaults and helpers behind
 * the main entry's options. No stability promise: names here may change or go away in any
 * release.
 */
export type { BreakpointPlacement } from "./adapters/anthropic/breakpoints";
export { breakpointPlacements } from "./adapters/anthropic/breakpoints";
export { SHADOW_FIGURE_SCAN_CHARS, SHADOW_KEPT_FIGURES_LIMIT } from "./assemble";
export { contentChars, contentText } from "./content";
export { figureSpans, normalizeWhitespace, numberWordRuns, wholeFigureFinder } from "./contract/figures";
export { canonicalJson, contentSha256, messageContentSha256 } from "./contract/hash";
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
export { killSwitchFromEnvironment } from "./kill-switch";
export type { OrgPolicyInput, PolicyOverrides } from "./org-policy";
export { orgPolicyData, POLICY_MODES, validateOrgPolicy } from "./org-policy";
export type { ToolPolicy, ToolRule } from "./policy";
export {
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  POLICY_DEFAULTS,
  resolveToolPolicy,
  TOOL_KINDS,
  withToolRules,
} from "./policy";
export {
  READ_ORIGINAL_DEFAULTS,
  READ_ORIGINAL_DESCRIPTION,
  READ_ORIGINAL_INPUT_SCHEMA,
  readOriginalHandle,
  renderReadOriginalResult,
} from "./read-original/read-original";
export { redactedError, redactSecrets, safeErrorText } from "./redact";
export { isErrorResult } from "./rules/error-retry";
export {
  KEEP_RULE_DEFAULTS,
  nextTurnWallStart,
  readOffset,
  recencyWallStart,
  sourceKey,
} from "./rules/keep-rules";
export type { CompactionHints, CompactionOptions, CompactionResult } from "./steps/backstop/compact-history";
export { COMPACTION_DEFAULTS, compactHistory } from "./steps/backstop/compact-history";
export type { CacheProvider } from "./steps/cache-policy";
export { CACHE_DEFAULTS, CACHE_TARIFFS } from "./steps/cache-policy";
export { inlineStubs } from "./steps/inline-clean";
export { protectMessages } from "./steps/protect";
export { midTurnWallStart, WATERMARK_DEFAULTS } from "./steps/watermark";
export { indexThread } from "./thread/thread-index";
export type { ProtectedArg, ProtectedArgInput, ToolRules, ToolRulesInput } from "./tool-rules";
export { validateToolRules } from "./tool-rules";
export { checkInteger, integerProblem, isRecord } from "./validate";
