const NONE: readonly number[] = Object.freeze([]);

/**
 * Positions by key, each list ascending as positions are added in order. Most keys of a
 * thread (a tool call id, the args of a call made once) have one position: it is held
 * without an array.
 */
export class PositionLists {
  private readonly lists = new Map<string, number | number[]>();

  add(key: string, position: number): void {
    const found = this.lists.get(key);
    if (found === undefined) this.lists.set(key, position);
    else if (typeof found === "number") this.lists.set(key, [found, position]);
    else found.push(position);
  }

  /** Calls `visit` with each position of `key`, in order, without building a list. */
  forEach(key: string, visit: (position: number) => void): void {
    const found = this.lists.get(key);
    if (found === undefined) return;
    if (typeof found === "number") visit(found);
    else for (const position of found) visit(position);
  }

  get(key: string): readonly number[] {
    const found = this.lists.get(key);
    if (found === undefined) return NONE;
    return typeof found === "number" ? [found] : found;
  }
}
