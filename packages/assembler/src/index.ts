export { contentChars, contentText } from "./content";
export { ContextCleanerError, InvalidThreadError, InvalidToolPolicyError } from "./errors";
export { canonicalJson, contentSha256, messageContentSha256 } from "./hash";
export type { ToolKind, ToolPolicy, ToolPolicyInput, ToolRule, ToolRuleInput } from "./policy";
export {
  createToolPolicy,
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  POLICY_DEFAULTS,
  resolveToolPolicy,
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
