import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import type { Message } from "../types";
import { indexUnits, UnitIndex } from "./exchange-units";

/** The units of `messages` as their member lists, checked against unitOf, isUnit and lastMember. */
function unitsOf(messages: readonly Message[]): number[][] {
  const units = indexUnits(messages);
  expect(units.length).toBe(messages.length);
  const roots = messages.map((_, index) => index).filter((index) => units.isUnit(index));
  const lists = roots.map((root) => [...units.members(root)]);
  for (const [at, root] of roots.entries()) {
    const members = lists[at] as number[];
    expect(members[0]).toBe(root);
    expect(units.lastMember(root)).toBe(members.at(-1));
    for (const member of members) expect(units.unitOf(member)).toBe(root);
  }
  expect(lists.flat().sort((a, b) => a - b)).toEqual(messages.map((_, index) => index));
  return lists;
}

describe("UnitIndex", () => {
  it("keeps interleaved exchanges apart: A(b1,b2) b1 A'(a1) a1 b2 is {A, b1, b2} and {A', a1}", () => {
    const messages = [
      assistantCalling(toolCall("b1", "read"), toolCall("b2", "read")),
      toolResult("b1", "read", "one"),
      assistantCalling(toolCall("a1", "read")),
      toolResult("a1", "read", "two"),
      toolResult("b2", "read", "three"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 1, 4],
      [2, 3],
    ]);
  });

  it("puts every message that is no call or result alone", () => {
    const messages = [userMessage("a"), userMessage("b"), assistantCalling(toolCall("c", "read"))];
    expect(unitsOf(messages)).toEqual([[0], [1], [2]]);
  });

  it("joins a result to the nearest earlier call with its id", () => {
    const messages = [
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "one"),
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "two"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it("joins a result with no earlier call to the first later call with its id", () => {
    const messages = [
      userMessage("start"),
      toolResult("x", "read", "early"),
      assistantText("thinking"),
      toolResult("x", "read", "early too"),
      assistantCalling(toolCall("x", "read")),
      assistantCalling(toolCall("x", "read")),
      toolResult("x", "read", "late"),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 3, 4], [2], [5, 6]]);
  });

  it("leaves a result no call answers alone", () => {
    const messages = [toolResult("x", "read", "orphan"), assistantCalling(toolCall("y", "read"))];
    expect(unitsOf(messages)).toEqual([[0], [1]]);
  });

  it("merges chains of calls and results into one unit led by its first member", () => {
    const messages = [
      assistantCalling(toolCall("a", "read"), toolCall("b", "read")),
      assistantCalling(toolCall("c", "read"), toolCall("d", "read")),
      toolResult("c", "read", "c"),
      assistantCalling(toolCall("e", "read")),
      toolResult("e", "read", "e"),
      toolResult("a", "read", "a"),
      toolResult("b", "read", "b"),
      toolResult("d", "read", "d"),
    ];
    expect(unitsOf(messages)).toEqual([
      [0, 5, 6],
      [1, 2, 7],
      [3, 4],
    ]);
  });

  it("joins early results to their own later calls, and later results to the nearest call", () => {
    const messages = [
      userMessage("start"),
      toolResult("p", "read", "p"),
      toolResult("q", "read", "q"),
      assistantCalling(toolCall("q", "read")),
      assistantCalling(toolCall("p", "read")),
      assistantCalling(toolCall("r", "read")),
      toolResult("q", "read", "q again"),
      toolResult("p", "read", "p again"),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 4, 7], [2, 3, 6], [5]]);
  });

  it("joins one assistant's calls into one unit, in order, across results that came before it", () => {
    const messages = [
      toolResult("m", "read", "m"),
      userMessage("between"),
      toolResult("n", "read", "n"),
      assistantCalling(toolCall("m", "read"), toolCall("n", "read")),
    ];
    expect(unitsOf(messages)).toEqual([[0, 2, 3], [1]]);
  });

  it("finds every member's root after a long chain of merges", () => {
    const messages: Message[] = [];
    for (let step = 0; step < 6; step++) messages.push(toolResult(`c${step}`, "read", `${step}`));
    messages.push(
      assistantCalling(...Array.from({ length: 6 }, (_, step) => toolCall(`c${5 - step}`, "read"))),
    );
    expect(unitsOf(messages)).toEqual([[0, 1, 2, 3, 4, 5, 6]]);
  });

  it("grows message by message with the same units as indexing the whole thread", () => {
    const messages = [
      toolResult("x", "read", "early"),
      assistantCalling(toolCall("y", "read")),
      assistantCalling(toolCall("x", "read")),
      toolResult("y", "read", "y"),
    ];
    const units = new UnitIndex();
    for (const message of messages) units.append(message);
    expect(units.unitOf(3)).toBe(1);
    expect(units.members(0)).toEqual([0, 2]);
    expect(units.members(1)).toEqual([1, 3]);
    expect(units.isUnit(2)).toBe(false);
    expect(units.lastMember(1)).toBe(3);
  });

  it("gives an empty thread no units", () => {
    expect(indexUnits([]).length).toBe(0);
  });
});
