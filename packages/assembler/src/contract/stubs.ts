import type { ToolCall } from "../types";

/** First line of every digest the worker renders (docs/architecture.md#the-digest-contract). */
export const DIGEST_HEADER = "[Condensed by context-cleaner — original preserved and re-readable.]";
export const DUPLICATE_PREFIX = "[Duplicate result — identical to the result of tool call ";
export const ERROR_PREFIX = "[Transient error, retried successfully below: ";
/** First line of the backstop's note standing for dropped history. */
export const COMPACTION_NOTE_PREFIX = "[Earlier conversation condensed by context-cleaner";

/** First words of the stand-in for a result the backstop condenses to fit the history budget. */
export const BUDGET_STUB_PREFIX = "[Condensed by context-cleaner to fit the history budget";

/** First words of the one bullet of a digest the backstop cut down to its figures (see {@link figuresOnlyDigest}). */
export const FIGURES_ONLY_BULLET_PREFIX = "  - (bullets of tool call ";

/**
 * A digest cut down to fit the history budget: its bullets give way to one line saying so
 * (naming the tool call, so two results' cut-down digests never read as duplicates); the
 * header, tool, source, `figures verbatim` and `re-read` lines stay as they are (the
 * figures are the facts, and the page is one call away). Undefined for text that is not a
 * digest in the contract's format or that has no bullet to leave out.
 */
export function figuresOnlyDigest(digest: string, toolCallId: string): string | undefined {
  if (!digest.startsWith(`${DIGEST_HEADER}\n`)) return undefined;
  const lines = digest.split("\n");
  const label = lines.indexOf("digest:");
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — no label, no bullets
  if (label < 0) return undefined;
  let end = label + 1;
  while (end < lines.length && (lines[end] as string).startsWith("  - ")) end++;
  if (end === label + 1) return undefined;
  const bullet = `${FIGURES_ONLY_BULLET_PREFIX}${toolCallId} left out to fit the history budget; re-read for the full text)`;
  return [...lines.slice(0, label + 1), bullet, ...lines.slice(end)].join("\n");
}

/** The longest error gist a error-retry stub keeps. */
export const ERROR_GIST_MAX_CHARS = 200;

function renderArg(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/**
 * The call of the `read_original` tool (named `toolName`) that returns the raw result of
 * tool call `toolCallId`: `read_original(tool_call_id="call_7")`.
 */
export function renderOriginalHandle(toolCallId: string, toolName: string): string {
  return `${toolName}(tool_call_id=${renderArg(toolCallId)})`;
}

/** The line a digest's re-read call opens with. */
const REREAD_LINE_PREFIX = "re-read: ";

/**
 * A digest (or a worker's superseded-search stub) that also names `handle`, the
 * `read_original` call returning the raw result: beside the digest's own re-read call
 * (`re-read: read_document(…) or read_original(…)`), or on a line of its own. Text that
 * names the handle already comes back as it is.
 */
export function withOriginalHandle(text: string, handle: string): string {
  if (text.includes(handle)) return text;
  const lastBreak = text.lastIndexOf("\n");
  const last = text.slice(lastBreak + 1);
  if (lastBreak >= 0 && last.startsWith(REREAD_LINE_PREFIX)) return `${text} or ${handle}`;
  return `${text}\noriginal as recorded: ${handle}`;
}

/** Renders a tool call as the one call that re-reads its result: `read_document(file_id="cd_9f2", offset=58000)`. */
export function renderToolCall(call: ToolCall, argNames?: readonly string[]): string {
  const names =
    argNames && argNames.length > 0
      ? argNames.filter((name) => name in call.args)
      : Object.keys(call.args).sort();
  return `${call.name}(${names.map((name) => `${name}=${renderArg(call.args[name])}`).join(", ")})`;
}

/**
 * The duplicate stub: an earlier exact duplicate points to the latest occurrence and names the
 * call that re-reads it (`reread`, from {@link renderToolCall}), so the stub stays true
 * whether that later result is kept in full, digested or condensed by the backstop. For a
 * tool that is not idempotent, the call is offered as a re-run returning current data.
 */
export function renderDuplicateStub(
  toolName: string,
  latestCallId: string,
  reread: string,
  idempotent = true,
  original?: string,
): string {
  const where = `${DUPLICATE_PREFIX}${latestCallId} (${toolName}) below`;
  if (original !== undefined) {
    return idempotent
      ? `${where}; the original is one call away: ${reread} or ${original}]`
      : `${where}; re-running ${reread} returns current data; ${original} returns this result as recorded.]`;
  }
  return idempotent
    ? `${where}; the original is one call away: ${reread}]`
    : `${where}; re-running ${reread} returns current data.]`;
}

/**
 * The error-retry stub: keeps the gist of the error (its first line, at most
 * {@link ERROR_GIST_MAX_CHARS} chars) so the agent does not retry a known-failed approach,
 * and names the failed call (`failedCall`, from {@link renderToolCall}) and, with the
 * `read_original` tool, the call returning the whole error (`original`).
 */
export function renderErrorRetryStub(errorText: string, failedCall: string, original?: string): string {
  // Stryker disable next-line OptionalChaining,StringLiteral: equivalent — `split` gives one at least
  const firstLine = errorText.trim().split(/\r?\n/, 1)[0]?.trim() ?? "";
  const gist =
    firstLine.length > ERROR_GIST_MAX_CHARS ? `${firstLine.slice(0, ERROR_GIST_MAX_CHARS - 1)}…` : firstLine;
  return `${ERROR_PREFIX}${gist} — failed call: ${failedCall}${errorStubTail(original)}]`;
}

function errorStubTail(original: string | undefined): string {
  return original === undefined ? "" : `; the whole error: ${original}`;
}

/**
 * Whether `text` is exactly the error-retry stub {@link renderErrorRetryStub} renders for
 * `failedCall`: an assembly that decides to stub such a result again leaves it as it is.
 */
export function isErrorRetryStubFor(text: string, failedCall: string, original?: string): boolean {
  const suffix = ` — failed call: ${failedCall}${errorStubTail(original)}]`;
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent — rechecked below
  if (!text.startsWith(ERROR_PREFIX) || !text.endsWith(suffix)) return false;
  const gist = text.slice(ERROR_PREFIX.length, text.length - suffix.length);
  return renderErrorRetryStub(gist, failedCall, original) === text;
}

/**
 * The backstop's stand-in for the result of tool call `toolCallId` it must condense to fit
 * the history budget and has no digest for: the call that re-reads it (`reread`, from
 * {@link renderToolCall}), offered as a re-run returning current data for a tool that is
 * not idempotent, and with the `read_original` tool the call returning the raw result
 * (`original`). Naming the tool call keeps two results' stand-ins apart (never duplicates).
 */
export function renderBudgetStub(
  reread: string,
  idempotent: boolean,
  toolCallId: string,
  original?: string,
): string {
  const prefix = `${BUDGET_STUB_PREFIX}: tool call ${toolCallId}`;
  if (original !== undefined) {
    return idempotent
      ? `${prefix} — the original is one call away: ${reread} or ${original}]`
      : `${prefix} — re-running ${reread} returns current data; ${original} returns the result as recorded.]`;
  }
  return idempotent
    ? `${prefix} — the original is one call away: ${reread}]`
    : `${prefix} — re-running ${reread} returns current data.]`;
}
