import type { Message } from "../types";

/**
 * The units the backstop drops whole, kept for a growing thread: the connected components
 * of tool calls and their results (union-find over assistant messages and results: a
 * result joins the assistant whose call it answers, the nearest earlier one with that id,
 * else the first later one), and every other message alone. A unit is named by its root,
 * its first member, and lists its members in order. `A(b1,b2) b1 A'(a1) a1 b2` is two
 * units, {A, b1, b2} and {A', a1}, so dropping A' never takes b2 away from its call.
 */
export class UnitIndex {
  private readonly parent: number[] = [];
  /** Per root of a unit with several members, its members in order. */
  private readonly membersAt = new Map<number, number[]>();
  private readonly latestCaller = new Map<string, number>();
  /** Results of an id no call has been made for yet, waiting for the first one. */
  private readonly waiting = new Map<string, number[]>();

  get length(): number {
    return this.parent.length;
  }

  append(message: Message): void {
    const index = this.parent.length;
    this.parent.push(index);
    if (message.role === "assistant") {
      // Stryker disable next-line ArrayDeclaration: an assistant without tool calls has no call id for a result to match
      for (const call of message.toolCalls ?? []) {
        const first = !this.latestCaller.has(call.id);
        this.latestCaller.set(call.id, index);
        // Stryker disable next-line ConditionalExpression: a shortcut; the id's waiting results were taken by its first call
        if (!first) continue;
        for (const result of this.waiting.get(call.id) ?? []) this.union(index, result);
        this.waiting.delete(call.id);
      }
    } else if (message.role === "tool") {
      const caller = this.latestCaller.get(message.toolCallId);
      if (caller !== undefined) this.union(caller, index);
      else {
        const waiting = this.waiting.get(message.toolCallId);
        if (waiting) waiting.push(index);
        else this.waiting.set(message.toolCallId, [index]);
      }
    }
  }

  /** The root (first member) of the unit holding `index`. */
  unitOf(index: number): number {
    let root = index;
    while (this.parent[root] !== root) root = this.parent[root] as number;
    // Stryker disable next-line ConditionalExpression: path compression only shortens later finds, the root is the same
    for (let at = index; this.parent[at] !== root; ) {
      const next = this.parent[at] as number;
      this.parent[at] = root;
      at = next;
    }
    return root;
  }

  isUnit(index: number): boolean {
    return this.parent[index] === index;
  }

  /** The members of the unit whose root is `root`, in order. */
  members(root: number): readonly number[] {
    return this.membersAt.get(root) ?? [root];
  }

  /** The last member of the unit whose root is `root`. */
  lastMember(root: number): number {
    return this.membersAt.get(root)?.at(-1) ?? root;
  }

  // The smaller root wins, so every root is the first member of its unit.
  private union(left: number, right: number): void {
    const [a, b] = [this.unitOf(left), this.unitOf(right)];
    // Stryker disable next-line ConditionalExpression: never true; a call's waiting results and a new result are each in a unit of their own
    if (a === b) return;
    const [root, other] = a < b ? [a, b] : [b, a];
    this.parent[other] = root;
    const merged = mergeAscending(this.membersAt.get(root) ?? [root], this.membersAt.get(other) ?? [other]);
    this.membersAt.set(root, merged);
    this.membersAt.delete(other);
  }
}

function mergeAscending(left: number[], right: number[]): number[] {
  // Stryker disable next-line BlockStatement: a shortcut; the merge below gives the same order
  if ((left.at(-1) as number) < (right[0] as number)) {
    for (const index of right) left.push(index);
    return left;
  }
  const merged: number[] = [];
  let [i, j] = [0, 0];
  while (i < left.length || j < right.length) {
    if (j >= right.length || (i < left.length && (left[i] as number) < (right[j] as number)))
      merged.push(left[i++] as number);
    else merged.push(right[j++] as number);
  }
  return merged;
}

/** The exchange units of a whole thread (see {@link UnitIndex}). */
export function indexUnits(messages: readonly Message[]): UnitIndex {
  const units = new UnitIndex();
  for (const message of messages) units.append(message);
  return units;
}
