import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { splitTurns } from "./turns";

const user = (content: string): Message => ({ role: "user", content });
const assistant = (content: string): Message => ({ role: "assistant", content });

describe("splitTurns", () => {
  it("opens a turn at each user message; the system prompt belongs to the first", () => {
    const messages: Message[] = [
      { role: "system", content: "s" },
      user("one"),
      assistant("a"),
      user("two"),
      assistant("b"),
      assistant("c"),
    ];
    expect(splitTurns(messages)).toEqual([
      { start: 0, end: 3 },
      { start: 3, end: 6 },
    ]);
  });

  it("makes a thread with no user message one turn, and an empty thread none", () => {
    expect(splitTurns([assistant("a"), assistant("b")])).toEqual([{ start: 0, end: 2 }]);
    expect(splitTurns([])).toEqual([]);
  });
});
