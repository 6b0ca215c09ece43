export type { AssembledView, AssembleOptions, AssemblyReport, KeptFigure, ShadowReport } from "./assemble";
export {
  ASSEMBLE_DEFAULTS,
  assembleModelView,
  SHADOW_FIGURE_SCAN_CHARS,
  SHADOW_KEPT_FIGURES_LIMIT,
} from "./assemble";
export type { CapOptions, CappedResult, EffectiveToolChars, OverBudgetMode } from "./budget";
export { BUDGET_DEFAULTS, capToolResult, effectiveToolChars } from "./budget";
export type { FigureProvenanceResult } from "./contract/figures";
export { checkFigureProvenance, extractFigures } from "./contract/figures";
export { contentSha256 } from "./contract/hash";
export type { DigestKind } from "./contract/vocabulary";
export {
  ContextCleanerError,
  InvalidOptionError,
  InvalidThreadError,
  InvalidToolPolicyError,
} from "./errors";
export { killSwitchFromEnvironment } from "./kill-switch";
export type {
  DigestsOrTurnState,
  OrgPolicy,
  OrgPolicyInput,
  PolicyMode,
  PolicyOverrides,
  TurnState,
} from "./org-policy";
export { orgPolicyData, POLICY_MODES, validateOrgPolicy } from "./org-policy";
export type { ToolKind, ToolPolicy, ToolPolicyInput, ToolRule, ToolRuleInput } from "./policy";
export {
  createToolPolicy,
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  POLICY_DEFAULTS,
  TOOL_KINDS,
  withToolRules,
} from "./policy";
export type {
  ReadOriginalOption,
  ReadOriginalResult,
  ReadOriginalToolDefinition,
} from "./read-original/read-original";
export {
  READ_ORIGINAL_DEFAULTS,
  READ_ORIGINAL_DESCRIPTION,
  READ_ORIGINAL_INPUT_SCHEMA,
  readOriginal,
  readOriginalHandle,
  readOriginalTool,
  renderReadOriginalResult,
} from "./read-original/read-original";
export { KEEP_RULE_DEFAULTS } from "./rules/keep-rules";
export type { CompactionHints, CompactionOptions, CompactionResult } from "./steps/backstop/compact-history";
export { COMPACTION_DEFAULTS, compactHistory } from "./steps/backstop/compact-history";
export type {
  BatchReason,
  CacheContext,
  CacheProvider,
  CacheTariff,
  LedgerEntry,
  TurnLedger,
} from "./steps/cache-policy";
export { CACHE_DEFAULTS, CACHE_TARIFFS } from "./steps/cache-policy";
export type { ThinkingReport } from "./steps/provider-true";
export type { WatermarkOptions } from "./steps/watermark";
export { WATERMARK_DEFAULTS } from "./steps/watermark";
export type { ProtectedArg, ProtectedArgInput, ToolRules, ToolRulesInput } from "./tool-rules";
export { validateToolRules } from "./tool-rules";
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
