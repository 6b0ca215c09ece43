export type { AssembledView, AssembleOptions, AssemblyReport } from "./assemble";
export { ASSEMBLE_DEFAULTS, assembleModelView } from "./assemble";
export type { CapOptions, CappedResult, EffectiveToolChars } from "./budget";
export { BUDGET_DEFAULTS, capToolResult, effectiveToolChars } from "./budget";
export type { CompactionHints, CompactionOptions, CompactionResult } from "./compact-history";
export { COMPACTION_DEFAULTS, compactHistory, messageChars } from "./compact-history";
export { contentChars, contentText } from "./content";
export {
  ContextCleanerError,
  InvalidOptionError,
  InvalidThreadError,
  InvalidToolPolicyError,
} from "./errors";
export type { FigureProvenanceResult } from "./figures";
export { checkFigureProvenance, extractFigures, normalizeWhitespace } from "./figures";
export { canonicalArgs, canonicalJson, contentSha256, messageContentSha256 } from "./hash";
export { inlineStubs, isErrorResult } from "./inline-clean";
export type { KeepReason, WindowReferences } from "./keep-rules";
export {
  hasEmptyToolCallId,
  isConversationalMessage,
  isInsideRecencyWall,
  isInterruptResult,
  isLedgerFirstPage,
  isPolicyKept,
  isReferencedByWindow,
  KEEP_REASONS,
  KEEP_RULE_DEFAULTS,
  provenanceKeys,
  readOffset,
  recencyWallStart,
  sourceKey,
  windowReferences,
} from "./keep-rules";
export { killSwitchFromEnvironment } from "./kill-switch";
export type { ToolKind, ToolPolicy, ToolPolicyInput, ToolRule, ToolRuleInput } from "./policy";
export {
  createToolPolicy,
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  POLICY_DEFAULTS,
  resolveToolPolicy,
  TOOL_KINDS,
} from "./policy";
export type { Protection } from "./protect";
export { protectMessages } from "./protect";
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
export type {
  AssistantMessage,
  ContentBlock,
  DigestEntry,
  DigestMap,
  Message,
  MessageContent,
  Role,
  SystemMessage,
  ToolCall,
  ToolMessage,
  UserMessage,
} from "./types";
export { validateThread } from "./validate";
