import { contentChars, contentText } from "../content";
import { canonicalJson } from "../contract/hash";
import type { ToolRule } from "../policy";
import type { ToolCall, ToolMessage } from "../types";
import { readOffset } from "./keep-rules";

/** A result without an error status counts as an error by its text only up to this many chars. */
export const ERROR_TEXT_MAX_CHARS = 500;

const ERROR_PATTERN =
  /^\s*(?:error\b|exception\b|traceback\b|fatal\b|failed\b|\[error\]|\[transient error\b|status(?: code)?:? [45]\d\d\b)/i;
const BLANK_LINE = /\n[ \t]*\r?\n/;

/**
 * Whether a tool result failed: the framework marks it (`status: "error"`, which adapters
 * map from `is_error`), or, without a status, it is a short text that is nothing but an
 * error — at most {@link ERROR_TEXT_MAX_CHARS} chars, one paragraph, opening like an error.
 * A longer result is output whatever its first line says ("ERROR 12:00 charge failed …" in
 * a log, a clause headed "Failed Delivery"), so no text heuristic ever collapses it.
 */
export function isErrorResult(message: ToolMessage): boolean {
  if (message.status === "error") return true;
  if (message.status === "success") return false;
  if (contentChars(message.content) > ERROR_TEXT_MAX_CHARS) return false;
  const text = contentText(message.content);
  return !BLANK_LINE.test(text) && ERROR_PATTERN.test(text);
}

/**
 * What a retry shares with the failed call: the tool and the document it names (first
 * provenance arg), or, for a tool without one, every arg (canonical JSON).
 */
export function retryKey(toolName: string, call: ToolCall, rule: ToolRule, argsJson: string): string {
  const idArg = rule.provenanceArgs[0];
  if (idArg !== undefined && call.args[idArg] !== undefined) {
    return `${toolName}\u0000${idArg}=${canonicalJson(call.args[idArg])}`;
  }
  return `${toolName}\u0000${argsJson}`;
}

function provenanceValue(call: ToolCall, name: string, rule: ToolRule): unknown {
  // A read without an offset reads the first page.
  if (name === rule.offsetArg) return readOffset(call, name) ?? call.args[name] ?? 0;
  return call.args[name];
}

/**
 * Whether two calls with the same {@link retryKey} read overlapping things: every further
 * provenance arg that both calls pass has the same value (an offset left out is 0).
 */
export function overlaps(failed: ToolCall, retry: ToolCall, rule: ToolRule): boolean {
  const [idArg, ...rest] = rule.provenanceArgs;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: no id arg: the key holds every arg
  if (idArg === undefined || failed.args[idArg] === undefined) return true;
  return rest.every((name) => {
    const before = provenanceValue(failed, name, rule);
    const after = provenanceValue(retry, name, rule);
    return before === undefined || after === undefined || canonicalJson(before) === canonicalJson(after);
  });
}
