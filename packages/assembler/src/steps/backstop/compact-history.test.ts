import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  documentPage,
  systemMessage,
  toolCall,
  toolExchange,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { NOTE_HEADER_CHARS, noteHeaderLength } from "../../contract/compaction-note";
import { messageChars } from "../../contract/message-chars";
import { COMPACTION_NOTE_PREFIX } from "../../contract/stubs";
import { recencyWallStart } from "../../rules/keep-rules";
import type { Message } from "../../types";
import { COMPACTION_DEFAULTS, compactHistory } from "./compact-history";

/** system, user, then `count` read exchanges of `pageChars` each, a closing user message and the active turn. */
function longThread(count: number, pageChars = 5_000): Message[] {
  const reads = Array.from({ length: count }, (_, index) =>
    toolExchange(
      `r${index}`,
      "read_document",
      { file_id: "lease", offset: index * pageChars },
      documentPage("lease", index, pageChars),
    ),
  ).flat();
  return [
    systemMessage(),
    userMessage("Review the whole lease."),
    ...reads,
    // The turn's answer: the backstop keeps the latest assistant message before a new user message.
    assistantText("I have read the lease."),
    userMessage("Now list the rent terms."),
    ...toolExchange("now", "search", { q: "rent" }, "id: lease"),
  ];
}

function total(messages: readonly Message[]): number {
  return messages.reduce((sum, message) => sum + messageChars(message), 0);
}

function isNote(message: Message | undefined): boolean {
  return (
    message?.role === "user" &&
    typeof message.content === "string" &&
    message.content.startsWith(COMPACTION_NOTE_PREFIX)
  );
}

/** Every tool result follows its assistant call (directly or after sibling results). */
function expectPairsIntact(messages: readonly Message[]): void {
  messages.forEach((message, index) => {
    if (message.role !== "tool") return;
    let back = index - 1;
    while (messages[back]?.role === "tool") back--;
    const caller = messages[back];
    expect(caller?.role).toBe("assistant");
    if (caller?.role === "assistant")
      expect(caller.toolCalls?.map((call) => call.id)).toContain(message.toolCallId);
  });
  messages.forEach((message, index) => {
    if (message.role !== "assistant") return;
    const answered = new Set<string>();
    for (let next = index + 1; messages[next]?.role === "tool"; next++) {
      const result = messages[next];
      if (result?.role === "tool") answered.add(result.toolCallId);
    }
    for (const call of message.toolCalls ?? []) expect(answered.has(call.id)).toBe(true);
  });
}

describe("messageChars", () => {
  it("counts content plus tool-call names and canonical args", () => {
    expect(messageChars(userMessage("hello"))).toBe(5);
    expect(messageChars(assistantCalling(toolCall("c", "search", { q: "a" })))).toBe(
      "search".length + '{"q":"a"}'.length,
    );
    expect(messageChars(toolResult("c", "x", [{ type: "text", text: "abc" }]))).toBe(3);
  });
});

describe("messageChars sees live content", () => {
  it("counts a block edited in place among several, and content replaced on the object", () => {
    const blocks = [
      { type: "text", text: "abc" },
      { type: "text", text: "def" },
    ];
    const message = toolResult("c", "read_document", blocks);
    expect(messageChars(message)).toBe(6);
    (blocks[1] as { text: string }).text = "defghi";
    expect(messageChars(message)).toBe(9);
    blocks.push({ type: "text", text: "j" });
    expect(messageChars(message)).toBe(10);
    message.content = "x";
    expect(messageChars(message)).toBe(1);
  });
});

describe("compactHistory", () => {
  it("returns the same array instance under budget", () => {
    const messages = longThread(3);
    const result = compactHistory(messages, recencyWallStart(messages));
    expect(result.messages).toBe(messages);
    expect(result).toMatchObject({ fired: false, droppedMessages: 0 });
  });

  it("drops the oldest whole exchanges and puts one note where they were", () => {
    const messages = longThread(10);
    const wallStart = recencyWallStart(messages);
    const result = compactHistory(messages, wallStart, { historyBudgetChars: 30_000 });
    expect(result.fired).toBe(true);
    const view = result.messages;
    expect(view[0]).toBe(messages[0]);
    expect(isNote(view[1])).toBe(true);
    expect(view.filter(isNote)).toHaveLength(1);
    // What follows the note is an unbroken tail of the original thread.
    const kept = view.slice(2);
    expect(kept).toEqual(messages.slice(messages.length - kept.length));
    kept.forEach((message, offset) => {
      expect(message).toBe(messages[messages.length - kept.length + offset]);
    });
    expect(result.droppedMessages).toBe(messages.length - 1 - kept.length);
    expect(result.droppedMessages % 2).toBe(1); // the first user message plus whole exchanges
    expect(total(view)).toBeLessThanOrEqual(30_000);
    expectPairsIntact(view);
  });

  it("drops no more than needed", () => {
    const messages = longThread(10);
    const result = compactHistory(messages, recencyWallStart(messages), {
      historyBudgetChars: 30_000,
    });
    // Restoring the newest dropped exchange would exceed the budget.
    expect(total(result.messages) + 5_000).toBeGreaterThan(30_000);
  });

  it("never drops system messages or the recency wall, even far over budget", () => {
    const messages = longThread(10);
    messages.splice(8, 0, systemMessage("Mid-thread policy reminder."));
    const wallStart = recencyWallStart(messages);
    const wall = messages.slice(wallStart);
    const result = compactHistory(messages, wallStart, { historyBudgetChars: 1 });
    expect(result.fired).toBe(true);
    expect(result.messages.slice(-wall.length)).toEqual(wall);
    for (const message of wall) expect(result.messages).toContain(message);
    expect(result.messages.filter((message) => message.role === "system")).toHaveLength(2);
    expect(result.messages.filter(isNote)).toHaveLength(1);
    expect(result.wallExceedsBudget).toBe(true);
    expectPairsIntact(result.messages);
  });

  it("fits the view, its note included, whenever the wall leaves room", () => {
    const messages = longThread(40, 3_000);
    const wallStart = recencyWallStart(messages);
    const floor = total(messages.slice(wallStart)) + total(messages.filter((m) => m.role === "system"));
    for (const budget of [floor + 200, floor + 1_000, 20_000, 50_000, 100_000]) {
      const result = compactHistory(messages, wallStart, { historyBudgetChars: budget });
      expect(total(result.messages), `budget ${budget}`).toBeLessThanOrEqual(budget);
      expect(result.wallExceedsBudget).toBe(false);
      expectPairsIntact(result.messages);
    }
  });

  it("drops a user message that only opens like a note; keeps a note it wrote", () => {
    const messages = longThread(10);
    const spoof = userMessage(`${COMPACTION_NOTE_PREFIX}: a pasted log the user sent ${"x".repeat(20_000)}`);
    messages.splice(1, 1, spoof);
    const wallStart = recencyWallStart(messages);
    const result = compactHistory(messages, wallStart, { historyBudgetChars: 30_000 });
    expect(result.messages).not.toContain(spoof);
    expect(total(result.messages)).toBeLessThanOrEqual(30_000);
    const again = compactHistory(result.messages, recencyWallStart(result.messages), {
      historyBudgetChars: 20_000,
    });
    const [note] = result.messages.filter(isNote);
    expect(note).toBeDefined();
    expect(again.messages).toContain(note);
  });

  it("never splits an exchange that straddles the wall", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("a", "search", { q: "a" }, "x".repeat(10_000)),
      assistantCalling(
        toolCall("b1", "read_document", { file_id: "f" }),
        toolCall("b2", "read_document", { file_id: "g" }),
      ),
      toolResult("b1", "read_document", "y".repeat(10_000)),
      toolResult("b2", "read_document", "z".repeat(10_000)),
    ];
    // A wall starting at the second result of the last exchange.
    const result = compactHistory(messages, 5, { historyBudgetChars: 100 });
    expect(result.messages.slice(-3)).toEqual(messages.slice(-3));
    expectPairsIntact(result.messages);
  });

  it("bounds the note to 12,000 chars with snippets of at most 300 chars", () => {
    const messages = longThread(200, 2_000);
    const result = compactHistory(messages, recencyWallStart(messages), {
      historyBudgetChars: 20_000,
    });
    const note = result.messages.find(isNote);
    expect(note).toBeDefined();
    const text = note?.content as string;
    expect(text.length).toBeLessThanOrEqual(COMPACTION_DEFAULTS.noteMaxChars);
    const [header, ...lines] = text.split("\n");
    expect(header).toContain(`${result.droppedMessages} earlier messages`);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(COMPACTION_DEFAULTS.snippetChars);
    expect(lines.at(-1)).toMatch(/^- … and \d+ more$/);
    expect(lines[1]).toMatch(/^- assistant \(called read_document\)/);
    expect(lines[2]).toMatch(/^- tool read_document: Document lease, page 0\./);
  });

  it("counts the dropped messages its snippets leave out in '… and N more'", () => {
    const messages = longThread(20, 2_000);
    const result = compactHistory(messages, recencyWallStart(messages), {
      historyBudgetChars: 12_000,
      snippetChars: 60,
      noteMaxChars: 400,
    });
    expect(result.wallExceedsBudget).toBe(false);
    const note = result.messages.find(isNote);
    const [, ...lines] = String(note?.content ?? "").split("\n");
    const tail = lines.pop() as string;
    const more = Number(/^- … and (\d+) more$/.exec(tail)?.[1]);
    expect(lines.length).toBeGreaterThan(0);
    expect(more + lines.length).toBe(result.droppedMessages);
  });

  it("never splits an assistant's calls whose results are not adjacent", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(
        toolCall("c1", "read_document", { file_id: "f", offset: 0 }),
        toolCall("c2", "read_document", { file_id: "f", offset: 3_000 }),
      ),
      toolResult("c1", "read_document", documentPage("f", 0, 3_000)),
      systemMessage("Reminder: cite sections."),
      toolResult("c2", "read_document", documentPage("f", 1, 3_000)),
      ...toolExchange("c3", "search", { q: "rent" }, `id: f ${"hit ".repeat(200)}`),
      userMessage("next"),
    ];
    for (const budget of [1, 2_000, 4_000, 6_000]) {
      const { messages: view } = compactHistory(messages, recencyWallStart(messages, 0), {
        historyBudgetChars: budget,
      });
      const kept = (id: string) =>
        view.some((message) => message.role === "tool" && message.toolCallId === id);
      expect(kept("c1"), `budget ${budget}`).toBe(kept("c2"));
      expect(view.includes(messages[1] as Message), `budget ${budget}`).toBe(kept("c1"));
      expect(view).toContain(messages[3]);
    }
  });

  it("honours smaller snippet and note limits", () => {
    const messages = longThread(20, 2_000);
    const result = compactHistory(messages, recencyWallStart(messages), {
      historyBudgetChars: 5_000,
      snippetChars: 40,
      noteMaxChars: 400,
    });
    const text = result.messages.find(isNote)?.content as string;
    expect(text.length).toBeLessThanOrEqual(400);
    for (const line of text.split("\n").slice(1)) expect(line.length).toBeLessThanOrEqual(40);
  });

  it("keeps an earlier note and adds no second one for the same history", () => {
    const messages = longThread(10);
    const first = compactHistory(messages, recencyWallStart(messages), {
      historyBudgetChars: 30_000,
    });
    const again = compactHistory(first.messages, recencyWallStart(first.messages), {
      historyBudgetChars: 30_000,
    });
    expect(again.fired).toBe(false);
    expect(again.messages).toBe(first.messages);
  });
});

describe("compactHistory keeps pairing and stub targets", () => {
  it("drops an assistant whose result sits after another message only together with that result", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(toolCall("c1", "read_document", { file_id: "lease", offset: 0 })),
      systemMessage("Reminder: cite sections."),
      toolResult("c1", "read_document", documentPage("lease", 0, 3_000)),
      ...toolExchange(
        "c2",
        "read_document",
        { file_id: "lease", offset: 3_000 },
        documentPage("lease", 1, 3_000),
      ),
      userMessage("next"),
    ];
    const { messages: view } = compactHistory(messages, recencyWallStart(messages, 0), {
      historyBudgetChars: 1_000,
    });
    const calls = view.flatMap((message) =>
      message.role === "assistant" ? (message.toolCalls ?? []).map((call) => call.id) : [],
    );
    const results = view.flatMap((message) => (message.role === "tool" ? [message.toolCallId] : []));
    expect(results).toEqual(calls);
    expect(results).not.toContain("c1");
    expect(view).toContain(messages[2]);
  });

  /** Per call id in the view: how many results answer it; and results without their call. */
  function pairing(view: readonly Message[]): { calls: Map<string, number>; orphans: string[] } {
    const calls = new Map<string, number>();
    const orphans: string[] = [];
    for (const message of view) {
      if (message.role === "assistant") for (const call of message.toolCalls ?? []) calls.set(call.id, 0);
      else if (message.role === "tool") {
        const count = calls.get(message.toolCallId);
        if (count === undefined) orphans.push(message.toolCallId);
        else calls.set(message.toolCallId, count + 1);
      }
    }
    return { calls, orphans };
  }

  it("drops an exchange interleaved with another only together with it: A(b1,b2) b1 A'(a1) a1 b2", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(
        toolCall("b1", "read_document", { file_id: "f", offset: 0 }),
        toolCall("b2", "read_document", { file_id: "f", offset: 4_000 }),
      ),
      toolResult("b1", "read_document", documentPage("f", 0, 4_000)),
      assistantCalling(toolCall("a1", "search", { q: "rent" })),
      toolResult("a1", "search", `id: f ${"hit ".repeat(500)}`),
      toolResult("b2", "read_document", documentPage("f", 1, 4_000)),
      userMessage("next"),
    ];
    for (const budget of [1, 5_000, 7_000, 9_000]) {
      const { messages: view } = compactHistory(messages, recencyWallStart(messages, 0), {
        historyBudgetChars: budget,
      });
      const { calls, orphans } = pairing(view);
      expect(orphans, `budget ${budget}`).toEqual([]);
      for (const [id, results] of calls) expect(results, `call ${id}, budget ${budget}`).toBe(1);
    }
  });

  it("never drops the latest assistant message's exchange, though the wall starts after it", () => {
    const latest = assistantCalling(toolCall("c2", "read_document", { file_id: "f", offset: 1_000 }));
    const messages: Message[] = [
      userMessage("go"),
      ...toolExchange("c1", "read_document", { file_id: "f", offset: 0 }, documentPage("f", 0, 3_000)),
      latest,
      toolResult("c2", "read_document", documentPage("f", 1_000, 3_000)),
      userMessage("next"),
    ];
    const wallStart = recencyWallStart(messages, 0);
    expect(wallStart).toBe(5);
    const {
      messages: view,
      fired,
      wallExceedsBudget,
    } = compactHistory(messages, wallStart, {
      historyBudgetChars: 500,
    });
    expect(fired).toBe(true);
    expect(view).toContain(latest);
    expect(view).toContain(messages[4]);
    expect(view).not.toContain(messages[1]);
    expect(wallExceedsBudget).toBe(true);
  });

  it("drops a stub whose target went with an earlier-starting interleaved exchange", () => {
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(
        toolCall("x1", "read_document", { file_id: "f", offset: 0 }),
        toolCall("t", "search", { q: "rent" }),
      ),
      toolResult("x1", "read_document", documentPage("f", 0, 6_000)),
      assistantCalling(toolCall("s", "search", { q: "rent" })),
      toolResult("s", "search", "[stub of s, pointing to t below]"),
      toolResult("t", "search", "id: f"),
      assistantText("Noted."),
      userMessage("next"),
    ];
    const stubTargets = new Map([[4, 5]]);
    const wallStart = recencyWallStart(messages, 0);
    const { messages: view } = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: 1_000, snippetChars: 20 },
      { stubTargets },
    );
    // Dropping {A, x1, t} alone fits the budget, but the stub s would then point to nothing.
    expect(view).not.toContain(messages[5]);
    expect(view).not.toContain(messages[4]);
    expect(view.slice(-2)).toEqual([messages[6], messages[7]]);
  });

  it("keeps the later result a kept stub points to, by the stub decisions it is given", () => {
    const stub =
      "[Duplicate result — identical to the result of tool call d2 (search) below; that later result is kept in full.]";
    const messages: Message[] = [
      userMessage("go"),
      assistantCalling(
        toolCall("c1", "read_document", { file_id: "lease", offset: 0 }),
        toolCall("d1", "search", { q: "x" }),
      ),
      toolResult("c1", "read_document", documentPage("lease", 0, 2_000)),
      toolResult("d1", "search", stub),
      ...toolExchange("d2", "search", { q: "x" }, `id: lease ${"hit ".repeat(500)}`),
      ...toolExchange(
        "c3",
        "read_document",
        { file_id: "other", offset: 0 },
        documentPage("other", 0, 4_000),
      ),
      assistantText("Noted."),
      userMessage("next"),
    ];
    // The first exchange is kept (pinned, as the window would), so its stub's target stays.
    const pinned = (index: number) => index === 2;
    const stubTargets = new Map([[3, 5]]);
    const { messages: view, fired } = compactHistory(
      messages,
      recencyWallStart(messages, 0),
      { historyBudgetChars: 2_500 },
      { pinned, stubTargets },
    );
    expect(fired).toBe(true);
    expect(view.some((message) => message.role === "tool" && message.toolCallId === "d2")).toBe(true);
    expect(view.some((message) => message.role === "tool" && message.toolCallId === "c3")).toBe(false);
  });
});

describe("compactHistory condenses pinned results when dropping the rest is not enough", () => {
  const messages = longThread(3);
  const wallStart = messages.findIndex((message) => message.content === "Now list the rent terms.");
  const results = messages.flatMap((message, index) =>
    message.role === "tool" && index < wallStart ? [index] : [],
  );
  const digestOf = (index: number): Message | undefined => {
    const result = messages[index];
    return result?.role === "tool"
      ? toolResult(result.toolCallId, result.toolName, "digest: rent terms")
      : undefined;
  };
  const condensedSize = messageChars(toolResult("x", "read_document", "digest: rent terms"));
  const pinnedBeforeWall = (index: number) => index < wallStart;

  it("condenses the oldest pinned result, just enough to fit, with no note", () => {
    const budget =
      total(messages) - messageChars(messages[results[0] as number] as Message) + condensedSize + 10;
    const result = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: budget },
      { pinned: pinnedBeforeWall, condense: digestOf },
    );
    expect(result).toMatchObject({
      fired: true,
      droppedMessages: 0,
      condensedResults: 1,
      wallExceedsBudget: false,
    });
    expect(result.messages).toHaveLength(messages.length);
    expect(result.messages[results[0] as number]?.content).toBe("digest: rent terms");
    expect(result.messages.filter((message, index) => message !== messages[index])).toHaveLength(1);
    expect(total(result.messages)).toBeLessThanOrEqual(budget);
  });

  it("condenses no more than needed at the exact budget, and the next one when a char short", () => {
    const exact = total(messages) - messageChars(messages[results[0] as number] as Message) + condensedSize;
    const hints = { pinned: pinnedBeforeWall, condense: digestOf };
    const atBudget = compactHistory(messages, wallStart, { historyBudgetChars: exact }, hints);
    expect(atBudget).toMatchObject({ condensedResults: 1, wallExceedsBudget: false });
    expect(total(atBudget.messages)).toBe(exact);
    const short = compactHistory(messages, wallStart, { historyBudgetChars: exact - 1 }, hints);
    expect(short).toMatchObject({ droppedMessages: 0, condensedResults: 2, wallExceedsBudget: false });
  });

  it("without pins, condenses the latest results before the wall first, just enough to fit, dropping nothing", () => {
    const asked: number[] = [];
    const latest = results.at(-1) as number;
    const budget = total(messages) - messageChars(messages[latest] as Message) + condensedSize + 10;
    const result = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: budget },
      {
        condense: (index) => {
          asked.push(index);
          return digestOf(index);
        },
      },
    );
    expect(asked).toEqual([latest]);
    expect(result).toMatchObject({ fired: true, droppedMessages: 0, condensedResults: 1 });
    expect(result.messages[latest]?.content).toBe("digest: rent terms");
  });

  it("condenses every unpinned result before it drops any, and drops only when that is not enough", () => {
    const asked: number[] = [];
    const condense = (index: number) => {
      asked.push(index);
      return digestOf(index);
    };
    const condensedTotal =
      total(messages) -
      results.reduce((sum, index) => sum + messageChars(messages[index] as Message), 0) +
      results.length * condensedSize;
    const fitting = compactHistory(messages, wallStart, { historyBudgetChars: condensedTotal }, { condense });
    expect(asked).toEqual([...results].reverse());
    expect(fitting).toMatchObject({ droppedMessages: 0, condensedResults: results.length });
    const short = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: condensedTotal - 1 },
      { condense },
    );
    expect(short.droppedMessages).toBeGreaterThan(0);
  });

  it("skips a pinned result with no stand-in or a stand-in no smaller than it", () => {
    const [first, second, third] = results as [number, number, number];
    const sameSize = (index: number): Message | undefined => {
      const result = messages[index] as Message;
      return { ...result, content: "y".repeat(messageChars(result)) } as Message;
    };
    const budget = total(messages) - 5_000 + condensedSize + 10;
    const result = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: budget },
      {
        pinned: pinnedBeforeWall,
        condense: (index) =>
          index === first ? undefined : index === second ? sameSize(index) : digestOf(index),
      },
    );
    expect(result).toMatchObject({ droppedMessages: 0, condensedResults: 1 });
    expect(result.messages[first]).toBe(messages[first]);
    expect(result.messages[second]).toBe(messages[second]);
    expect(result.messages[third]?.content).toBe("digest: rent terms");
  });

  it("asks for stand-ins of pinned messages before the wall only", () => {
    const asked: number[] = [];
    const pinned = (index: number) => messages[index]?.role === "tool";
    compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: 1_000 },
      {
        pinned,
        condense: (index) => {
          asked.push(index);
          return digestOf(index);
        },
      },
    );
    expect(asked.length).toBeGreaterThan(0);
    for (const index of asked) {
      expect(index).toBeLessThan(wallStart);
      expect(pinned(index)).toBe(true);
    }
  });

  it("never condenses the message the wall starts at, even when it is a pinned result", () => {
    const wallAtResult = results.at(-1) as number;
    const asked: number[] = [];
    const result = compactHistory(
      messages,
      wallAtResult,
      { historyBudgetChars: 1_000 },
      {
        pinned: () => true,
        condense: (index) => {
          asked.push(index);
          return digestOf(index);
        },
      },
    );
    expect(asked).toContain(results[0]);
    expect(Math.max(...asked)).toBeLessThan(wallAtResult);
    expect(result.messages).toContain(messages[wallAtResult]);
  });
});

describe("compactHistory counts its note", () => {
  it("drops nothing when even dropping everything leaves no room for the note's header, and says so", () => {
    const messages = longThread(3);
    const wallStart = recencyWallStart(messages, 3);
    const kept = total([messages[0] as Message, ...messages.slice(wallStart)]);
    const result = compactHistory(messages, wallStart, { historyBudgetChars: kept + 10 });
    expect(result).toMatchObject({ droppedMessages: 0, condensedResults: 0, wallExceedsBudget: true });
    expect(result.messages).toEqual(messages);
  });
});

describe("compactHistory sizes its note and keeps what it must", () => {
  const messages = longThread(4);
  const wallStart = messages.findIndex((message) => message.content === "Now list the rent terms.");
  const results = messages.flatMap((message, index) =>
    message.role === "tool" && index < wallStart ? [index] : [],
  );
  const stand = (index: number): Message | undefined => {
    const result = messages[index];
    return result?.role === "tool"
      ? toolResult(result.toolCallId, result.toolName, "digest: rent terms")
      : undefined;
  };
  /** Chars of the view once messages 1 .. last (the opening request and whole exchanges) are dropped. */
  const withoutUpTo = (last: number) => total(messages) - total(messages.slice(1, last + 1));

  it("drops exchanges until the note has room for a full snippet per dropped message, and no more", () => {
    const snippetChars = 20;
    // The turn's first call, so the one cut is made for this very prompt.
    const thread = messages.slice(0, wallStart + 1);
    // Dropping the opening request and 2 exchanges (5 messages) leaves room for 5 snippet lines.
    const exact = total(thread) - total(thread.slice(1, 6)) + NOTE_HEADER_CHARS + 5 * (snippetChars + 1);
    const options = { snippetChars };
    const atRoom = compactHistory(thread, wallStart, { ...options, historyBudgetChars: exact });
    expect(atRoom.droppedMessages).toBe(5);
    const short = compactHistory(thread, wallStart, { ...options, historyBudgetChars: exact - 1 });
    expect(short.droppedMessages).toBe(7);
  });

  it("snips a result it condensed and then dropped from its stand-in, not from the thread", () => {
    // A long aside after the reads: condensing every read is not enough, and dropping up to
    // the aside leaves the note room for whole snippets.
    const thread = [
      ...messages.slice(0, wallStart),
      userMessage(`Aside: ${"background on the landlord. ".repeat(100)}`),
      ...messages.slice(wallStart),
    ];
    const condensed = total(thread) - total(results.map((index) => messages[index] as Message));
    const { messages: view, droppedMessages } = compactHistory(
      thread,
      wallStart + 1,
      { historyBudgetChars: condensed + results.length * 18 - 1 },
      { condense: stand },
    );
    // All but the system message and the turn's answer (the latest assistant message before the wall).
    expect(droppedMessages).toBe(wallStart - 1);
    expect(view).toContain(messages[wallStart - 1]);
    const note = String(view.find(isNote)?.content);
    expect(note.match(/- tool read_document: digest: rent terms/g)).toHaveLength(results.length);
    expect(note).not.toContain("Document lease");
  });

  it("condenses pinned results only until the view fits with the note's header alone", () => {
    const [, , third, fourth] = results as [number, number, number, number];
    const pinned = (index: number) => index === third || index === fourth;
    // The opening request and the two unpinned exchanges go; then condensing the third page fits.
    const left = withoutUpTo(third - 2);
    const budget =
      left -
      messageChars(messages[third] as Message) +
      messageChars(stand(third) as Message) +
      noteHeaderLength(5);
    const result = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: budget, snippetChars: 20 },
      { pinned, condense: stand },
    );
    expect(result).toMatchObject({ droppedMessages: 5, condensedResults: 1, wallExceedsBudget: false });
    expect(result.messages).toContain(messages[fourth]);
  });

  it("drops pinned exchanges last, when condensing them is not enough", () => {
    const result = compactHistory(
      messages,
      wallStart,
      { historyBudgetChars: 1_000 },
      { pinned: (index) => results.includes(index), condense: () => undefined },
    );
    expect(result.droppedMessages).toBe(1 + 2 * results.length);
    for (const index of results) expect(result.messages).not.toContain(messages[index]);
    expect(result.messages.slice(-3)).toEqual(messages.slice(-3));
  });

  it("keeps a stub and its target when neither goes with a dropped exchange", () => {
    const thread: Message[] = [
      userMessage("go"),
      ...toolExchange("x1", "read_document", { file_id: "f", offset: 0 }, documentPage("f", 0, 6_000)),
      ...toolExchange("s", "search", { q: "rent" }, "[stub of s, pointing to t below]"),
      ...toolExchange("t", "search", { q: "rent" }, "id: f"),
      userMessage("next"),
    ];
    const stubTargets = new Map([[4, 6]]);
    const { messages: view, droppedMessages } = compactHistory(
      thread,
      recencyWallStart(thread, 0),
      { historyBudgetChars: total(thread) - 3_000 },
      { stubTargets },
    );
    expect(droppedMessages).toBe(3);
    expect(view).toContain(thread[4]);
    expect(view).toContain(thread[6]);
  });
});

describe("compactHistory cuts to the low-water mark, once per turn while it fits", () => {
  it("cuts a view over the budget down to the low-water mark it is given, else to the budget", () => {
    const messages = longThread(12).slice(0, -2);
    const budget = Math.floor(total(messages) * 0.8);
    const wallStart = recencyWallStart(messages);
    const cut = compactHistory(messages, wallStart, { historyBudgetChars: budget, lowWaterRatio: 0.75 });
    expect(total(cut.messages)).toBeLessThanOrEqual(Math.floor(budget * 0.75));
    const exact = compactHistory(messages, wallStart, { historyBudgetChars: budget });
    expect(total(exact.messages)).toBeGreaterThan(Math.floor(budget * 0.75));
    expect(total(exact.messages)).toBeLessThanOrEqual(budget);
  });

  it("keeps the cut the turn's earlier call made while the view still fits: a later call only appends", () => {
    const start = longThread(12).slice(0, -2);
    const budget = Math.floor(total(start) * 0.8);
    const first = compactHistory(start, recencyWallStart(start), {
      historyBudgetChars: budget,
      lowWaterRatio: 0.75,
    });
    const grown = [...start, ...toolExchange("now", "search", { q: "rent" }, "id: lease")];
    const later = compactHistory(grown, recencyWallStart(grown), {
      historyBudgetChars: budget,
      lowWaterRatio: 0.75,
    });
    expect(total(later.messages)).toBeLessThanOrEqual(budget);
    expect(later.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(later.messages.slice(first.messages.length)).toEqual(grown.slice(start.length));
  });
});
