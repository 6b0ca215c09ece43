import { contentText } from "../content";
import type { ToolPolicy } from "../policy";
import type { Message, ToolCall, ToolMessage } from "../types";

/** Defaults of the keep-rules (docs/architecture.md#keep-rules). */
export const KEEP_RULE_DEFAULTS = {
  /**
   * Assistant/tool exchanges kept raw before the latest user message. None: the previous
   * turn's consumed pages are condensed in the same turn-start batch as the earlier ones, so
   * no raw page is written to the prompt cache twice (docs/architecture.md#prompt-cache).
   */
  recencyKeepExchanges: 0,
} as const;

/**
 * Why a message is untouchable; one value per keep-rule (docs/architecture.md#keep-rules).
 * `shared-tool-call-id` keeps a result whose non-empty tool call id another result of the
 * thread carries too (`CallIndex.sharesResultId`, decided over the whole thread): a digest
 * row, a `cache.shown` id and a `read_original` call name a result by its id alone.
 */
export const KEEP_REASONS = {
  conversational: "conversational",
  recencyWall: "recency-wall",
  emptyToolCallId: "empty-tool-call-id",
  sharedToolCallId: "shared-tool-call-id",
  interrupt: "interrupt",
  ledgerFirstPage: "ledger-first-page",
  referencedByWindow: "referenced-by-window",
  policyKeep: "policy-keep",
} as const;
export type KeepReason = (typeof KEEP_REASONS)[keyof typeof KEEP_REASONS];

/**
 * The recency-wall keep-rule: index of the first message of the recency wall — the latest
 * user message, moved back past the last `keepExchanges` assistant/tool exchanges before
 * it. Everything at or after the returned index is kept. With no user message, the wall
 * is the last exchanges.
 */
export function recencyWallStart(
  messages: readonly Message[],
  keepExchanges: number = KEEP_RULE_DEFAULTS.recencyKeepExchanges,
): number {
  let start = messages.length;
  // Stryker disable next-line ArithmeticOperator: one past the end reads `undefined`, no user message
  for (let index = messages.length - 1; index >= 0; index--) {
    // Stryker disable next-line OptionalChaining: `index` stays within the array
    if (messages[index]?.role === "user") {
      start = index;
      break;
    }
  }
  return wallBefore(messages, start, keepExchanges);
}

/**
 * The recency wall the next turn will have: where {@link recencyWallStart} puts it once a
 * user message follows the thread's last message. A pass that runs after a turn ended
 * classifies with it, so the turn's earlier pages are digested before the next turn starts
 * (the assembly still keeps them raw while they are inside the current wall).
 */
export function nextTurnWallStart(
  messages: readonly Message[],
  keepExchanges: number = KEEP_RULE_DEFAULTS.recencyKeepExchanges,
): number {
  return wallBefore(messages, messages.length, keepExchanges);
}

/** `start`, moved back past the last `keepExchanges` assistant/tool exchanges before it. */
function wallBefore(messages: readonly Message[], start: number, keepExchanges: number): number {
  // The wall counts the last exchanges before `start`, across earlier user messages (a
  // chatty thread has one exchange per user turn).
  let wall = start;
  let exchanges = 0;
  for (let index = start - 1; index >= 0 && exchanges < keepExchanges; index--) {
    // Stryker disable next-line OptionalChaining: `index` stays within the array
    const role = messages[index]?.role;
    if (role === "assistant") {
      exchanges++;
      wall = index;
    } else if (role === "tool") {
      wall = index;
    }
  }
  return wall;
}

/**
 * The empty-tool-call-id keep-rule: tool results with an empty tool call id (synthetic
 * errors) stay raw.
 */
export function hasEmptyToolCallId(message: ToolMessage): boolean {
  return message.toolCallId === "";
}

/**
 * The interrupt keep-rule: results of interrupt / confirmation tools; a paused thread
 * resumes by their id.
 */
export function isInterruptResult(message: ToolMessage, policy: ToolPolicy): boolean {
  return policy.ruleFor(message.toolName).kind === "interrupt";
}

/** The offset a document read started at, or undefined when absent or not numeric. */
export function readOffset(call: ToolCall | undefined, offsetArg: string | undefined): number | undefined {
  if (!call || !offsetArg) return undefined;
  const value = call.args[offsetArg];
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)))
    return Number(value);
  return undefined;
}

/**
 * The ledger-first-page keep-rule: the first page (offset 0 or absent) of a document read
 * that carries a tracked-change or comment ledger (the policy's `ledgerMarker`).
 */
export function isLedgerFirstPage(
  message: ToolMessage,
  call: ToolCall | undefined,
  policy: ToolPolicy,
): boolean {
  const marker = firstPageMarker(message, call, policy);
  return marker !== undefined && isMarked(message, marker);
}

/** The ledger marker to look for when the result is a document's first page; undefined otherwise. */
function firstPageMarker(message: ToolMessage, call: ToolCall | undefined, policy: ToolPolicy) {
  const rule = policy.ruleFor(message.toolName);
  if (rule.kind !== "document-read" || !rule.ledgerMarker) return undefined;
  const offset = readOffset(call, rule.offsetArg);
  return offset !== undefined && offset !== 0 ? undefined : rule.ledgerMarker;
}

function isMarked(message: ToolMessage, marker: RegExp): boolean {
  marker.lastIndex = 0;
  return marker.test(contentText(message.content));
}

/**
 * The source a result came from: the tool name and its document id arg (the first
 * provenance arg), or undefined for tools without one.
 */
export function sourceKey(
  message: ToolMessage,
  call: ToolCall | undefined,
  policy: ToolPolicy,
): string | undefined {
  const idArg = policy.ruleFor(message.toolName).provenanceArgs[0];
  if (!call || !idArg) return undefined;
  const value = call.args[idArg];
  if (typeof value !== "string" && typeof value !== "number") return undefined;
  return String(value);
}

/**
 * The referenced-by-window keep-rule: the provenance keys of a result — its tool call id
 * and its document id.
 */
export function provenanceKeys(
  message: ToolMessage,
  call: ToolCall | undefined,
  policy: ToolPolicy,
): string[] {
  const keys: string[] = [];
  if (message.toolCallId !== "") keys.push(message.toolCallId);
  const source = sourceKey(message, call, policy);
  if (source !== undefined && source !== "") keys.push(source);
  return keys;
}

/**
 * The policy-keep keep-rule: tools the policy keeps (kind `keep`: memory, skills, context
 * blocks), and results its tool rules protect (include / exclude / never-condense lists,
 * argument patterns on the result's call).
 */
export function isPolicyKept(message: ToolMessage, policy: ToolPolicy, call?: ToolCall): boolean {
  return policy.ruleFor(message.toolName).kind === "keep" || policy.protects(message.toolName, call?.args);
}
