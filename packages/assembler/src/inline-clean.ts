import { contentChars, contentText } from "./content";
import { canonicalArgs, messageContentSha256 } from "./hash";
import type { ToolPolicy } from "./policy";
import { isCleanerText, renderDuplicateStub, renderErrorRetryStub, renderToolCall } from "./stubs";
import type { ThreadIndex } from "./thread-index";
import type { Message, ToolCall, ToolMessage } from "./types";

/** Stub text per message index chosen by inline cleaning, with its category. */
export interface InlineStub {
  index: number;
  category: "duplicate" | "error-retry";
  text: string;
}

const ERROR_PATTERN =
  /^\s*(?:error\b|exception\b|traceback\b|fatal\b|failed\b|\[error\]|status(?: code)?:? [45]\d\d\b)/i;

/** Whether a tool result failed: its status says so, or its text opens like an error. */
export function isErrorResult(message: ToolMessage): boolean {
  if (message.status === "error") return true;
  if (message.status === "success") return false;
  const text =
    typeof message.content === "string"
      ? message.content.slice(0, 200)
      : contentText(message.content).slice(0, 200);
  return ERROR_PATTERN.test(text);
}

/** Per-result facts inline cleaning needs, cached per message object across assemblies. */
interface ResultFacts {
  readonly content: unknown;
  readonly call: ToolCall | undefined;
  readonly failed: boolean;
  readonly cleanerText: boolean;
  /** Same tool and canonical args; undefined for failed results and results without a call. */
  readonly groupKey: string | undefined;
}

const factsByMessage = new WeakMap<ToolMessage, ResultFacts>();

function resultFacts(message: ToolMessage, call: ToolCall | undefined): ResultFacts {
  const cached = factsByMessage.get(message);
  if (cached && cached.content === message.content && cached.call === call) return cached;
  const failed = isErrorResult(message);
  const facts: ResultFacts = {
    content: message.content,
    call,
    failed,
    cleanerText: isCleanerText(contentText(message.content)),
    groupKey: call && !failed ? `${message.toolName}\u0000${canonicalArgs(call)}` : undefined,
  };
  factsByMessage.set(message, facts);
  return facts;
}

interface InlineInput {
  messages: readonly Message[];
  cleanable: (index: number) => boolean;
  threadIndex: ThreadIndex;
  policy: ToolPolicy;
  /** Indices whose result the view shows condensed (a digest was substituted). */
  condensed: ReadonlySet<number>;
}

/**
 * Deterministic inline cleaning (docs/architecture.md#junk-categories): "duplicate" results
 * (same tool, same canonical args, identical content — earlier copies point to the
 * latest, which stays) and "error-retry" pairs (an error followed by a success of the
 * same tool).
 */
export function inlineStubs(input: InlineInput): InlineStub[] {
  const scan = scanResults(input);
  const duplicates = duplicateStubs(input, scan);
  const stubbed = new Set(duplicates.map((stub) => stub.index));
  const stubs = [...duplicates, ...errorRetryStubs(input, scan, stubbed)];
  return stubs.sort((a, b) => a.index - b.index);
}

/** What one pass over the tool results learns: per-result facts and the two groupings. */
interface ResultScan {
  factsAt: (ResultFacts | undefined)[];
  /** Result indices per duplicate key (tool and canonical args), in thread order. */
  byCallKey: Map<string, number[]>;
  /** The last successful result of each tool. */
  lastSuccessByTool: Map<string, number>;
}

function scanResults({ messages, threadIndex }: InlineInput): ResultScan {
  const byCallKey = new Map<string, number[]>();
  const lastSuccessByTool = new Map<string, number>();
  const factsAt: (ResultFacts | undefined)[] = new Array(messages.length);
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    // Cleaner text (a digest or stub from an earlier assembly) hides whether the original
    // failed, so it counts as no retry; the success it stood for already did its work.
    const facts = resultFacts(message, threadIndex.callFor(message));
    factsAt[index] = facts;
    if (!facts.failed && !facts.cleanerText) lastSuccessByTool.set(message.toolName, index);
    // Failed results are left to the error/retry collapse: a duplicate stub would promise
    // that the later copy stays in full while that copy is itself collapsed.
    const key = facts.groupKey;
    if (key === undefined) return;
    const group = byCallKey.get(key);
    if (group) group.push(index);
    else byCallKey.set(key, [index]);
  });
  return { factsAt, byCallKey, lastSuccessByTool };
}

/** "duplicate" stubs: every earlier copy of identical content points to the latest copy. */
function duplicateStubs(
  { messages, cleanable, threadIndex, policy, condensed }: InlineInput,
  { factsAt, byCallKey }: ResultScan,
): InlineStub[] {
  const stubs: InlineStub[] = [];
  for (const group of byCallKey.values()) {
    if (group.length < 2) continue;
    const latestByHash = new Map<string, number>();
    for (const index of group) latestByHash.set(messageContentSha256(messages[index] as Message), index);
    for (const index of group) {
      const message = messages[index] as ToolMessage;
      const latest = latestByHash.get(messageContentSha256(message)) as number;
      if (latest === index || !cleanable(index) || factsAt[index]?.cleanerText) continue;
      const latestMessage = messages[latest] as ToolMessage;
      const latestCall = threadIndex.callFor(latestMessage) as ToolCall;
      const reread = condensed.has(latest)
        ? renderToolCall(latestCall, policy.ruleFor(latestMessage.toolName).provenanceArgs)
        : undefined;
      const text = renderDuplicateStub(message.toolName, latestMessage.toolCallId, reread);
      if (text.length >= contentChars(message.content)) continue;
      stubs.push({ index, category: "duplicate", text });
    }
  }
  return stubs;
}

/** "error-retry" stubs: a failed result that a later success of the same tool retried. */
function errorRetryStubs(
  { messages, cleanable }: InlineInput,
  { factsAt, lastSuccessByTool }: ResultScan,
  stubbed: ReadonlySet<number>,
): InlineStub[] {
  const stubs: InlineStub[] = [];
  messages.forEach((message, index) => {
    if (message.role !== "tool" || stubbed.has(index) || !cleanable(index)) return;
    const retriedAt = lastSuccessByTool.get(message.toolName);
    const facts = factsAt[index];
    if (retriedAt === undefined || retriedAt < index || !facts?.failed || facts.cleanerText) return;
    // Always collapsed, even when short: the stub also tells the model the retry worked.
    stubs.push({ index, category: "error-retry", text: renderErrorRetryStub(contentText(message.content)) });
  });
  return stubs;
}
