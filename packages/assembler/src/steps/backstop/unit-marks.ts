import type { Message } from "../../types";
import type { BackstopHints, BackstopView } from "./backstop-view";

/**
 * Which units the backstop must keep, by root: fixed ones are never removed (a member in
 * the wall, a system message, an earlier note, the latest assistant message); held ones hold a pinned message or are
 * fixed. Each also holds, transitively, the units of what its stubs point to.
 */
export class UnitMarks {
  private readonly fixed: Uint8Array;
  private readonly held: Uint8Array;

  constructor(
    private readonly view: BackstopView,
    noteMaxChars: number,
    hints: BackstopHints,
  ) {
    const { thread, wallStart } = view;
    const { units } = thread;
    this.fixed = new Uint8Array(wallStart);
    this.held = new Uint8Array(wallStart);
    for (let root = 0; root < wallStart; root++) {
      if (!units.isUnit(root)) continue;
      const message = thread.messages[root] as Message;
      const members = units.members(root);
      if (
        (members.at(-1) as number) >= wallStart ||
        message.role === "system" ||
        thread.isNote(root, noteMaxChars)
      )
        this.fixed[root] = 1;
    }
    // The latest assistant message is never dropped: its thinking blocks (and the calls
    // they precede) are what the provider checks unmodified. A wall starting at the latest
    // user message leaves out the one before it.
    const latest = units.turnOpeningAssistant;
    if (latest >= 0 && latest < wallStart) this.fixed[units.unitOf(latest)] = 1;
    for (const index of hints.pinned) this.held[units.unitOf(index)] = 1;
    const stubsByUnit = new Map<number, number[]>();
    for (const [stub, target] of hints.stubTargets ?? []) {
      if (target <= stub) continue;
      const unit = units.unitOf(stub);
      const stubs = stubsByUnit.get(unit);
      if (stubs) stubs.push(target);
      else stubsByUnit.set(unit, [target]);
    }
    this.close(stubsByUnit, (unit) => this.isFixed(unit), this.fixed);
    this.close(stubsByUnit, (unit) => this.isHeld(unit), this.held);
  }

  isFixed(unit: number): boolean {
    return unit >= this.view.wallStart || this.fixed[unit] === 1;
  }

  isHeld(unit: number): boolean {
    return this.isFixed(unit) || this.held[unit] === 1;
  }

  /** Marks, transitively, the unit of every later result a stub in a marked unit points to. */
  private close(
    stubsByUnit: ReadonlyMap<number, number[]>,
    marked: (unit: number) => boolean,
    marks: Uint8Array,
  ) {
    const pending = [...stubsByUnit.keys()].filter(marked);
    for (let unit = pending.pop(); unit !== undefined; unit = pending.pop()) {
      for (const target of stubsByUnit.get(unit) ?? []) {
        const targetUnit = this.view.thread.units.unitOf(target);
        if (marked(targetUnit)) continue;
        marks[targetUnit] = 1;
        pending.push(targetUnit);
      }
    }
  }
}
