/**
 * `@context-cleaner/assembler`: what a runtime needs on every model call — the view
 * (`assembleModelView`) with its options and report, the budget helpers, the message model
 * and digest map, the org's turn state, the prompt-cache context and ledger, the tool
 * policy, the `read_original` executor, and the errors. Figures are `./figures`; what only
 * the sibling packages use is `./internal`.
 */
export type { AssembledView, AssembleOptions, AssemblyReport, KeptFigure, ShadowReport } from "./assemble";
export { ASSEMBLE_DEFAULTS, assembleModelView } from "./assemble";
export type { CapOptions, CappedResult, EffectiveToolChars, OverBudgetMode } from "./budget";
export { BUDGET_DEFAULTS, capToolResult, effectiveToolChars } from "./budget";
export {
  ContextCleanerError,
  InvalidOptionError,
  InvalidThreadError,
  InvalidToolPolicyError,
} from "./errors";
export type { DigestsOrTurnState, OrgPolicy, PolicyMode, TurnState } from "./org-policy";
export type { ToolKind, ToolPolicyInput, ToolRuleInput } from "./policy";
export { createToolPolicy } from "./policy";
export type {
  ReadOriginalOption,
  ReadOriginalResult,
  ReadOriginalToolDefinition,
} from "./read-original/read-original";
export { readOriginal, readOriginalTool } from "./read-original/read-original";
export type {
  BatchReason,
  CacheContext,
  CacheTariff,
  LedgerEntry,
  TurnLedger,
} from "./steps/cache-policy";
export type { ThinkingReport } from "./steps/provider-true";
export type { WatermarkOptions } from "./steps/watermark";
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
