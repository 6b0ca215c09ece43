import {
  BUDGET_STUB_PREFIX,
  DIGEST_HEADER,
  figuresOnlyDigest,
  renderBudgetStub,
  renderToolCall,
} from "../contract/stubs";
import { InvalidOptionError } from "../errors";
import type { ToolRule } from "../policy";
import { KEEP_REASONS, type KeepReason } from "../rules/keep-rules";
import type { IndexedThread } from "../thread/indexed-thread";
import type { ThreadFacts } from "../thread/thread-facts";
import type { DigestEntry, DigestMap, Message, ToolCall, ToolMessage } from "../types";
import type { BackstopHints, BackstopView } from "./backstop/backstop-view";
import { decideInlineStubs } from "./inline-clean";
import { protectWindow, type WindowProtection } from "./protect";

/** What the cleaning steps count, into the assembly's report. */
export interface CleaningCounts {
  substitutions: number;
  stale: number;
  charsSaved: number;
  stubs: { duplicate: number; errorRetry: number };
  protected: number;
}

/** The cleaned view before the backstop, and what the backstop must respect in it. */
export interface CleanedView {
  view: BackstopView;
  hints: BackstopHints;
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

const replacedFrom = new WeakMap<Message, Message>();

/** The input message a view message replaced, for adapters mapping views back to their format. */
export function originalOfReplacement(message: Message): Message | undefined {
  return replacedFrom.get(message);
}

/** A copy of a tool result with new content, remembered as standing for the original. */
function withContent(message: ToolMessage, text: string): ToolMessage {
  const replacement: ToolMessage = { ...message, content: text };
  replacedFrom.set(replacement, message);
  return replacement;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

function checkDigestEntry(toolCallId: string, entry: DigestEntry): void {
  if (
    // Stryker disable next-line OptionalChaining: equivalent — callers check an entry only once they have one
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

/**
 * Inline decisions come first: a stub wins over a digest, and a result already showing its
 * stub (an earlier assembly's view) is neither live nor stale for the digest gate.
 */
function decideStubs(
  facts: ThreadFacts,
  protection: WindowProtection,
  decisions: Decisions,
  counts: CleaningCounts,
): void {
  const stubs = decideInlineStubs(facts, (index) => protection.reasonAt(index) === undefined);
  for (const stub of stubs) {
    decisions.decided.add(stub.index);
    decisions.stubTargets.set(stub.index, stub.target);
    // Stryker disable next-line OptionalChaining: equivalent — a stub's index is a message of the thread
    if (stub.text === facts.thread.messages[stub.index]?.content) continue;
    decisions.replaced.set(stub.index, stub.text);
    if (stub.category === "duplicate") counts.stubs.duplicate++;
    else counts.stubs.errorRetry++;
  }
}

/** Hash-gated substitution of each cleanable, undecided, not failed result that has a row. */
function substituteDigests(
  facts: ThreadFacts,
  digests: DigestMap,
  protection: WindowProtection,
  decisions: Decisions,
  counts: CleaningCounts,
): void {
  for (const index of facts.results) {
    // Results in the wall are kept by the recency-wall keep-rule.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — an early out: every result in the wall has the recency-wall reason, skipped below
    if (index >= protection.wallStart) break;
    if (protection.reasonAt(index) !== undefined || decisions.decided.has(index)) continue;
    // A failed result is the error/retry rule's: the worker digests none, and a digest in
    // its place would read as a success that "retries" an earlier failure.
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (facts.at(index)?.failed) continue;
    const message = facts.message(index);
    const entry = digests.get(message.toolCallId);
    if (!entry) continue;
    checkDigestEntry(message.toolCallId, entry);
    if (
      // Stryker disable next-line ConditionalExpression: equivalent — block content equals none of the cleaner's texts
      typeof message.content === "string" &&
      isOwnCondensedText(message.content, entry, facts, index)
    ) {
      // The row's own digest, substituted by an earlier assembly, or the stand-in an earlier
      // backstop put there for this very row or call: neither live nor stale.
    } else if (facts.thread.hashAt(index) === entry.contentSha256) {
      decisions.replaced.set(index, entry.digest);
      counts.substitutions++;
    } else {
      counts.stale++;
    }
  }
}

/** The caller's messages with each replaced result swapped for its new text. */
function swapContents(
  messages: readonly Message[],
  thread: IndexedThread,
  replaced: ReadonlyMap<number, string>,
  counts: CleaningCounts,
): readonly Message[] {
  // Stryker disable next-line ConditionalExpression: equivalent — the assembly returns a new array either way, with the same messages
  if (replaced.size === 0) return messages;
  const view = messages.slice();
  for (const [index, text] of replaced) {
    counts.charsSaved += (thread.chars[index] as number) - text.length;
    view[index] = withContent(messages[index] as ToolMessage, text);
  }
  return view;
}

/**
 * Whether the backstop's first step may condense a raw result the keep-rules give
 * `reason`: one no rule keeps, or a ledger first page (a page, one call away). Memory and
 * methodology (`policy-keep`) and interrupt answers wait for the later steps, as do pinned
 * results and the results a kept stub points to.
 */
function condensesEarly(reason: KeepReason | undefined): boolean {
  return reason === undefined || reason === KEEP_REASONS.ledgerFirstPage;
}

/**
 * Past the budget, a result before the wall that the view still holds as the thread has it
 * (raw, or pinned) gives way to its matching digest or a stub naming its re-read call.
 */
function condenser(facts: ThreadFacts, digests: DigestMap | null | undefined) {
  return (index: number): Message | undefined => {
    const message = facts.thread.messages[index] as Message;
    // A failed result stays as it is: any stand-in would read as a success on the next
    // assembly (the error/retry rule decides failed results).
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (message.role !== "tool" || facts.at(index)?.failed) return undefined;
    const entry = digests?.get(message.toolCallId);
    if (entry) checkDigestEntry(message.toolCallId, entry);
    // The row's own digest, substituted by an earlier pass: already condensed.
    if (entry && message.content === entry.digest) return undefined;
    const text =
      entry && facts.thread.hashAt(index) === entry.contentSha256 ? entry.digest : budgetStubOf(facts, index);
    return text === undefined ? undefined : withContent(message, text);
  };
}

/**
 * Past the budget, a digest in the view (substituted by this assembly, or the row's own
 * digest already in the thread) gives way to its figures-only form.
 */
function shrinker(facts: ThreadFacts, digests: DigestMap | null | undefined, decisions: Decisions) {
  return (index: number): Message | undefined => {
    const message = facts.thread.messages[index] as Message;
    // Stryker disable next-line ConditionalExpression: equivalent — the backstop asks for the figures-only form of results only
    if (message.role !== "tool") return undefined;
    const entry = digests?.get(message.toolCallId);
    if (!entry) return undefined;
    const shown = decisions.replaced.get(index) ?? message.content;
    if (shown !== entry.digest) return undefined;
    const text = figuresOnlyOf(entry, message.toolCallId);
    return text === undefined ? undefined : withContent(message, text);
  };
}

/**
 * Whether `content` is what an earlier assembly put in the result's place from this row or
 * for this call: the row's digest, its figures-only form, or the backstop's stub.
 */
function isOwnCondensedText(content: string, entry: DigestEntry, facts: ThreadFacts, index: number): boolean {
  if (content === entry.digest) return true;
  if (content.startsWith(BUDGET_STUB_PREFIX)) return content === budgetStubOf(facts, index);
  return (
    content.startsWith(DIGEST_HEADER) && content === figuresOnlyOf(entry, facts.message(index).toolCallId)
  );
}

// Per row: its figures-only form, for the digest text and tool call id it was made from
// (rows are loaded once per turn; either may be replaced on the same object).
const figuresOnlyByEntry = new WeakMap<
  DigestEntry,
  { digest: string; toolCallId: string; text: string | undefined }
>();

function figuresOnlyOf(entry: DigestEntry, toolCallId: string): string | undefined {
  const cached = figuresOnlyByEntry.get(entry);
  if (cached?.digest === entry.digest && cached.toolCallId === toolCallId) return cached.text;
  const text = figuresOnlyDigest(entry.digest, toolCallId);
  // Stryker disable next-line ObjectLiteral: equivalent — an empty record never matches, so the text is made again
  figuresOnlyByEntry.set(entry, { digest: entry.digest, toolCallId, text });
  return text;
}

// Per tool call: its budget stub, for the args and tool rule it was rendered for (the policy
// may change; the thread index re-reads args replaced on the same call). A result pairs with
// its call by id, so the call fixes the id the stub names.
const budgetStubByCall = new WeakMap<
  ToolCall,
  { argsJson: string | undefined; rule: ToolRule; text: string }
>();

/** The backstop's stand-in for the result at `index`, naming the call that re-reads it; undefined without a call. */
function budgetStubOf(facts: ThreadFacts, index: number): string | undefined {
  const call = facts.thread.calls.callAt(index);
  if (!call) return undefined;
  const message = facts.thread.messages[index] as ToolMessage;
  const rule = facts.policy.ruleFor(message.toolName);
  const argsJson = facts.thread.calls.callArgsJsonAt(index);
  const cached = budgetStubByCall.get(call);
  if (cached !== undefined && cached.argsJson === argsJson && cached.rule === rule) return cached.text;
  const text = renderBudgetStub(
    renderToolCall(call, rule.provenanceArgs),
    rule.idempotent,
    message.toolCallId,
  );
  // Stryker disable next-line ObjectLiteral: equivalent — an empty record never matches, so the text is made again
  budgetStubByCall.set(call, { argsJson, rule, text });
  return text;
}

/**
 * Keep-rules, inline stubs and hash-gated substitution (steps 2–4 of
 * docs/architecture.md#assembly) over facts kept across calls.
 */
export function cleanView(
  messages: readonly Message[],
  facts: ThreadFacts,
  digests: DigestMap | null | undefined,
  options: { wallStart: number; inline: boolean },
  counts: CleaningCounts,
): CleanedView {
  const protection = protectWindow(facts, options.wallStart);
  counts.protected = protection.protectedResults;
  const decisions: Decisions = { replaced: new Map(), decided: new Set(), stubTargets: new Map() };
  if (options.inline) decideStubs(facts, protection, decisions, counts);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — an empty map substitutes nothing
  if (digests && digests.size > 0) substituteDigests(facts, digests, protection, decisions, counts);
  const { thread } = facts;
  const view = swapContents(messages, thread, decisions.replaced, counts);
  const pinnedSet = new Set([...protection.referenced, ...protection.mentioned]);
  const stubTargets = new Set(decisions.stubTargets.values());
  const pinned = [...pinnedSet].sort((a, b) => a - b);
  return {
    view: {
      thread,
      messages: view,
      replaced: decisions.replaced,
      chars: thread.totalChars - counts.charsSaved,
      wallStart: options.wallStart,
    },
    // The referenced-by-window keep-rule outlives the backstop: dropping a referenced
    // result would also unpin the rest of its source, so assembling the view again would
    // clean what this pass kept. A kept stub keeps what it points to; the targets come
    // from this assembly's decisions.
    hints: {
      pinned,
      stubTargets: decisions.stubTargets,
      condense: condenser(facts, digests),
      shrink: shrinker(facts, digests, decisions),
      condensesEarly: (index) =>
        !pinnedSet.has(index) && !stubTargets.has(index) && condensesEarly(protection.reasonAt(index)),
    },
  };
}
