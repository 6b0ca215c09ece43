import type { Message, ToolCall, ToolMessage } from "@context-cleaner/assembler";
import type { ToolPolicy, ToolRule } from "@context-cleaner/assembler/internal";
import {
  contentChars,
  inlineStubs,
  isErrorResult,
  messageContentSha256,
  midTurnWallStart,
  nextTurnWallStart,
  protectMessages,
  readOffset,
  recencyWallStart,
  sourceKey,
} from "@context-cleaner/assembler/internal";

/** Whether content is all text: a string, or blocks that each carry a string `text`. */
function isTextOnly(message: ToolMessage): boolean {
  return (
    typeof message.content === "string" || message.content.every((block) => typeof block.text === "string")
  );
}

/**
 * The junk categories the worker handles (docs/architecture.md#junk-categories); the other
 * two, `duplicate` and `error-retry`, are the assembler's inline stubs.
 */
export const CANDIDATE_CATEGORIES = {
  consumedPage: "consumed-page",
  supersededSearch: "superseded-search",
  bulkyOutput: "bulky-output",
} as const;
export type CandidateCategory = (typeof CANDIDATE_CATEGORIES)[keyof typeof CANDIDATE_CATEGORIES];

/** A tool result the worker may condense. */
export interface DigestCandidate {
  index: number;
  category: CandidateCategory;
  message: ToolMessage;
  call: ToolCall;
  rule: ToolRule;
  /** The document the result was read from (first provenance arg), when the tool has one. */
  source: string | undefined;
  contentSha256: string;
  originalChars: number;
  /** For a superseded search: the later search of the same tool that supersedes this one. */
  supersededBy?: string;
  /**
   * A result of a tool that is not idempotent (an API response, command output), digested
   * because `read_original` serves its raw text: its digest says it is as it was at the call.
   */
  timeVarying?: true;
}

export interface Classification {
  candidates: DigestCandidate[];
  /** Tool results the keep-rules protect this pass. */
  protectedResults: number;
  /** Results left raw because their tool is time-varying (not idempotent) and `read_original` is off. */
  timeVarying: number;
  /** Results the assembler already condenses inline (duplicates, error/retry pairs). */
  inline: number;
}

/**
 * How many results carry each tool call id. Digest rows are keyed by tool call id: a
 * result sharing its id with another (some OpenAI-compatible models reuse ids) has no
 * stable row, so it is never a candidate.
 */
function resultsPerToolCallId(messages: readonly Message[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of messages) {
    // Stryker disable next-line ConditionalExpression: counting non-tool messages too adds only an `undefined` key, never looked up
    if (message.role === "tool") counts.set(message.toolCallId, (counts.get(message.toolCallId) ?? 0) + 1);
  }
  return counts;
}

/** The worker's category of a cleanable result of an idempotent tool or a search, if any. */
function categoryOf(result: {
  rule: ToolRule;
  call: ToolCall;
  supersededBy: string | undefined;
  originalChars: number;
  bulkMinChars: number;
}): CandidateCategory | undefined {
  const { rule, call } = result;
  if (rule.kind === "search") {
    return result.supersededBy !== undefined ? CANDIDATE_CATEGORIES.supersededSearch : undefined;
  }
  if (rule.kind === "document-read" && (readOffset(call, rule.offsetArg) ?? 0) > 0) {
    return CANDIDATE_CATEGORIES.consumedPage;
  }
  return result.originalChars >= result.bulkMinChars ? CANDIDATE_CATEGORIES.bulkyOutput : undefined;
}

/**
 * Classifies a thread's tool results for the worker: keep-rules first (the assembler's
 * one implementation), then consumed document pages, superseded searches and bulky
 * output of idempotent tools. Results of tools that are not idempotent are digested only
 * with `readOriginal` (the deployment serves their raw text through `read_original`, so a
 * re-read is honest), as bulky output; otherwise they stay raw.
 */
// Slightly over 60 lines: one backward scan whose steps share the later-search map and counters.
export function classifyThread(
  messages: readonly Message[],
  policy: ToolPolicy,
  options: {
    recencyKeepExchanges: number;
    /**
     * Which recency wall protects: the one the thread has now, the one the next turn
     * will have (a pass after a turn ended: the turn's earlier pages are digested before
     * the next turn starts, while the assembly keeps them raw until the wall moves past them),
     * or, for a pass inside a long turn, the start of the turn's latest
     * `midTurnKeepExchanges` exchanges: what the agent has moved past, which the assembly's
     * watermark batches condense (docs/architecture.md#relief-inside-a-long-turn).
     * @default "current"
     */
    wall?: "current" | "next-turn" | "mid-turn";
    /** With `wall: "mid-turn"`, the turn's latest exchanges kept raw. @default 1 */
    midTurnKeepExchanges?: number;
    /**
     * Whether `read_original` serves the raw result of any call: then time-varying output
     * over `bulkMinChars` is digested too. @default false
     */
    readOriginal?: boolean;
  },
): Classification {
  const wallStart =
    options.wall === "next-turn"
      ? nextTurnWallStart(messages, options.recencyKeepExchanges)
      : options.wall === "mid-turn"
        ? midTurnWallStart(messages, options.recencyKeepExchanges, options.midTurnKeepExchanges)
        : recencyWallStart(messages, options.recencyKeepExchanges);
  const protection = protectMessages(messages, policy, options.recencyKeepExchanges, wallStart);
  const { threadIndex } = protection;
  const cleanable = (index: number) => protection.reasons[index] === undefined;
  const inlineIndices = new Set(
    inlineStubs({ messages, cleanable, threadIndex, policy }).map((stub) => stub.index),
  );
  const candidates: DigestCandidate[] = [];
  let protectedResults = 0;
  let timeVarying = 0;
  const laterSearch = new Map<string, string>();
  const resultsPerId = resultsPerToolCallId(messages);
  // Stryker disable next-line ArithmeticOperator: starting one past the end reads `undefined`, which the next lines skip
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    // Stryker disable next-line OptionalChaining: `index` stays within the array, so `message` is always defined
    if (message?.role !== "tool") continue;
    const rule = policy.ruleFor(message.toolName);
    // Stryker disable next-line ConditionalExpression: only search tools' names are ever keys of `laterSearch`
    const supersededBy = rule.kind === "search" ? laterSearch.get(message.toolName) : undefined;
    // A failed search replaces no list; a failed result is no page to digest (its gist must stay).
    const failed = isErrorResult(message);
    if (rule.kind === "search" && message.toolCallId !== "" && !failed)
      laterSearch.set(message.toolName, message.toolCallId);
    if (!cleanable(index)) {
      protectedResults++;
      continue;
    }
    const call = threadIndex.callFor(message);
    // A result with a non-text block (an image, a file) cannot be condensed faithfully from its text.
    if (!call || failed || inlineIndices.has(index) || !isTextOnly(message)) continue;
    if ((resultsPerId.get(message.toolCallId) ?? 0) > 1) continue;
    const originalChars = contentChars(message.content);
    const timeVaryingResult = rule.kind !== "search" && !rule.idempotent;
    if (timeVaryingResult && !options.readOriginal) {
      timeVarying++;
      continue;
    }
    const category = timeVaryingResult
      ? originalChars >= policy.bulkMinChars
        ? CANDIDATE_CATEGORIES.bulkyOutput
        : undefined
      : categoryOf({ rule, call, supersededBy, originalChars, bulkMinChars: policy.bulkMinChars });
    if (category === undefined) continue;
    candidates.push({
      index,
      category,
      message,
      call,
      rule,
      source: sourceKey(message, call, policy),
      contentSha256: messageContentSha256(message),
      originalChars,
      // Stryker disable next-line ConditionalExpression: `supersededBy: undefined` reads the same as an absent one
      ...(supersededBy !== undefined ? { supersededBy } : {}),
      ...(timeVaryingResult ? { timeVarying: true as const } : {}),
    });
  }
  candidates.reverse();
  return { candidates, protectedResults, timeVarying, inline: inlineIndices.size };
}
