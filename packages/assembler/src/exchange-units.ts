import type { Message, ToolMessage } from "./types";

/**
 * The units the backstop drops whole: the connected components of tool calls and their
 * results (union-find over assistant messages and results: a result joins the assistant
 * whose call it answers, the nearest earlier one with that id, else the first later one),
 * and every other message alone. Units come in the order of their first member, each
 * listing its members in order. `A(b1,b2) b1 A'(a1) a1 b2` is two units, {A, b1, b2} and
 * {A', a1}, so dropping A' never takes b2 away from its call.
 */
export function exchangeUnits(messages: readonly Message[]): { units: number[][]; unitOf: Int32Array } {
  const parent = Int32Array.from(messages, (_, index) => index);
  const find = (index: number): number => {
    let root = index;
    while (parent[root] !== root) root = parent[root] as number;
    // Stryker disable next-line ConditionalExpression,BlockStatement: path compression only shortens later finds, the root is the same
    for (let at = index; parent[at] !== root; ) {
      const next = parent[at] as number;
      parent[at] = root;
      at = next;
    }
    return root;
  };
  // The smaller root wins, so every root is the first member of its unit.
  const union = (left: number, right: number) => {
    const [a, b] = [find(left), find(right)];
    // Stryker disable next-line ConditionalExpression: with a === b the assignment sets a root to itself
    if (a !== b) parent[Math.max(a, b)] = Math.min(a, b);
  };
  const latestCaller = new Map<string, number>();
  const unanswered: number[] = [];
  messages.forEach((message, index) => {
    if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) latestCaller.set(call.id, index);
    } else if (message.role === "tool") {
      const caller = latestCaller.get(message.toolCallId);
      if (caller !== undefined) union(caller, index);
      else unanswered.push(index);
    }
  });
  if (unanswered.length > 0) {
    const firstCaller = new Map<string, number>();
    messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      // Stryker disable next-line ArrayDeclaration: an assistant without tool calls has no call id for a result to match
      for (const call of message.toolCalls ?? [])
        if (!firstCaller.has(call.id)) firstCaller.set(call.id, index);
    });
    for (const index of unanswered) {
      const caller = firstCaller.get((messages[index] as ToolMessage).toolCallId);
      // Stryker disable next-line ConditionalExpression: a union with no caller finds no root and changes no parent
      if (caller !== undefined) union(caller, index);
    }
  }
  const units: number[][] = [];
  const unitOf = new Int32Array(messages.length);
  const unitAtRoot = new Map<number, number>();
  for (let index = 0; index < messages.length; index++) {
    const root = find(index);
    let unit = unitAtRoot.get(root);
    if (unit === undefined) {
      unit = units.length;
      unitAtRoot.set(root, unit);
      units.push([]);
    }
    (units[unit] as number[]).push(index);
    unitOf[index] = unit;
  }
  return { units, unitOf };
}
