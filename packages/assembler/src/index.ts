export type { AssembledView, AssembleOptions, AssemblyReport } from "./assemble";
export { ASSEMBLE_DEFAULTS, assembleModelView } from "./assemble";
export type { CapOptions, CappedResult, EffectiveToolChars } from "./budget";
export { BUDGET_DEFAULTS, capToolResult, effectiveToolChars } from "./budget";
export type { CompactionHints, CompactionOptions, CompactionResult } from "./compact-history";
export { COMPACTION_DEFAULTS, compactHistory } from "./compact-history";
export {
  ContextCleanerError,
  InvalidOptionError,
  InvalidThreadError,
  InvalidToolPolicyError,
} from "./errors";
export type { FigureProvenanceResult } from "./figures";
export { checkFigureProvenance, extractFigures } from "./figures";
export { contentSha256 } from "./hash";
export { KEEP_RULE_DEFAULTS } from "./keep-rules";
export { killSwitchFromEnvironment } from "./kill-switch";
export type { ToolKind, ToolPolicy, ToolPolicyInput, ToolRule, ToolRuleInput } from "./policy";
export {
  createToolPolicy,
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  POLICY_DEFAULTS,
  TOOL_KINDS,
} from "./policy";
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
export type { DigestKind } from "./vocabulary";
