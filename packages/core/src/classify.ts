import {
  contentChars,
  inlineStubs,
  isErrorResult,
  type Message,
  messageContentSha256,
  protectMessages,
  readOffset,
  sourceKey,
  type ToolCall,
  type ToolMessage,
  type ToolPolicy,
  type ToolRule,
} from "@context-cleaner/assembler";

/** Whether content is all text: a string, or blocks that each carry a string `text`. */
function isTextOnly(message: ToolMessage): boolean {
  return (
    typeof message.content === "string" || message.content.every((block) => typeof block.text === "string")
  );
}

/** The junk categories the worker handles (DESIGN §5); cat. 2 and 4 are the assembler's. */
export const CANDIDATE_CATEGORIES = {
  consumedPage: 1,
  supersededSearch: 3,
  bulkyOutput: 5,
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
  /** Cat. 3: the later search of the same tool that supersedes this one. */
  supersededBy?: string;
}

export interface Classification {
  candidates: DigestCandidate[];
  /** Tool results the keep-rules protect this pass. */
  protectedResults: number;
  /** Results left raw because their tool is time-varying (not idempotent). */
  timeVarying: number;
  /** Results the assembler already condenses inline (cat. 2 duplicates, cat. 4 errors). */
  inline: number;
}

/**
 * Classifies a thread's tool results for the worker: keep-rules first (the assembler's
 * one implementation), then cat. 1 consumed document pages, cat. 3 superseded searches and
 * cat. 5 bulky output of idempotent tools. Time-varying results are never digested.
 */
export function classifyThread(
  messages: readonly Message[],
  policy: ToolPolicy,
  options: { recencyKeepExchanges: number },
): Classification {
  const protection = protectMessages(messages, policy, options.recencyKeepExchanges);
  const { threadIndex } = protection;
  const cleanable = (index: number) => protection.reasons[index] === undefined;
  const inlineIndices = new Set(
    inlineStubs({ messages, cleanable, threadIndex, policy }).map((stub) => stub.index),
  );
  const candidates: DigestCandidate[] = [];
  let protectedResults = 0;
  let timeVarying = 0;
  const laterSearch = new Map<string, string>();
  // Digest rows are keyed by tool call id: a result sharing its id with another (some
  // OpenAI-compatible models reuse ids) has no stable row, so it is never a candidate.
  const resultsPerId = new Map<string, number>();
  for (const message of messages) {
    if (message.role === "tool")
      resultsPerId.set(message.toolCallId, (resultsPerId.get(message.toolCallId) ?? 0) + 1);
  }
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index];
    if (message?.role !== "tool") continue;
    const rule = policy.ruleFor(message.toolName);
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
    let category: CandidateCategory | undefined;
    if (rule.kind === "search") {
      if (supersededBy !== undefined) category = CANDIDATE_CATEGORIES.supersededSearch;
    } else if (!rule.idempotent) {
      timeVarying++;
    } else if (rule.kind === "document-read" && (readOffset(call, rule.offsetArg) ?? 0) > 0) {
      category = CANDIDATE_CATEGORIES.consumedPage;
    } else if (originalChars >= policy.bulkMinChars) {
      category = CANDIDATE_CATEGORIES.bulkyOutput;
    }
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
      ...(supersededBy !== undefined ? { supersededBy } : {}),
    });
  }
  candidates.reverse();
  return { candidates, protectedResults, timeVarying, inline: inlineIndices.size };
}
