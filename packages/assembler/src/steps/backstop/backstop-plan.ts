import { contentChars } from "../../content";
import { NOTE_HEADER_CHARS, noteHeaderLength, renderNote, snippet } from "../../contract/compaction-note";
import { messageChars } from "../../contract/message-chars";
import type { Message, UserMessage } from "../../types";
import type { BackstopHints, BackstopResult, BackstopSettings, BackstopView } from "./backstop-view";
import { UnitMarks } from "./unit-marks";

/** Which messages the backstop drops or condenses, and the view's size as it goes. */
export class DropPlan {
  readonly dropped: Uint8Array;
  droppedCount = 0;
  total: number;
  readonly condensed = new Map<number, Message>();
  private readonly marks: UnitMarks;

  constructor(
    private readonly view: BackstopView,
    private readonly settings: BackstopSettings,
    private readonly hints: BackstopHints,
  ) {
    this.dropped = new Uint8Array(view.messages.length);
    this.total = view.chars;
    this.marks = new UnitMarks(view, settings.noteMaxChars, hints);
  }

  /** With `room`, the note may hold a snippet per dropped message (up to noteMaxChars); without, it is its header alone. */
  fits(room = false): boolean {
    const { budget, snippetChars, noteMaxChars } = this.settings;
    if (this.droppedCount === 0) return this.total <= budget;
    const note = room
      ? Math.min(noteMaxChars, NOTE_HEADER_CHARS + this.droppedCount * (snippetChars + 1))
      : noteHeaderLength(this.droppedCount);
    return this.total + note <= budget;
  }

  private sizeAt(index: number): number {
    const standIn = this.condensed.get(index);
    if (standIn !== undefined) return messageChars(standIn);
    return this.view.replaced.has(index)
      ? messageChars(this.view.messages[index] as Message)
      : (this.view.thread.chars[index] as number);
  }

  private drop(unit: number): void {
    for (const member of this.view.thread.units.members(unit)) {
      this.dropped[member] = 1;
      this.total -= this.sizeAt(member);
      this.droppedCount++;
    }
  }

  /** Drops the oldest units before the wall that `kept` does not keep until the view fits. */
  dropOldest(kept: "held" | "fixed", room: boolean): void {
    const { units } = this.view.thread;
    const keeps =
      kept === "held"
        ? (unit: number) => this.marks.isHeld(unit)
        : (unit: number) => this.marks.isFixed(unit);
    // Stryker disable next-line EqualityOperator: equivalent — units from the wall on are fixed, kept
    for (let unit = 0; unit < this.view.wallStart && !this.fits(room); unit++) {
      if (units.isUnit(unit) && !keeps(unit) && this.dropped[unit] === 0) this.drop(unit);
    }
    this.dropStubsOfDroppedTargets();
  }

  /** A kept stub whose target went with an earlier-starting interleaved unit goes too. */
  private dropStubsOfDroppedTargets(): void {
    const stubTargets = this.hints.stubTargets;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — no stubs, no change
    for (let changed = (stubTargets?.size ?? 0) > 0; changed; ) {
      changed = false;
      // Stryker disable next-line ArrayDeclaration: equivalent — runs only with stub targets
      for (const [stub, target] of stubTargets ?? []) {
        const unit = this.view.thread.units.unitOf(stub);
        if (this.dropped[stub] === 0 && this.dropped[target] === 1 && !this.marks.isFixed(unit)) {
          this.drop(unit);
          changed = true;
        }
      }
    }
  }

  /**
   * Condenses the results before the wall that the view holds as the thread has them and
   * that `condensesEarly` allows (by default: not pinned), but for the target of a stub
   * still in the view (neither dropped nor condensed), latest first (the view's unchanged
   * prefix stays as long as it can), while the view does not fit: a stand-in naming the
   * re-read call (or the result's digest) gives back nearly all of a raw result's chars,
   * where dropping exchanges of digests loses many results' facts for the same room. A
   * result is condensed alone, whatever unit it is in: its call keeps its result. Run again
   * after units are dropped or stubs condensed, it condenses the targets their stubs no
   * longer point to, as an assembly of the view without those stubs would.
   */
  condenseRaw(): void {
    const { condense } = this.hints;
    if (!condense) return;
    const { thread, wallStart, replaced } = this.view;
    const pinned = new Set(this.hints.pinned);
    const early = this.hints.condensesEarly ?? ((index: number) => !pinned.has(index));
    const targets = this.keptStubTargets();
    for (let index = wallStart - 1; index >= 0 && !this.fits(); index--) {
      if (
        // Stryker disable next-line OptionalChaining: equivalent — `index` is before the wall
        thread.messages[index]?.role !== "tool" ||
        replaced.has(index) ||
        this.dropped[index] === 1 ||
        // Stryker disable next-line ConditionalExpression: equivalent — saves calls: a condensed result stays
        this.condensed.has(index) ||
        targets.has(index) ||
        !early(index)
      )
        continue;
      this.condenseAt(index, condense);
    }
  }

  /** The results the stubs still in the view point to (a dropped or condensed stub points to nothing). */
  private keptStubTargets(): Set<number> {
    const targets = new Set<number>();
    for (const [stub, target] of this.hints.stubTargets ?? []) {
      if (this.dropped[stub] === 0 && !this.condensed.has(stub)) targets.add(target);
    }
    return targets;
  }

  /**
   * Cuts the digests before the wall down to their figures-only form, oldest first, while
   * the view does not fit: the figures and the re-read call stay, where dropping the
   * exchange would keep a snippet. A digest the backstop itself put in place is cut too, so
   * a view the backstop left over the budget holds no digest a second assembly would cut.
   */
  shrinkDigests(): void {
    const { shrink } = this.hints;
    if (!shrink) return;
    const { thread, wallStart } = this.view;
    for (let index = 0; index < wallStart && !this.fits(); index++) {
      // A guard that saves calls: `shrink` gives what it gave before (nothing for a non-result).
      // Stryker disable next-line ConditionalExpression,LogicalOperator,OptionalChaining: equivalent
      if (thread.messages[index]?.role !== "tool" || this.dropped[index] === 1) continue;
      const shown = this.condensed.get(index) ?? (this.view.messages[index] as Message);
      this.condenseAt(index, (at) => shrink(at, shown));
    }
  }

  /** Condenses pinned results before the wall, oldest first, while the view does not fit. */
  condensePinned(): void {
    const { condense, pinned } = this.hints;
    if (!condense) return;
    for (const index of pinned) {
      if (this.fits()) break;
      if (this.dropped[index] === 1) continue;
      this.condenseAt(index, condense);
    }
  }

  /** Puts the stand-in `condense` gives for the result at `index` in its place, when it is shorter. */
  private condenseAt(index: number, condense: (index: number) => Message | undefined): void {
    const standIn = condense(index);
    if (standIn === undefined) return;
    const [before, size] = [this.sizeAt(index), messageChars(standIn)];
    if (size >= before) return;
    this.condensed.set(index, standIn);
    this.total -= before - size;
  }

  /** The `read_original` handle of a dropped result for the note; undefined when the tool is off. */
  get noteHandle(): ((index: number) => string | undefined) | undefined {
    return this.hints.noteHandle;
  }

  /** The snippet of the view message at `index` for the note. */
  snippetAt(index: number): string {
    const standIn = this.condensed.get(index);
    const line = this.hints.noteLine?.(
      index,
      standIn ?? (this.view.messages[index] as Message),
      this.settings.snippetChars,
    );
    if (line !== undefined) return line;
    if (standIn !== undefined) return snippet(standIn, this.settings.snippetChars);
    return this.view.replaced.has(index)
      ? snippet(this.view.messages[index] as Message, this.settings.snippetChars)
      : this.view.thread.snippetAt(index, this.settings.snippetChars);
  }
}

/** The compacted view: condensed stand-ins in place, and the note where the first dropped message stood. */
function compactedView(view: BackstopView, plan: DropPlan, settings: BackstopSettings): BackstopResult {
  const { dropped, droppedCount, condensed } = plan;
  const result: Message[] = [];
  let condensedResults = 0;
  let note: UserMessage | undefined;
  if (droppedCount > 0) {
    const noteChars = Math.min(settings.noteMaxChars, settings.budget - plan.total);
    note = {
      role: "user",
      content: renderNote(
        dropped,
        droppedCount,
        noteChars,
        (index) => plan.snippetAt(index),
        plan.noteHandle,
      ),
    };
    plan.total += note.content.length;
  }
  const firstDropped = note ? dropped.indexOf(1) : -1;
  view.messages.forEach((message, position) => {
    if (position === firstDropped) result.push(note as UserMessage);
    if (dropped[position] === 1) return;
    const standIn = condensed.get(position);
    result.push(standIn ?? message);
    if (standIn !== undefined) condensedResults++;
  });
  return {
    messages: result,
    fired: true,
    droppedMessages: droppedCount,
    condensedResults,
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — runBackstop sets both
    wallExceedsBudget: plan.total > settings.budget,
    latestExchangeExceedsBudget: false,
    chars: plan.total,
    // Stryker disable next-line BooleanLiteral: equivalent — runBackstop sets it
    cutNow: false,
    dropped,
    condensed,
  };
}

/** The plan's steps run against `budget` (the view's chars it must fit), its result built. */
function planFor(
  view: BackstopView,
  settings: BackstopSettings,
  hints: BackstopHints,
  budget: number,
): BackstopResult | undefined {
  const planned = { ...settings, budget };
  const plan = new DropPlan(view, planned, hints);
  // Each step does nothing once the view fits. A view still over the budget after them all
  // holds nothing a second run would condense, shrink or drop: the condensing steps run
  // again, in their order, over what the drops and the pinned results' stand-ins leave
  // (targets of stubs that went, digests just put in place, cut to their figures before a
  // pinned result is condensed), so assembling the view again changes nothing.
  const steps = [
    () => plan.condenseRaw(),
    () => plan.shrinkDigests(),
    () => plan.dropOldest("held", true),
    () => plan.condenseRaw(),
    () => plan.shrinkDigests(),
    () => plan.condensePinned(),
    () => plan.condenseRaw(),
    () => plan.shrinkDigests(),
    // Stryker disable next-line StringLiteral: equivalent — any `kept` but "held" keeps the fixed units only
    () => plan.dropOldest("fixed", false),
    () => plan.condenseRaw(),
    () => plan.shrinkDigests(),
  ];
  for (const step of steps) {
    // Stryker disable next-line ConditionalExpression: equivalent — each step does nothing once the view fits
    if (plan.fits()) break;
    step();
  }
  if (plan.droppedCount === 0 && plan.condensed.size === 0) return undefined;
  return compactedView(view, plan, planned);
}

/**
 * The prompt lengths of the current turn's model calls, as far as the thread shows them:
 * the turn's first call (up to its user message, or the wall's start when that is later),
 * one before each later assistant message, and the whole thread. Every message past the
 * first is in the recency wall.
 */
/**
 * Chars of the view's message at `index`: the thread's, with a replaced result's text in
 * place. The replay takes a call's prompt as this view less what later calls added, so
 * what they added is counted as this view shows it (a result shown condensed since it
 * arrived, above all).
 */
function viewCharsAt(view: BackstopView, index: number): number {
  const chars = view.thread.chars[index] as number;
  if (!view.replaced.has(index)) return chars;
  const own = (view.thread.messages[index] as Message).content;
  return chars - contentChars(own) + contentChars((view.messages[index] as Message).content);
}

function turnCallLengths(view: BackstopView): number[] {
  const { messages } = view.thread;
  let user = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if ((messages[index] as Message).role === "user") {
      user = index;
      break;
    }
  }
  const first = Math.max(user + 1, view.wallStart);
  const lengths: number[] = [];
  for (let length = first; length < messages.length; length++) {
    if (length === first || (messages[length] as Message).role === "assistant") lengths.push(length);
  }
  lengths.push(messages.length);
  return lengths;
}

/**
 * The fewest chars the backstop can bring the latest assistant message's exchange down to
 * (its members before the wall; the unit is never dropped), each result at its shortest
 * form the steps may give it: condensed when a condensing step may take it, then cut to its
 * figures. A failed result, or one the keep-rules keep as it is, stays whole. 0 when the
 * wall holds the latest assistant message.
 */
function latestExchangeFloor(view: BackstopView, hints: BackstopHints): number {
  const { thread, wallStart, replaced } = view;
  const { units } = thread;
  const latest = units.turnOpeningAssistant;
  if (latest < 0 || latest >= wallStart) return 0;
  const pinned = new Set(hints.pinned);
  const early = hints.condensesEarly ?? ((index: number) => !pinned.has(index));
  let floor = 0;
  for (const index of units.members(units.unitOf(latest))) {
    if (index >= wallStart) continue;
    let shown = view.messages[index] as Message;
    let size = messageChars(shown);
    if (shown.role === "tool") {
      const condensable = pinned.has(index) || (!replaced.has(index) && early(index));
      const standIn = condensable ? hints.condense?.(index) : undefined;
      if (standIn !== undefined && messageChars(standIn) < size) {
        shown = standIn;
        size = messageChars(standIn);
      }
      const cut = hints.shrink?.(index, shown);
      if (cut !== undefined) size = Math.min(size, messageChars(cut));
    }
    floor += size;
  }
  return floor;
}

/**
 * The history-compaction backstop over a view of an indexed thread (docs/architecture.md#assembly;
 * see `compactHistory` for the order of its steps). It replays the current turn's model
 * calls (the thread's prompts from the turn's first call on, each the one before grown by
 * messages of the wall; with `appendWithinTurn`, the turn's first call alone, so the
 * turn's later calls append to its cut, whatever they add):
 * - while a call's view fits the budget with the cut already made in the turn (none at
 *   first), that cut stays as it is, so the turn's later calls append to the same prefix;
 * - when a call's view goes over the budget, a new cut brings it down to the low-water
 *   mark (`lowWater`), so the calls after it append without cutting again;
 * - when even that cannot fit the budget (what is never removed, the recency wall and the
 *   latest assistant message's exchange at its shortest above all, exceeds it), nothing
 *   more is cut for it: the history besides them is only kept within the budget on its own
 *   (`wallExceedsBudget`; `latestExchangeExceedsBudget` when the wall alone fits).
 * Its cost past the budget is linear in the messages before the wall, with no work per
 * char but the note's snippets.
 */
export function runBackstop(
  view: BackstopView,
  settings: BackstopSettings,
  hints: BackstopHints,
): BackstopResult {
  const unchanged: BackstopResult = {
    messages: view.messages,
    fired: false,
    droppedMessages: 0,
    condensedResults: 0,
    // Stryker disable next-line BooleanLiteral: equivalent — set from `verdict` on return
    wallExceedsBudget: false,
    // Stryker disable next-line BooleanLiteral: equivalent — set from `verdict` on return
    latestExchangeExceedsBudget: false,
    chars: view.chars,
    cutNow: false,
  };
  const { budget } = settings;
  const { thread, wallStart } = view;
  const lengths = turnCallLengths(view);
  // Chars of the view from each call's prompt length on (the wall's messages, as the thread has them).
  // Stryker disable next-line ArrowFunction: equivalent — the loop below sets every call's entry
  const tails = lengths.map(() => 0);
  let tail = 0;
  let position = thread.length;
  // Stryker disable next-line ArithmeticOperator: equivalent — a call past the last adds nothing
  for (let call = lengths.length - 1; call >= 0; call--) {
    for (; position > (lengths[call] as number); position--) tail += viewCharsAt(view, position - 1);
    tails[call] = tail;
  }
  let wallChars = 0;
  for (let index = wallStart; index < thread.length; index++) wallChars += viewCharsAt(view, index);
  // What no cut removes besides the wall: the latest assistant message's exchange, at its
  // shortest (measured only for a view over the budget).
  let floor: number | undefined;
  const latestFloor = () => {
    floor ??= latestExchangeFloor(view, hints);
    return floor;
  };
  // The view is over the budget with the wall alone within it: the kept latest exchange leaves no room.
  const verdict = (chars: number) => ({
    wallExceedsBudget: chars > budget,
    latestExchangeExceedsBudget: chars > budget && wallChars <= budget && wallChars + latestFloor() > budget,
  });
  let cut: BackstopResult | undefined;
  // Stryker disable next-line UnaryOperator: equivalent — read only once a cut sets it
  let cutAt = -1;
  const calls = settings.appendWithinTurn ? 1 : lengths.length;
  for (let call = 0; call < calls; call++) {
    const growth = tails[call] as number;
    const chars = (cut ? cut.chars : view.chars) - growth;
    if (chars <= budget) continue;
    const fit = planFor(view, settings, hints, Math.min(settings.lowWater, budget) + growth);
    if (fit && fit.chars - growth <= budget) {
      cut = fit;
      cutAt = call;
      continue;
    }
    // The wall (with what else is never removed: the latest exchange at its shortest)
    // exceeds the budget: nothing outside them is cut for that. The history besides them
    // stays within the budget; past this call both grow by the same messages, so the bound
    // holds for the rest of the turn.
    const history = budget + wallChars + latestFloor() - growth;
    if (chars > history) {
      cut = planFor(view, settings, hints, history + growth) ?? cut;
      cutAt = call;
    }
    break;
  }
  if (!cut) return { ...unchanged, ...verdict(view.chars) };
  return { ...cut, ...verdict(cut.chars), cutNow: cutAt === lengths.length - 1 };
}
