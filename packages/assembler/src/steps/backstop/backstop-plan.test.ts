import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { messageChars } from "../../contract/message-chars";
import { recencyWallStart } from "../../rules/keep-rules";
import { indexedThreadOf } from "../../thread/thread-state";
import type { Message, ToolMessage } from "../../types";
import { runBackstop } from "./backstop-plan";
import type { BackstopHints, BackstopResult } from "./backstop-view";
import { backstopSettings } from "./compact-history";

/** The backstop over `messages` as the thread has them, the wall at the latest user message. */
function backstop(
  messages: readonly Message[],
  budget: number,
  hints: Partial<BackstopHints>,
): BackstopResult {
  const thread = indexedThreadOf(messages);
  const view = {
    thread,
    messages,
    replaced: { has: () => false },
    chars: thread.totalChars,
    wallStart: recencyWallStart(messages, 0),
  };
  return runBackstop(view, backstopSettings({ historyBudgetChars: budget }), { pinned: [], ...hints });
}

/** A stand-in of `chars` chars for the result at `index`. */
function standIn(messages: readonly Message[], index: number, chars: number, mark = "c"): ToolMessage {
  const message = messages[index] as ToolMessage;
  return { ...message, content: mark.repeat(chars) };
}

/** What the view shows at `index` of the thread: "dropped", "condensed" or "as is". */
function shownAt(result: BackstopResult, index: number): string {
  if (result.dropped?.[index] === 1) return "dropped";
  return result.condensed?.has(index) ? "condensed" : "as is";
}

const big = (mark: string) => mark.repeat(3_000);
const STUB = "[Duplicate result: identical to the later result of this search below.]";

describe("the backstop condenses a stub's target once the stub is gone", () => {
  it("condenses the target of a stub it dropped before it condenses a pinned result", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("s", "search")),
      toolResult("s", "search", STUB),
      assistantCalling(toolCall("p", "read"), toolCall("t", "search")),
      toolResult("p", "read", big("p")),
      toolResult("t", "search", big("t")),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const result = backstop(messages, 4_000, {
      pinned: [4],
      stubTargets: new Map([[2, 5]]),
      condense: (index) => (index === 2 ? undefined : standIn(messages, index, 10)),
    });
    expect([1, 2].map((index) => shownAt(result, index))).toEqual(["dropped", "dropped"]);
    expect(shownAt(result, 5)).toBe("condensed");
    expect(shownAt(result, 4)).toBe("as is");
    expect(result.wallExceedsBudget).toBe(false);
  });

  it("condenses the target of a pinned stub it condensed, rather than drop the target", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("s", "search")),
      toolResult("s", "search", `${STUB} ${"s".repeat(500)}`),
      assistantCalling(toolCall("t", "search")),
      toolResult("t", "search", big("t")),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const result = backstop(messages, 1_500, {
      pinned: [2],
      stubTargets: new Map([[2, 4]]),
      condense: (index) => standIn(messages, index, 10),
    });
    expect(shownAt(result, 2)).toBe("condensed");
    expect(shownAt(result, 4)).toBe("condensed");
    expect(result.droppedMessages).toBe(1);
    expect(result.wallExceedsBudget).toBe(false);
  });

  it("condenses, then cuts to its figures, the target of a stub that went with a pinned exchange", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("s", "search"), toolCall("p", "read")),
      toolResult("s", "search", STUB),
      toolResult("p", "read", big("p")),
      // The latest assistant message's exchange is never dropped.
      assistantCalling(toolCall("t", "search")),
      toolResult("t", "search", big("t")),
      userMessage("next"),
    ];
    const digest = standIn(messages, 5, 1_000, "d");
    const result = backstop(messages, 500, {
      pinned: [3],
      stubTargets: new Map([[2, 5]]),
      condense: (index) => (index === 5 ? digest : undefined),
      shrink: (index, shown) => (index === 5 && shown === digest ? standIn(messages, 5, 50, "f") : undefined),
    });
    expect([1, 2, 3].map((index) => shownAt(result, index))).toEqual(["dropped", "dropped", "dropped"]);
    expect(result.condensed?.get(5)?.content).toBe("f".repeat(50));
    expect(result.wallExceedsBudget).toBe(false);
  });

  it("never counts a dropped result it condenses no more: a target dropped with its stub frees no room", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("s", "search")),
      toolResult("s", "search", STUB),
      assistantCalling(toolCall("t", "search")),
      toolResult("t", "search", big("t")),
      assistantCalling(toolCall("p", "read")),
      toolResult("p", "read", big("p")),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const result = backstop(messages, 1_500, {
      pinned: [6],
      stubTargets: new Map([[2, 4]]),
      condense: (index) => (index === 2 ? undefined : standIn(messages, index, 10)),
    });
    expect([2, 4].map((index) => shownAt(result, index))).toEqual(["dropped", "dropped"]);
    expect(shownAt(result, 6)).toBe("condensed");
    expect(result.wallExceedsBudget).toBe(false);
    expect(result.chars).toBe(result.messages.reduce((sum, message) => sum + messageChars(message), 0));
  });
});

describe("the backstop cuts a digest it put in place to its figures", () => {
  it("cuts a pinned result's digest to its figures rather than drop its exchange", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("p", "read")),
      toolResult("p", "read", big("p")),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const digest = standIn(messages, 2, 1_000, "d");
    const result = backstop(messages, 500, {
      pinned: [2],
      condense: (index) => (index === 2 ? digest : undefined),
      shrink: (index, shown) => (index === 2 && shown === digest ? standIn(messages, 2, 50, "f") : undefined),
    });
    expect(shownAt(result, 2)).toBe("condensed");
    expect(result.condensed?.get(2)?.content).toBe("f".repeat(50));
    expect(shownAt(result, 1)).toBe("as is");
    expect(result.wallExceedsBudget).toBe(false);
  });
});

describe("the backstop stops at the budget", () => {
  it("condenses no more once the view is exactly at the budget, with nothing dropped", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("a", "read")),
      toolResult("a", "read", big("a")),
      assistantCalling(toolCall("b", "read")),
      toolResult("b", "read", big("b")),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const chars = messages.reduce((sum, message) => sum + messageChars(message), 0);
    const result = backstop(messages, chars - 3_000 + 10, {
      condense: (index) => standIn(messages, index, 10),
    });
    expect([2, 4].map((index) => shownAt(result, index))).toEqual(["as is", "condensed"]);
    expect(result.chars).toBe(chars - 3_000 + 10);
    expect(result.wallExceedsBudget).toBe(false);
  });
});

/** The backstop over a thread that ends inside a turn (the wall at its user message), low water at half the budget. */
function midTurn(messages: readonly Message[], budget: number): BackstopResult {
  const thread = indexedThreadOf(messages);
  const view = {
    thread,
    messages,
    replaced: { has: () => false },
    chars: thread.totalChars,
    wallStart: recencyWallStart(messages, 0),
  };
  return runBackstop(view, backstopSettings({ historyBudgetChars: budget, lowWaterRatio: 0.5 }), {
    pinned: [],
  });
}

/** Earlier turns of `count` read units, then a turn that read two pages and is still going. */
function threadInTurn(count: number): { messages: Message[]; turn: number } {
  const messages: Message[] = [];
  for (let unit = 0; unit < count; unit++) {
    messages.push(userMessage(`q${unit}`), assistantCalling(toolCall(`r${unit}`, "read")));
    messages.push(toolResult(`r${unit}`, "read", big(`${unit % 10}`)), assistantText("Noted."));
  }
  const turn = messages.length;
  messages.push(
    userMessage("go"),
    assistantCalling(toolCall("x", "read")),
    toolResult("x", "read", big("x")),
  );
  messages.push(assistantCalling(toolCall("y", "read")), toolResult("y", "read", big("y")));
  return { messages, turn };
}

const charsOf = (messages: readonly Message[]) => messages.reduce((sum, m) => sum + messageChars(m), 0);

describe("the backstop replays the turn's model calls", () => {
  it("cuts at the turn's first call over the budget, to the low-water mark, so the later calls append", () => {
    const { messages, turn } = threadInTurn(8);
    const history = charsOf(messages.slice(0, turn + 1));
    const budget = history - 3_000;
    const result = midTurn(messages, budget);
    expect(result.fired).toBe(true);
    expect(result.cutNow).toBe(false);
    expect(result.chars - charsOf(messages.slice(turn + 1))).toBeLessThanOrEqual(Math.floor(budget / 2));
  });

  it("keeps the view whole while every call fits, and cuts at the call before the second assistant message when it is the first over", () => {
    const { messages, turn } = threadInTurn(8);
    const budget = charsOf(messages.slice(0, turn + 3)) - 1_000;
    const result = midTurn(messages, budget);
    expect(result.fired).toBe(true);
    expect(result.cutNow).toBe(false);
    const grown = charsOf(messages.slice(turn + 3));
    expect(result.chars - grown).toBeLessThanOrEqual(Math.floor(budget / 2));
  });

  it("cuts now when only the thread's whole prompt goes over the budget", () => {
    const { messages } = threadInTurn(8);
    const budget = charsOf(messages) - 1_000;
    const result = midTurn(messages, budget);
    expect(result.cutNow).toBe(true);
    expect(result.chars).toBeLessThanOrEqual(Math.floor(budget / 2));
    expect(result.wallExceedsBudget).toBe(false);
    expect(result.latestExchangeExceedsBudget).toBe(false);
  });
});

describe("the backstop replays the turn's calls with the view's own sizes", () => {
  it("makes the cut the earlier calls made when the latest result is shown condensed", () => {
    const { messages, turn } = threadInTurn(8);
    const budget = charsOf(messages.slice(0, turn + 1)) - 3_000;
    const raw = midTurn(messages, budget);
    // The same thread, its latest result shown as a short stand-in (as it arrived condensed).
    const latest = messages.length - 1;
    const shown = messages.slice();
    shown[latest] = standIn(messages, latest, 100);
    const thread = indexedThreadOf(messages);
    const view = {
      thread,
      messages: shown,
      replaced: { has: (index: number) => index === latest },
      chars:
        thread.totalChars -
        (messageChars(messages[latest] as Message) - messageChars(shown[latest] as Message)),
      wallStart: recencyWallStart(messages, 0),
    };
    const condensed = runBackstop(
      view,
      backstopSettings({ historyBudgetChars: budget, lowWaterRatio: 0.5 }),
      { pinned: [] },
    );
    expect(raw.cutNow).toBe(false);
    expect(condensed.cutNow).toBe(false);
    expect(condensed.dropped).toEqual(raw.dropped);
  });
});

describe("the backstop reports what it did", () => {
  it("leaves a view within the budget as it is, with no cut made now", () => {
    const { messages } = threadInTurn(2);
    const result = midTurn(messages, charsOf(messages));
    expect(result).toMatchObject({ fired: false, cutNow: false, wallExceedsBudget: false });
    expect(result.messages).toBe(messages);
  });

  it("says the latest exchange leaves no room when the wall alone is exactly at the budget", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("a", "read")),
      toolResult("a", "read", big("a")),
      assistantCalling(toolCall("e", "read")),
      toolResult("e", "read", big("e")),
      userMessage("next"),
    ];
    const wall = messageChars(messages[5] as Message);
    const result = backstop(messages, wall, {});
    expect(result.wallExceedsBudget).toBe(true);
    expect(result.latestExchangeExceedsBudget).toBe(true);
  });
});

describe("the backstop keeps the history besides a wall over the budget within the budget", () => {
  it("makes no new cut on a later call whose wall alone goes over, keeping the cut of the turn's first call", () => {
    const { messages, turn } = threadInTurn(8);
    messages[turn + 4] = toolResult("y", "read", "y".repeat(40_000));
    const budget = charsOf(messages.slice(0, turn + 1)) - 3_000;
    const result = midTurn(messages, budget);
    const wall = charsOf(messages.slice(turn));
    expect(result.cutNow).toBe(false);
    expect(result.wallExceedsBudget).toBe(true);
    expect(result.latestExchangeExceedsBudget).toBe(false);
    expect(result.chars - wall).toBeLessThanOrEqual(Math.floor(budget / 2));
  });
});
