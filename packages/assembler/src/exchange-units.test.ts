import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "../test/fixtures/thread-builder";
import { exchangeUnits } from "./exchange-units";
import type { Message } from "./types";

function unitsOf(messages: readonly Message[]): number[][] {
  const { units, unitOf } = exchangeUnits(messages);
  units.forEach((members, unit) => {
    for (const member of members) expect(unitOf[member]).toBe(unit);
  });
  return units;
}

describe("exchangeUnits", () => {
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
      assistantCalling(toolCall("x", "read")),
      assistantCalling(toolCall("x", "read")),
    ];
    expect(unitsOf(messages)).toEqual([[0], [1, 3], [2], [4]]);
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

  it("gives an empty thread no units", () => {
    expect(exchangeUnits([])).toEqual({ units: [], unitOf: new Int32Array(0) });
  });
});
