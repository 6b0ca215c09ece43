import { digestNoteLine, snippet } from "../contract/compaction-note";
import {
  BUDGET_STUB_PREFIX,
  DIGEST_HEADER,
  figuresOnlyDigest,
  renderBudgetStub,
  renderOriginalHandle,
  renderToolCall,
} from "../contract/stubs";
import { InvalidOptionError } from "../errors";
import type { ToolRule } from "../policy";
import { KEEP_REASONS, type KeepReason } from "../rules/keep-rules";
import type { IndexedThread } from "../thread/indexed-thread";
import type { ThreadFacts } from "../thread/thread-facts";
import type { DigestEntry, DigestMap, Message, ToolCall, ToolMessage } from "../types";
import type { BackstopHints, BackstopView } from "./backstop/backstop-view";
import {
  type BatchCandidate,
  type BatchReason,
  expectedCallsOf,
  payingSuffix,
  type ResolvedCache,
} from "./cache-policy";
import { decideInlineStubs } from "./inline-clean";
import { protectWindow, type WindowProtection } from "./protect";
import { continuesThinkingLoop, latestLoopAssistant } from "./provider-true";
import { innerWallOf, inTurnCondensation, type ResolvedWatermark } from "./watermark";

/** What the cleaning steps count, into the assembly's report. */
export interface CleaningCounts {
  substitutions: number;
  stale: number;
  charsSaved: number;
  stubs: { duplicate: number; errorRetry: number };
  protected: number;
}

/** How cleaning condensed a result, for the ledger (`condensed`: a condensation made for relief inside a turn, ./watermark). */
export type CleaningKind = "digest" | "superseded-search" | "duplicate" | "error-retry" | "condensed";

/** The cleaned view before the backstop, what the backstop must respect in it, and the ledger's part. */
export interface CleanedView {
  view: BackstopView;
  hints: BackstopHints;
  /** Per position the view (or the thread itself) shows condensed by cleaning, how. */
  kinds: ReadonlyMap<number, CleaningKind>;
  batch: BatchOutcome;
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

/** What the view shows for one result cleaning condenses, and how. */
interface Condensation {
  index: number;
  kind: CleaningKind;
  /** The text in the result's place; undefined when the thread already holds it. */
  text: string | undefined;
  /** For a stub, the later result it points to. */
  target?: number;
}

/**
 * Inline stubs (a stub wins over a digest) and hash-gated digests of the results before the
 * wall, per result index. A result already showing its stub or its row's digest (an
 * earlier assembly's view written back) is neither live nor stale for the digest gate.
 * `sticky` results (the previous view showed them condensed) are cleaned whatever keep-rule
 * the window now adds; see {@link isSticky} for the rules that win over it.
 */
function condensations(
  facts: ThreadFacts,
  digests: DigestMap | null | undefined,
  protection: WindowProtection,
  options: CleanOptions,
  counts: CleaningCounts,
): Map<number, Condensation> {
  const found = new Map<number, Condensation>();
  const cleanable = (index: number) =>
    protection.reasonAt(index) === undefined || isSticky(facts, index, protection, options);
  if (options.inline) {
    for (const stub of decideInlineStubs(facts, cleanable, options.evidenceEnd)) {
      // Stryker disable next-line OptionalChaining: equivalent — a stub's index is a message of the thread
      const own = stub.text === facts.thread.messages[stub.index]?.content;
      found.set(stub.index, {
        index: stub.index,
        kind: stub.category,
        text: own ? undefined : stub.text,
        target: stub.target,
      });
    }
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — nothing to substitute
  if (!digests || digests.size === 0) return found;
  for (const index of facts.results) {
    // Results in the wall are kept by the recency-wall keep-rule.
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — an early out
    if (index >= protection.wallStart) break;
    if (!cleanable(index)) continue;
    // Cache-unaware, a stub wins over a digest. Cache-aware, a duplicate with a row keeps
    // its digest: an older copy already condensed when the document is re-read stays as it
    // was (whether the previous view showed it is no part of the choice, so the form never
    // flips between calls).
    const stub = found.get(index);
    if (stub !== undefined && (stub.text === undefined || !options.cache || stub.kind !== "duplicate"))
      continue;
    // A failed result is the error/retry rule's: the worker digests none, and a digest in
    // its place would read as a success that "retries" an earlier failure.
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (facts.at(index)?.failed) continue;
    const message = facts.message(index);
    const entry = digests.get(message.toolCallId);
    if (!entry) continue;
    checkDigestEntry(message.toolCallId, entry);
    const kind = entry.kind === "superseded-search" ? "superseded-search" : "digest";
    if (
      // Stryker disable next-line ConditionalExpression: equivalent — blocks equal no cleaner text
      typeof message.content === "string" &&
      isOwnCondensedText(message.content, entry, facts, index)
    ) {
      // The row's own digest, substituted by an earlier assembly, or the stand-in an earlier
      // backstop put there for this very row or call: neither live nor stale.
      if (stub === undefined) found.set(index, { index, kind, text: undefined });
    } else if (facts.thread.hashAt(index) === entry.contentSha256) {
      // Cache-aware, a digest no shorter than its result is left out: it would rewrite the
      // view's prefix for nothing.
      if (options.cache && entry.digest.length >= (facts.thread.chars[index] as number)) continue;
      found.set(index, { index, kind, text: entry.digest });
    } else {
      counts.stale++;
    }
  }
  return found;
}

/**
 * Whether the result at `index`, before the wall, stays condensed because the previous view
 * showed it so (`options.shown`), whatever keep-rule now keeps it. Never a result no id
 * names alone (an empty id, or one another result carries: `shown` cannot tell which of
 * them it meant). On a turn's first call the rules that do not depend on the window win
 * (an org's `neverCondense`, `exclude`, `include` or `protectedArgs` set since, an interrupt
 * or memory tool, a ledger page): the result is shown raw from then on. Within a turn, and
 * for the window's references, the view stays as it was.
 */
function isSticky(
  facts: ThreadFacts,
  index: number,
  protection: WindowProtection,
  options: CleanOptions,
): boolean {
  if (index >= protection.wallStart) return false;
  const { toolCallId } = facts.message(index);
  if (options.shown?.has(toolCallId) !== true) return false;
  if (toolCallId === "" || facts.thread.calls.sharesResultId(index)) return false;
  // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
  return !(options.cache?.turnStart === true && facts.at(index)?.reason !== undefined);
}

/** Where the call's new batch stands (see `TurnLedger.batch`). */
export interface BatchOutcome {
  status: "applied" | "deferred" | "none";
  reason: BatchReason;
  results: number;
  charsSaved: number;
  deferredResults: number;
}

/** Chars a condensation saves: the result as the thread holds it, less the text in its place. */
function savedBy(thread: IndexedThread, each: Condensation): number {
  return (thread.chars[each.index] as number) - (each.text as string).length;
}

function savedByAll(thread: IndexedThread, condensed: readonly Condensation[]): number {
  return condensed.reduce((sum, each) => sum + savedBy(thread, each), 0);
}

/** A batch's outcome: `counted` are the results it counts (landed, or waiting), `deferredResults` what still waits. */
function batchOutcome(
  status: BatchOutcome["status"],
  reason: BatchReason,
  thread: IndexedThread,
  counted: readonly Condensation[],
  deferredResults: number,
): BatchOutcome {
  return {
    status,
    reason,
    results: counted.length,
    charsSaved: savedByAll(thread, counted),
    deferredResults,
  };
}

/**
 * Which of the new condensations land (docs/architecture.md#prompt-cache): all of them
 * without a cache context; on a turn's first call, all when the cache is cold or the
 * thread has no history, else the part the cost gate finds paying, or more when the view
 * would stay over the history budget; mid-turn none.
 */
// biome-ignore lint/complexity/useMaxParams: the cost gate's inputs, each a different thing the caller already holds
function landBatch(
  batch: readonly Condensation[],
  thread: IndexedThread,
  sticky: ReadonlyMap<number, string>,
  cache: ResolvedCache | undefined,
  budget: number,
  evidenceEnd: number,
): { landed: readonly Condensation[]; outcome: BatchOutcome } {
  const outcome = (
    status: BatchOutcome["status"],
    reason: BatchReason,
    landed: readonly Condensation[],
  ): { landed: readonly Condensation[]; outcome: BatchOutcome } => ({
    landed,
    outcome: batchOutcome(
      status,
      reason,
      thread,
      status === "deferred" ? batch : landed,
      batch.length - landed.length,
    ),
  });
  if (cache === undefined) return outcome(batch.length > 0 ? "applied" : "none", "cache-unaware", batch);
  if (batch.length === 0) return outcome("none", "nothing-new", batch);
  if (!cache.turnStart) return outcome("deferred", "mid-turn", []);
  if (cache.cold) return outcome("applied", "cold", batch);
  if (cache.shown === undefined) return outcome("applied", "no-history", batch);
  // Chars of the view from each position on, with the sticky condensations in place.
  const first = (batch[0] as Condensation).index;
  const from = new Float64Array(thread.length - first + 1);
  for (let index = thread.length - 1; index >= first; index--) {
    const text = sticky.get(index);
    const chars = text === undefined ? (thread.chars[index] as number) : text.length;
    from[index - first] = (from[index - first + 1] as number) + chars;
  }
  const candidates = batch.map((each) => ({ index: each.index, saved: savedBy(thread, each) }));
  const expectedCalls = cache.expectedCalls ?? expectedCallsOf(thread.messages, evidenceEnd);
  let start = payingSuffix(candidates, (index) => from[index - first] as number, cache, expectedCalls);
  // Deferred, a view over the budget would be cut by the backstop at this call (it cuts on
  // a turn's first call only), the same results at a dearer point: the latest part that
  // brings it within the budget lands. A view within the budget is not cut this turn.
  let viewChars = thread.totalChars;
  for (const [index, text] of sticky) viewChars -= (thread.chars[index] as number) - text.length;
  for (let k = candidates.length; k > 0 && viewChars > budget; k--) {
    viewChars -= (candidates[k - 1] as BatchCandidate).saved;
    start = Math.min(start, k - 1);
  }
  if (start === batch.length) return outcome("deferred", "would-not-pay", []);
  return outcome("applied", "pays", batch.slice(start));
}

/** The caller's messages with each replaced result swapped for its new text. */
function swapContents(
  messages: readonly Message[],
  thread: IndexedThread,
  replaced: ReadonlyMap<number, string>,
  counts: CleaningCounts,
): readonly Message[] {
  // Stryker disable next-line ConditionalExpression: equivalent — same messages in a new array either way
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
 * (raw, or pinned) gives way to its matching digest or a stub naming its re-read call. A
 * result the thread already holds in a condensed form this assembly decided for it (a
 * stub the inline cleaning decided again with its own text, the row's digest or its
 * figures-only form, its call's budget stub) is condensed already: this assembly's own
 * stand-ins are left as they are, so an earlier assembly's must be too, or assembling a
 * view would condense it a second time. What the cleaner wrote is known from the
 * decisions and the row, never from how a text begins.
 */
function condenser(
  facts: ThreadFacts,
  digests: DigestMap | null | undefined,
  alreadyCondensed: ReadonlySet<number>,
) {
  return (index: number): Message | undefined => {
    const message = facts.thread.messages[index] as Message;
    // A failed result stays as it is: any stand-in would read as a success on the next
    // assembly (the error/retry rule decides failed results).
    // Stryker disable next-line OptionalChaining: equivalent — every result has its facts
    if (message.role !== "tool" || facts.at(index)?.failed) return undefined;
    // A result whose id another result carries is never condensed (its handle would name both).
    if (alreadyCondensed.has(index) || facts.thread.calls.sharesResultId(index)) return undefined;
    const entry = digests?.get(message.toolCallId);
    if (entry) checkDigestEntry(message.toolCallId, entry);
    if (
      entry &&
      typeof message.content === "string" &&
      isOwnCondensedText(message.content, entry, facts, index)
    )
      return undefined;
    const text =
      entry && facts.thread.hashAt(index) === entry.contentSha256 ? entry.digest : budgetStubOf(facts, index);
    return text === undefined ? undefined : withContent(message, text);
  };
}

/**
 * Past the budget, a digest the view shows (`shown`: substituted by this assembly, the row's
 * own digest already in the thread, or put in place by the backstop) gives way to its
 * figures-only form.
 */
function shrinker(facts: ThreadFacts, digests: DigestMap | null | undefined) {
  return (index: number, shown: Message): Message | undefined => {
    const message = facts.thread.messages[index] as Message;
    // Stryker disable next-line ConditionalExpression: equivalent — the backstop asks for results only
    if (message.role !== "tool" || facts.thread.calls.sharesResultId(index)) return undefined;
    const entry = digests?.get(message.toolCallId);
    if (!entry || shown.content !== entry.digest) return undefined;
    const text = figuresOnlyOf(entry, message.toolCallId);
    return text === undefined ? undefined : withContent(message, text);
  };
}

/**
 * Whether `read_original` can name the result at `index` by its id: not an empty id, nor
 * one another result of the thread carries (the tool refuses both).
 */
function hasOwnId(facts: ThreadFacts, index: number): boolean {
  const message = facts.thread.messages[index] as Message;
  return message.role === "tool" && message.toolCallId !== "" && !facts.thread.calls.sharesResultId(index);
}

/**
 * The note's line for a dropped result: one with a digest (shown in the view, or its
 * row's, hash-matched) gives its figures and re-read calls instead of a snippet; with the
 * `read_original` tool, any other result's snippet names the call returning it. A result
 * without an id of its own keeps the plain snippet: no handle could name it.
 */
function noteLiner(facts: ThreadFacts, digests: DigestMap | null | undefined) {
  return (index: number, shown: Message, maxChars: number): string | undefined => {
    const message = facts.thread.messages[index] as Message;
    if (message.role !== "tool" || shown.role !== "tool" || !hasOwnId(facts, index)) return undefined;
    const entry = digests?.get(message.toolCallId);
    const digest =
      typeof shown.content === "string" && shown.content.startsWith(DIGEST_HEADER)
        ? shown.content
        : entry && !facts.at(index)?.failed && facts.thread.hashAt(index) === entry.contentSha256
          ? entry.digest
          : undefined;
    const line = digest === undefined ? undefined : digestNoteLine(shown, digest, maxChars);
    if (line !== undefined || facts.readOriginal === undefined) return line;
    return snippet(shown, maxChars, renderOriginalHandle(message.toolCallId, facts.readOriginal));
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
  // Stryker disable next-line ObjectLiteral: equivalent — an empty record never matches
  figuresOnlyByEntry.set(entry, { digest: entry.digest, toolCallId, text });
  return text;
}

// Per tool call: its budget stub, for the args and tool rule it was rendered for (the policy
// may change; the thread index re-reads args replaced on the same call). A result pairs with
// its call by id, so the call fixes the id the stub names.
const budgetStubByCall = new WeakMap<
  ToolCall,
  { argsJson: string | undefined; rule: ToolRule; readOriginal: string | undefined; text: string }
>();

/** The backstop's stand-in for the result at `index`, naming the call that re-reads it; undefined without a call. */
function budgetStubOf(facts: ThreadFacts, index: number): string | undefined {
  const call = facts.thread.calls.callAt(index);
  if (!call) return undefined;
  const message = facts.thread.messages[index] as ToolMessage;
  const rule = facts.policy.ruleFor(message.toolName);
  const argsJson = facts.thread.calls.callArgsJsonAt(index);
  const cached = budgetStubByCall.get(call);
  const { readOriginal } = facts;
  if (
    cached !== undefined &&
    cached.argsJson === argsJson &&
    cached.rule === rule &&
    cached.readOriginal === readOriginal
  ) {
    return cached.text;
  }
  const text = renderBudgetStub(
    renderToolCall(call, rule.provenanceArgs),
    rule.idempotent,
    message.toolCallId,
    readOriginal === undefined ? undefined : renderOriginalHandle(message.toolCallId, readOriginal),
  );
  // Stryker disable next-line ObjectLiteral: equivalent — an empty record never matches
  budgetStubByCall.set(call, { argsJson, rule, readOriginal, text });
  return text;
}

/** How one assembly cleans: its wall, inline cleaning, and the cache context. */
export interface CleanOptions {
  wallStart: number;
  inline: boolean;
  /**
   * Only results before it serve as a duplicate's later copy or a failed call's retry, and
   * only the window's messages up to it (inclusive) name results for the keep-rules.
   */
  evidenceEnd: number;
  /** The cache context, resolved; undefined for a cache-unaware assembly. */
  cache?: ResolvedCache | undefined;
  /** Tool call ids the previous view showed condensed (sticky). */
  shown?: ReadonlySet<string> | undefined;
  /** The backstop's budget: a warm batch lands as far as needed to keep the view within it. */
  budget: number;
  /** Relief inside the turn under way (./watermark); undefined: none. */
  watermark?: ResolvedWatermark | undefined;
  /** Rows that arrived mid-turn (`cache.midTurnDigests`, with their handles): watermark batches alone read them. */
  midTurnDigests?: DigestMap | undefined;
}

/** The in-turn results condensed in this view: those an earlier batch condensed, and this call's batch. */
interface TurnRelief {
  sticky: Condensation[];
  landed: Condensation[];
  outcome: BatchOutcome | undefined;
}

/**
 * Relief inside the turn under way (./watermark), cache-aware only: the results of the turn
 * before its latest exchanges that an earlier call showed condensed stay so; the rest of
 * them land in one batch when the view (`viewChars`, with everything else cleaning decided)
 * passes the budget (the high water), or, past `startRatio` of it and while no thinking
 * would be lost, when the cost gate finds the batch pays at the runtime's tariff: its
 * saving over the expected calls beats rewriting what the previous call had sent after its
 * first result. While the latest
 * assistant message of the loop carries thinking no batch lands, unless the runtime lets the
 * provider drop it (then at the high water only); past the high water, the results after
 * that message arrive condensed instead ({@link arrivalRelief}).
 */
function turnRelief(
  facts: ThreadFacts,
  digests: DigestMap | null | undefined,
  options: CleanOptions,
  viewChars: number,
): TurnRelief {
  const { watermark, cache } = options;
  const relief: TurnRelief = { sticky: [], landed: [], outcome: undefined };
  if (watermark === undefined || cache === undefined) return relief;
  const { thread } = facts;
  const inner = innerWallOf(thread.messages, options.wallStart, watermark.keepExchanges);
  const fresh: Condensation[] = [];
  let chars = viewChars;
  const rows = turnRows(digests, options.midTurnDigests);
  for (const index of facts.results) {
    if (index < options.wallStart) continue;
    if (index >= inner) break;
    const condensed = inTurnCondensation(facts, rows, index);
    if (condensed === undefined) continue;
    const found: Condensation = { index, kind: condensed.kind, text: condensed.text };
    if (options.shown?.has(facts.message(index).toolCallId)) {
      relief.sticky.push(found);
      chars -= savedBy(thread, found);
    } else fresh.push(found);
  }
  const thinking = continuesThinkingLoop(thread.messages);
  const overBudget = chars > options.budget;
  if (thinking && overBudget && !watermark.dropLatestThinking) {
    return arrivalRelief(facts, rows, options, relief, fresh);
  }
  if (fresh.length === 0) return relief;
  const saved = savedByAll(thread, fresh);
  const pays =
    !thinking &&
    !overBudget &&
    chars > options.budget * watermark.startRatio &&
    batchPays(facts, options, cache, fresh, saved);
  if (!overBudget && !pays) return relief;
  // With thinking on the latest assistant message, only a batch the provider may drop it for gets here.
  relief.landed = fresh;
  relief.outcome = batchOutcome("applied", "watermark", thread, fresh, 0);
  return relief;
}

/**
 * Past the budget while the latest assistant message's thinking holds the batch back: the
 * results after that message, new at this call, arrive condensed (nothing before it
 * changes, so no thinking is invalidated), and stay so on later calls (`cache.shown`). A
 * result whose call repeats an earlier one (same tool and args: the agent reading again
 * what it was shown condensed) and a `read_original` result arrive whole.
 */
function arrivalRelief(
  facts: ThreadFacts,
  rows: Pick<DigestMap, "get"> | null | undefined,
  options: CleanOptions,
  relief: TurnRelief,
  deferred: readonly Condensation[],
): TurnRelief {
  const { thread } = facts;
  const latest = latestLoopAssistant(thread.messages);
  // The results after the latest assistant message: the last ones of the thread.
  const { results } = facts;
  let first = results.length;
  while (first > 0 && (results[first - 1] as number) > latest) first--;
  for (const index of results.slice(first)) {
    const group = facts.at(index)?.groupKey;
    if (group !== undefined && facts.inline.repeatsEarlier(index, group)) continue;
    const message = facts.message(index);
    if (message.toolName === facts.readOriginal || options.shown?.has(message.toolCallId)) continue;
    const condensed = inTurnCondensation(facts, rows, index);
    if (condensed !== undefined) relief.landed.push({ index, kind: condensed.kind, text: condensed.text });
  }
  if (relief.landed.length > 0) {
    relief.outcome = batchOutcome("applied", "arrival", thread, relief.landed, deferred.length);
  } else if (deferred.length > 0) {
    relief.outcome = batchOutcome("deferred", "thinking", thread, deferred, deferred.length);
  }
  return relief;
}

/**
 * The rows a watermark batch reads: the turn's own, then those that arrived mid-turn (the
 * integration leaves out of these the ids an earlier call showed condensed before they came).
 */
function turnRows(
  digests: DigestMap | null | undefined,
  midTurn: DigestMap | undefined,
): Pick<DigestMap, "get"> | null | undefined {
  if (midTurn === undefined || midTurn.size === 0) return digests;
  return { get: (toolCallId) => digests?.get(toolCallId) ?? midTurn.get(toolCallId) };
}

/**
 * Whether an in-turn batch pays at the tariff: what it saves on every expected call, read
 * from the cache, against rewriting what follows its first result up to the latest
 * assistant message (which, and what comes after it, is new at this call and written anyway).
 */
function batchPays(
  facts: ThreadFacts,
  options: CleanOptions,
  cache: ResolvedCache,
  fresh: readonly Condensation[],
  saved: number,
): boolean {
  const { thread } = facts;
  const first = (fresh[0] as Condensation).index;
  const latest = latestLoopAssistant(thread.messages);
  const end = latest < 0 ? thread.length : latest;
  let rewritten = 0;
  for (let index = first; index < end; index++) rewritten += thread.chars[index] as number;
  rewritten -= saved;
  const expectedCalls = cache.expectedCalls ?? expectedCallsOf(thread.messages, options.evidenceEnd);
  const { read, write } = cache.prices;
  return saved * expectedCalls * read > rewritten * (write - read);
}

/**
 * Keep-rules, inline stubs and hash-gated substitution (steps 2–4 of
 * docs/architecture.md#assembly) over facts kept across calls, with the cache policy's
 * sticky condensations and batch (docs/architecture.md#prompt-cache).
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: steps 2–4 of assembly in their documented order, each a call; splitting would scatter the order
export function cleanView(
  messages: readonly Message[],
  facts: ThreadFacts,
  digests: DigestMap | null | undefined,
  options: CleanOptions,
  counts: CleaningCounts,
): CleanedView {
  const protection = protectWindow(facts, options.wallStart, options.evidenceEnd + 1);
  counts.protected = protection.protectedResults;
  const decisions: Decisions = { replaced: new Map(), decided: new Set(), stubTargets: new Map() };
  const kinds = new Map<number, CleaningKind>();
  const stickyTexts = new Map<number, string>();
  const sticky: Condensation[] = [];
  const batch: Condensation[] = [];
  for (const found of [...condensations(facts, digests, protection, options, counts).values()].sort(
    (a, b) => a.index - b.index,
  )) {
    if (found.text === undefined || options.shown?.has(facts.message(found.index).toolCallId)) {
      sticky.push(found);
      if (found.text !== undefined) stickyTexts.set(found.index, found.text);
    } else batch.push(found);
  }
  const { landed, outcome } = landBatch(
    batch,
    facts.thread,
    stickyTexts,
    options.cache,
    options.budget,
    options.evidenceEnd,
  );
  let viewChars = facts.thread.totalChars;
  for (const found of [...sticky, ...landed])
    if (found.text !== undefined) viewChars -= savedBy(facts.thread, found);
  const relief = turnRelief(facts, digests, options, viewChars);
  // Results the thread already holds as cleaning condenses them (an earlier assembly's view).
  const alreadyCondensed = new Set<number>();
  for (const found of [...sticky, ...landed, ...relief.sticky, ...relief.landed]) {
    kinds.set(found.index, found.kind);
    if (found.text === undefined) alreadyCondensed.add(found.index);
    if (found.target !== undefined) {
      decisions.decided.add(found.index);
      decisions.stubTargets.set(found.index, found.target);
    }
    if (found.text === undefined) continue;
    decisions.replaced.set(found.index, found.text);
    if (found.kind === "duplicate") counts.stubs.duplicate++;
    else if (found.kind === "error-retry") counts.stubs.errorRetry++;
    else counts.substitutions++;
  }
  const { thread } = facts;
  const view = swapContents(messages, thread, decisions.replaced, counts);
  const pinnedSet = new Set([...protection.referenced, ...protection.mentioned]);
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
    // result would change what the window refers to (another page would become its
    // document's latest), so assembling the view again would keep what this pass cleaned. A kept stub keeps what it points to; the targets come
    // from this assembly's decisions.
    hints: {
      pinned,
      stubTargets: decisions.stubTargets,
      condense: condenser(facts, digests, alreadyCondensed),
      shrink: shrinker(facts, digests),
      condensesEarly: (index) => !pinnedSet.has(index) && condensesEarly(protection.reasonAt(index)),
      noteLine: noteLiner(facts, digests),
      noteHandle:
        facts.readOriginal === undefined
          ? undefined
          : (index) =>
              hasOwnId(facts, index)
                ? renderOriginalHandle(facts.message(index).toolCallId, facts.readOriginal as string)
                : undefined,
    },
    kinds,
    batch: relief.outcome ?? outcome,
  };
}
