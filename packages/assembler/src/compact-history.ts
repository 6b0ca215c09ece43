import { isCompactionNote, NOTE_HEADER_CHARS, noteHeader, renderNote } from "./compaction-note";
import { exchangeUnits } from "./exchange-units";
import { messageChars } from "./message-chars";
import type { Message, UserMessage } from "./types";

/** Defaults of the history-compaction backstop (docs/architecture.md#assembly). */
export const COMPACTION_DEFAULTS = {
  /** Past this many chars, the oldest whole exchanges are dropped. */
  historyBudgetChars: 320_000,
  /** Each dropped message is remembered by a snippet of at most this many chars. */
  snippetChars: 300,
  /** The note standing for dropped history never exceeds this many chars. */
  noteMaxChars: 12_000,
} as const;

export interface CompactionOptions {
  /** @default 320000 */
  historyBudgetChars?: number;
  /** @default 300 */
  snippetChars?: number;
  /** @default 12000 */
  noteMaxChars?: number;
}

/** What the assembler knows of a view that the backstop must respect. */
export interface CompactionHints {
  /**
   * Messages that must not be dropped (the assembler pins results the recency window
   * references: the referenced-by-window keep-rule); an exchange holding one is kept whole.
   */
  pinned?: (index: number) => boolean;
  /**
   * Per stub index, the index of the later result it points to ("identical to … below",
   * "retried … below"), from the assembly's own stub decisions: a kept stub keeps its target.
   */
  stubTargets?: ReadonlyMap<number, number>;
  /**
   * A condensed stand-in for a pinned result before the recency wall (its digest, or a stub
   * naming its re-read call), used only when dropping every unpinned exchange does not fit
   * the budget; undefined keeps the result as it is.
   */
  condense?: (index: number) => Message | undefined;
}

export interface CompactionResult {
  messages: readonly Message[];
  /** Whether anything was dropped or condensed. */
  fired: boolean;
  droppedMessages: number;
  /** Pinned results replaced by their condensed stand-in. */
  condensedResults: number;
  /**
   * True when the view is still over the budget: what the backstop never removes (the
   * recency wall, system messages and notes, with this pass's note header) exceeds it.
   */
  wallExceedsBudget: boolean;
}

/** The units of a view and which of them the backstop must keep. */
interface UnitMarks {
  units: number[][];
  unitOf: Int32Array;
  /** Units never removed: any member in the wall, system messages, earlier notes. */
  fixed: Uint8Array;
  /** Units holding a pinned message, and every fixed unit. */
  held: Uint8Array;
}

/**
 * Marks the fixed and held units. Each also holds, transitively, the units of what its
 * stubs point to ("identical to … below", "retried … below").
 */
function markUnits(
  messages: readonly Message[],
  wallStart: number,
  noteMaxChars: number,
  hints: CompactionHints,
): UnitMarks {
  const { pinned, stubTargets } = hints;
  const { units, unitOf } = exchangeUnits(messages);
  const fixed = new Uint8Array(units.length);
  const held = new Uint8Array(units.length);
  units.forEach((members, unit) => {
    const first = messages[members[0] as number] as Message;
    if (
      (members.at(-1) as number) >= wallStart ||
      first.role === "system" ||
      isCompactionNote(first, noteMaxChars)
    ) {
      fixed[unit] = 1;
      held[unit] = 1;
    } else if (members.some((member) => pinned?.(member) ?? false)) {
      held[unit] = 1;
    }
  });
  const marks = { units, unitOf, fixed, held };
  closeOverStubTargets(marks, fixed, stubTargets);
  closeOverStubTargets(marks, held, stubTargets);
  return marks;
}

/** Marks, transitively, the unit of every later result a stub in a marked unit points to. */
function closeOverStubTargets(
  { units, unitOf }: Pick<UnitMarks, "units" | "unitOf">,
  marks: Uint8Array,
  stubTargets: ReadonlyMap<number, number> | undefined,
): void {
  const pending: number[] = [];
  marks.forEach((mark, unit) => {
    if (mark === 1) pending.push(unit);
  });
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const member of units[next] as number[]) {
      const target = stubTargets?.get(member);
      if (target === undefined || target <= member) continue;
      const unit = unitOf[target] as number;
      if (marks[unit] === 1) continue;
      marks[unit] = 1;
      pending.push(unit);
    }
  }
}

/** Which messages the backstop drops, and the view's size as it goes. */
class DropPlan {
  readonly dropped: Uint8Array;
  droppedCount = 0;

  constructor(
    private readonly marks: UnitMarks,
    readonly sizes: number[],
    public total: number,
    private readonly wallStart: number,
    private readonly settings: { budget: number; snippetChars: number; noteMaxChars: number },
    private readonly stubTargets: ReadonlyMap<number, number> | undefined,
  ) {
    this.dropped = new Uint8Array(sizes.length);
  }

  /** With `room`, the note may hold a snippet per dropped message (up to noteMaxChars); without, it is its header alone. */
  fits(room = false): boolean {
    const { budget, snippetChars, noteMaxChars } = this.settings;
    if (this.droppedCount === 0) return this.total <= budget;
    const note = room
      ? Math.min(noteMaxChars, NOTE_HEADER_CHARS + this.droppedCount * (snippetChars + 1))
      : noteHeader(this.droppedCount).length;
    return this.total + note <= budget;
  }

  private drop(unit: number): void {
    for (const member of this.marks.units[unit] as number[]) {
      this.dropped[member] = 1;
      this.total -= this.sizes[member] as number;
      this.droppedCount++;
    }
  }

  /** Drops the oldest units that `keep` does not keep until the view fits. */
  dropOldest(keep: Uint8Array, room: boolean): void {
    const { units } = this.marks;
    for (let unit = 0; unit < units.length && !this.fits(room); unit++) {
      if ((units[unit]?.[0] as number) >= this.wallStart) break;
      if (keep[unit] === 0 && this.dropped[units[unit]?.[0] as number] === 0) this.drop(unit);
    }
    this.dropStubsOfDroppedTargets();
  }

  /** A kept stub whose target went with an earlier-starting interleaved unit goes too. */
  private dropStubsOfDroppedTargets(): void {
    const { unitOf, fixed } = this.marks;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; without stub targets the pass finds nothing to drop
    for (let changed = (this.stubTargets?.size ?? 0) > 0; changed; ) {
      changed = false;
      for (const [stub, target] of this.stubTargets ?? []) {
        const unit = unitOf[stub] as number;
        if (this.dropped[stub] === 0 && this.dropped[target] === 1 && fixed[unit] === 0) {
          this.drop(unit);
          changed = true;
        }
      }
    }
  }

  /** Condenses pinned results before the wall, oldest first, while the view does not fit. */
  condensePinned(
    pinned: CompactionHints["pinned"],
    condense: NonNullable<CompactionHints["condense"]>,
  ): Map<number, Message> {
    const condensed = new Map<number, Message>();
    for (let index = 0; index < this.wallStart && !this.fits(); index++) {
      if (this.dropped[index] === 1 || !(pinned?.(index) ?? false)) continue;
      const standIn = condense(index);
      if (standIn === undefined) continue;
      const size = messageChars(standIn);
      if (size >= (this.sizes[index] as number)) continue;
      condensed.set(index, standIn);
      this.total -= (this.sizes[index] as number) - size;
      this.sizes[index] = size;
    }
    return condensed;
  }
}

function messageSizes(messages: readonly Message[]): { sizes: number[]; total: number } {
  const sizes = new Array<number>(messages.length);
  let total = 0;
  for (let index = 0; index < messages.length; index++) {
    const size = messageChars(messages[index] as Message);
    sizes[index] = size;
    total += size;
  }
  return { sizes, total };
}

/** The compacted view: condensed stand-ins in place, and the note where the first dropped message stood. */
function compactedView(
  messages: readonly Message[],
  plan: DropPlan,
  condensed: ReadonlyMap<number, Message>,
  settings: { budget: number; snippetChars: number; noteMaxChars: number },
): CompactionResult {
  const { dropped, droppedCount } = plan;
  const view = messages.map((message, index) => condensed.get(index) ?? message);
  const result: Message[] = [];
  let condensedResults = 0;
  if (droppedCount > 0) {
    const noteChars = Math.min(settings.noteMaxChars, settings.budget - plan.total);
    const note: UserMessage = {
      role: "user",
      content: renderNote(view, dropped, droppedCount, settings.snippetChars, noteChars),
    };
    plan.total += note.content.length;
    const firstDropped = dropped.indexOf(1);
    view.forEach((message, position) => {
      if (position === firstDropped) result.push(note);
      if (dropped[position] === 1) return;
      result.push(message);
      if (condensed.has(position)) condensedResults++;
    });
  } else {
    result.push(...view);
    condensedResults = condensed.size;
  }
  return {
    messages: result,
    fired: true,
    droppedMessages: droppedCount,
    condensedResults,
    wallExceedsBudget: plan.total > settings.budget,
  };
}

/**
 * The history-compaction backstop: past `historyBudgetChars`, makes the view fit, in this
 * order, touching the recency wall never:
 * 1. drops the oldest whole units before the wall (see {@link exchangeUnits}) that hold
 *    no pinned message, and puts one note of short snippets where the first one was;
 * 2. condenses pinned results before the wall, oldest first, to the stand-in
 *    `hints.condense` gives (their digest, or a stub naming their re-read call);
 * 3. drops the oldest units holding pinned results.
 * The note counts toward the budget. The view fits unless what is never removed (the wall,
 * system messages, earlier notes) leaves no room: then `wallExceedsBudget` is true.
 *
 * @param hints What must stay: pinned messages and the targets of kept stubs (text that
 * merely looks like a stub pins nothing), and how to condense a pinned result.
 */
export function compactHistory(
  messages: readonly Message[],
  wallStart: number,
  options: CompactionOptions = {},
  hints: CompactionHints = {},
): CompactionResult {
  const settings = {
    budget: options.historyBudgetChars ?? COMPACTION_DEFAULTS.historyBudgetChars,
    snippetChars: options.snippetChars ?? COMPACTION_DEFAULTS.snippetChars,
    noteMaxChars: options.noteMaxChars ?? COMPACTION_DEFAULTS.noteMaxChars,
  };
  const { sizes, total } = messageSizes(messages);
  const unchanged = (wallExceedsBudget: boolean): CompactionResult => ({
    messages,
    fired: false,
    droppedMessages: 0,
    condensedResults: 0,
    wallExceedsBudget,
  });
  // Stryker disable next-line ConditionalExpression,EqualityOperator: a shortcut; a view within budget fits the plan as it is and comes back unchanged below
  if (total <= settings.budget) return unchanged(false);

  const marks = markUnits(messages, wallStart, settings.noteMaxChars, hints);
  const plan = new DropPlan(marks, sizes, total, wallStart, settings, hints.stubTargets);
  plan.dropOldest(marks.held, true);
  const condensed =
    !plan.fits() && hints.condense ? plan.condensePinned(hints.pinned, hints.condense) : new Map();
  if (!plan.fits()) plan.dropOldest(marks.fixed, false);
  if (plan.droppedCount === 0 && condensed.size === 0) return unchanged(!plan.fits());
  return compactedView(messages, plan, condensed, settings);
}
