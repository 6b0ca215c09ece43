import {
  COMPACTION_DEFAULTS,
  type CompactionHints,
  type CompactionOptions,
  compactHistory,
} from "./compact-history";
import { InvalidOptionError } from "./errors";
import { messageContentSha256 } from "./hash";
import { inlineStubs } from "./inline-clean";
import { KEEP_REASONS, KEEP_RULE_DEFAULTS, recencyWallStart } from "./keep-rules";
import { killSwitchFromEnvironment } from "./kill-switch";
import { messageChars } from "./message-chars";
import { resolveToolPolicy, type ToolPolicy, type ToolPolicyInput } from "./policy";
import { type Protection, protectMessages } from "./protect";
import { renderBudgetStub, renderToolCall } from "./stubs";
import type { DigestEntry, DigestMap, Message, ToolMessage } from "./types";
import { validateThread } from "./validate";

/** Defaults of {@link assembleModelView}. */
export const ASSEMBLE_DEFAULTS = {
  recencyKeepExchanges: KEEP_RULE_DEFAULTS.recencyKeepExchanges,
  ...COMPACTION_DEFAULTS,
  /** Deterministic inline cleaning (duplicates and error/retry pairs). */
  inline: true,
} as const;

export interface AssembleOptions extends CompactionOptions {
  /** Tool policy, built or as configuration. @default the default policy */
  policy?: ToolPolicy | ToolPolicyInput;
  /** Assistant/tool exchanges kept raw before the latest user message. @default 3 */
  recencyKeepExchanges?: number;
  /** Apply the duplicate and error-retry stubs. @default true */
  inline?: boolean;
  /** Kill switch: return exactly what the backstop alone returns. @default process.env.CONTEXT_CLEANER_DISABLED === "1" */
  disabled?: boolean;
  /** Called with the report of every assembly (metrics, logs). Its errors are not caught. */
  onReport?: (report: AssemblyReport) => void;
}

/** What one assembly did. */
export interface AssemblyReport {
  disabled: boolean;
  messages: number;
  /** Chars of the input thread. */
  rawChars: number;
  /** Chars of the returned view. */
  assembledChars: number;
  /** Tool results replaced by a hash-matched digest. */
  substitutions: number;
  /** Digest rows whose hash did not match the live content (expect 0). */
  stale: number;
  /** Chars saved by digests, duplicate stubs and error stubs together. */
  charsSaved: number;
  stubs: { duplicate: number; errorRetry: number };
  /** Messages protected by the keep-rules. */
  protected: number;
  compaction: {
    fired: boolean;
    droppedMessages: number;
    /** Pinned results before the wall condensed to fit the budget (digest or re-read stub). */
    condensedResults: number;
    /** The view is over `historyBudgetChars` because the recency wall (with system messages and notes) alone exceeds it. */
    wallExceedsBudget: boolean;
  };
}

export interface AssembledView<M = Message> {
  messages: M[];
  report: AssemblyReport;
}

const replacedFrom = new WeakMap<Message, Message>();

/** The input message a view message replaced, for adapters mapping views back to their format. */
export function originalOfReplacement(message: Message): Message | undefined {
  return replacedFrom.get(message);
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkDigestEntry(toolCallId: string, entry: DigestEntry): void {
  if (
    typeof entry?.digest !== "string" ||
    typeof entry.contentSha256 !== "string" ||
    !SHA256_HEX.test(entry.contentSha256)
  ) {
    throw new InvalidOptionError(
      `digests entry for tool call ${JSON.stringify(toolCallId)} needs a string digest and a 64-hex contentSha256`,
      "digests",
    );
  }
}

function checkOptions(recencyKeepExchanges: number, options: AssembleOptions): void {
  const checks: Array<[string, number | undefined, number]> = [
    ["recencyKeepExchanges", recencyKeepExchanges, 0],
    ["historyBudgetChars", options.historyBudgetChars, 1],
    ["snippetChars", options.snippetChars, 20],
    ["noteMaxChars", options.noteMaxChars, 200],
  ];
  for (const [field, value, minimum] of checks) {
    if (value !== undefined && (!Number.isInteger(value) || value < minimum)) {
      throw new InvalidOptionError(
        `options.${field} must be an integer ≥ ${minimum}, got ${String(value)}`,
        field,
      );
    }
  }
}

function totalChars(messages: readonly Message[]): number {
  let total = 0;
  for (const message of messages) total += messageChars(message);
  return total;
}

/** Validates the thread, the options and the digest map; the errors name the field at fault. */
function checkInput(
  messages: readonly Message[],
  digests: DigestMap | null | undefined,
  recencyKeepExchanges: number,
  options: AssembleOptions,
): void {
  validateThread(messages);
  checkOptions(recencyKeepExchanges, options);
  if (digests !== undefined && digests !== null && !(digests instanceof Map)) {
    throw new InvalidOptionError(
      "digests must be a Map of tool call id → { digest, contentSha256, digestChars } (e.g. from loadThreadDigests)",
      "digests",
    );
  }
}

function emptyReport(disabled: boolean, messages: readonly Message[], rawChars: number): AssemblyReport {
  return {
    disabled,
    messages: messages.length,
    rawChars,
    assembledChars: rawChars,
    substitutions: 0,
    stale: 0,
    charsSaved: 0,
    stubs: { duplicate: 0, errorRetry: 0 },
    protected: 0,
    compaction: { fired: false, droppedMessages: 0, condensedResults: 0, wallExceedsBudget: false },
  };
}

/** What the cleaning steps decided: the text replacing each result, and the stubs' targets. */
interface Decisions {
  /** Per message index, the text that replaces its content in the view. */
  readonly replaced: Map<number, string>;
  /** Indices an inline stub decided (a stub wins over a digest). */
  readonly decided: Set<number>;
  /** Per stub index, the index of the later result it points to. */
  readonly stubTargets: Map<number, number>;
}

/**
 * Inline decisions come first: a stub wins over a digest, and a result already showing its
 * stub (an earlier assembly's view) is neither live nor stale for the digest gate.
 */
function decideInlineStubs(
  messages: readonly Message[],
  protection: Protection,
  policy: ToolPolicy,
  decisions: Decisions,
  report: AssemblyReport,
): void {
  const stubs = inlineStubs({
    messages,
    cleanable: (index) => protection.reasons[index] === undefined,
    threadIndex: protection.threadIndex,
    policy,
  });
  for (const stub of stubs) {
    decisions.decided.add(stub.index);
    decisions.stubTargets.set(stub.index, stub.target);
    if (stub.text === messages[stub.index]?.content) continue;
    decisions.replaced.set(stub.index, stub.text);
    if (stub.category === "duplicate") report.stubs.duplicate++;
    else report.stubs.errorRetry++;
  }
}

/** Hash-gated substitution of each cleanable, undecided result that has a row. */
function substituteDigests(
  messages: readonly Message[],
  digests: DigestMap,
  protection: Protection,
  decisions: Decisions,
  report: AssemblyReport,
): void {
  messages.forEach((message, index) => {
    if (message.role !== "tool" || protection.reasons[index] !== undefined || decisions.decided.has(index))
      return;
    const entry = digests.get(message.toolCallId);
    if (!entry) return;
    checkDigestEntry(message.toolCallId, entry);
    if (typeof message.content === "string" && message.content === entry.digest) {
      // The row's own digest, substituted by an earlier assembly: neither live nor stale.
    } else if (messageContentSha256(message) === entry.contentSha256) {
      decisions.replaced.set(index, entry.digest);
      report.substitutions++;
    } else {
      report.stale++;
    }
  });
}

/** A copy of a tool result with new content, remembered as standing for the original. */
function withContent(message: ToolMessage, text: string): ToolMessage {
  const replacement: ToolMessage = { ...message, content: text };
  replacedFrom.set(replacement, message);
  return replacement;
}

/** The view with each replaced result swapped for its new text; the same array when nothing changed. */
function swapContents(
  messages: readonly Message[],
  replaced: ReadonlyMap<number, string>,
  report: AssemblyReport,
): readonly Message[] {
  if (replaced.size === 0) return messages;
  return messages.map((message, index) => {
    const text = replaced.get(index);
    if (text === undefined) return message;
    report.charsSaved += messageChars(message) - text.length;
    return withContent(message as ToolMessage, text);
  });
}

/**
 * Past the budget, a pinned result before the wall gives way to its matching digest or a
 * stub naming its re-read call (pinned results are never replaced by the cleaning steps).
 */
function condenser(
  messages: readonly Message[],
  digests: DigestMap | null | undefined,
  protection: Protection,
  policy: ToolPolicy,
): (index: number) => Message | undefined {
  return (index) => {
    const message = messages[index] as Message;
    if (message.role !== "tool") return undefined;
    const entry = digests?.get(message.toolCallId);
    if (entry) checkDigestEntry(message.toolCallId, entry);
    // The row's own digest, substituted by an earlier pass: already condensed.
    if (entry && message.content === entry.digest) return undefined;
    const call = protection.threadIndex.callFor(message);
    const rule = policy.ruleFor(message.toolName);
    const text =
      entry && messageContentSha256(message) === entry.contentSha256
        ? entry.digest
        : call && renderBudgetStub(renderToolCall(call, rule.provenanceArgs), rule.idempotent);
    return text === undefined ? undefined : withContent(message, text);
  };
}

/** The cleaned view before the backstop, and what the backstop must respect in it. */
interface CleanedView {
  view: readonly Message[];
  wallStart: number;
  hints: CompactionHints;
}

/** Keep-rules, inline stubs and hash-gated substitution (steps 2–4 of docs/architecture.md#assembly). */
function cleanView(
  messages: readonly Message[],
  digests: DigestMap | null | undefined,
  options: AssembleOptions,
  recencyKeepExchanges: number,
  report: AssemblyReport,
): CleanedView {
  // Resolved only here: the kill switch must work even with a broken policy.
  const policy = resolveToolPolicy(options.policy);
  const protection = protectMessages(messages, policy, recencyKeepExchanges);
  report.protected = protection.reasons.filter(
    (reason) => reason !== undefined && reason !== "conversational",
  ).length;
  const decisions: Decisions = { replaced: new Map(), decided: new Set(), stubTargets: new Map() };
  if (options.inline ?? ASSEMBLE_DEFAULTS.inline) {
    decideInlineStubs(messages, protection, policy, decisions, report);
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: an empty map substitutes nothing; the check only skips the pass
  if (digests && digests.size > 0) substituteDigests(messages, digests, protection, decisions, report);
  return {
    view: swapContents(messages, decisions.replaced, report),
    wallStart: protection.wallStart,
    hints: {
      pinned: (index) =>
        protection.reasons[index] === KEEP_REASONS.referencedByWindow || protection.mentioned.has(index),
      stubTargets: decisions.stubTargets,
      condense: condenser(messages, digests, protection, policy),
    },
  };
}

/**
 * Builds the model's view of a thread (docs/architecture.md#assembly): keep-rules, hash-gated digest
 * substitution, inline dedupe and error/retry stubs, then the history backstop.
 * Never mutates its input; untouched messages keep their object identity.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed neutral thread.
 * @example
 * const digests = await repository.loadThreadDigests(orgId, threadId);
 * const { messages: view, report } = assembleModelView(thread, digests);
 */
export function assembleModelView(
  messages: readonly Message[],
  digests?: DigestMap | null,
  options: AssembleOptions = {},
): AssembledView {
  const disabled = options.disabled ?? killSwitchFromEnvironment();
  const recencyKeepExchanges = options.recencyKeepExchanges ?? ASSEMBLE_DEFAULTS.recencyKeepExchanges;
  checkInput(messages, digests, recencyKeepExchanges, options);
  const rawChars = totalChars(messages);
  const report = emptyReport(disabled, messages, rawChars);
  const { view, wallStart, hints } = disabled
    ? { view: messages, wallStart: recencyWallStart(messages, recencyKeepExchanges), hints: {} }
    : cleanView(messages, digests, options, recencyKeepExchanges, report);

  // The referenced-by-window keep-rule outlives the backstop: dropping a referenced result
  // would also unpin the rest of its source, so assembling the view again would clean what
  // this pass kept. A kept stub keeps what it points to; the targets come from this
  // assembly's decisions.
  const compacted = compactHistory(view, wallStart, options, hints);
  report.compaction = {
    fired: compacted.fired,
    droppedMessages: compacted.droppedMessages,
    condensedResults: compacted.condensedResults,
    wallExceedsBudget: compacted.wallExceedsBudget,
  };
  report.assembledChars = compacted.fired || view !== messages ? totalChars(compacted.messages) : rawChars;
  options.onReport?.(report);
  return { messages: [...compacted.messages], report };
}
