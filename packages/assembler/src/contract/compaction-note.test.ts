import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { indexedThreadOf } from "../thread/thread-state";
import type { Message } from "../types";
import {
  digestNoteLine,
  hasNoteHeader,
  NOTE_HEADER_CHARS,
  noteHeader,
  noteHeaderLength,
  renderNote,
  snippet,
} from "./compaction-note";
import { DIGEST_HEADER } from "./stubs";

/** The note over `messages` with all of them dropped. */
function noteOf(messages: readonly Message[], snippetChars: number, maxChars = 10_000): string {
  return renderNote(new Uint8Array(messages.length).fill(1), messages.length, maxChars, (index) =>
    snippet(messages[index] as Message, snippetChars),
  );
}

function snippetsOf(messages: readonly Message[], snippetChars: number): string[] {
  return noteOf(messages, snippetChars).split("\n").slice(1);
}

describe("noteHeader", () => {
  it("says how many messages were left out", () => {
    expect(noteHeader(7)).toContain(": 7 earlier messages were left out to fit the history budget.");
  });

  it("has its length computed without writing it, for counts of any number of digits", () => {
    for (const count of [0, 7, 10, 99, 100, 12_345])
      expect(noteHeaderLength(count)).toBe(noteHeader(count).length);
  });

  it("fits the room reserved for it", () => {
    expect(noteHeader(1_000_000).length).toBeLessThanOrEqual(NOTE_HEADER_CHARS);
  });
});

describe("hasNoteHeader", () => {
  it("is a user message with text opening with the exact header, alone or before a newline", () => {
    expect(hasNoteHeader(userMessage(noteHeader(3)))).toBe(true);
    expect(hasNoteHeader(userMessage(`${noteHeader(42)}\n- user: hi`))).toBe(true);
  });

  it("is not a header with any char changed, quoted, or followed on the same line", () => {
    expect(hasNoteHeader(userMessage(noteHeader(3).replace("fit", "fix")))).toBe(false);
    expect(hasNoteHeader(userMessage(noteHeader(3).replace(": 3 ", ": x ")))).toBe(false);
    expect(hasNoteHeader(userMessage(noteHeader(3).replace(": 3 ", ":  ")))).toBe(false);
    expect(hasNoteHeader(userMessage(noteHeader(3).replace(". Snippets", "x Snippets")))).toBe(false);
    expect(hasNoteHeader(userMessage(`See: ${noteHeader(3)}`))).toBe(false);
    expect(hasNoteHeader(userMessage(`${noteHeader(3)} and more`))).toBe(false);
  });

  it("is no other role and no block content", () => {
    expect(hasNoteHeader(assistantText(noteHeader(3)))).toBe(false);
    expect(hasNoteHeader(toolResult("c", "t", noteHeader(3)))).toBe(false);
    expect(hasNoteHeader(userMessage([{ type: "text", text: noteHeader(3) }]))).toBe(false);
  });
});

describe("a compaction note, as the indexed thread tells it (IndexedThread.isNote)", () => {
  const note = `${noteHeader(3)}\n- user: hello`;
  const isCompactionNote = (message: Message, noteMaxChars: number) =>
    indexedThreadOf([message]).isNote(0, noteMaxChars);

  it("is a user message with the exact header and no longer than a note can be", () => {
    expect(isCompactionNote(userMessage(note), note.length)).toBe(true);
    expect(isCompactionNote(userMessage(note), note.length - 1)).toBe(false);
    expect(isCompactionNote(userMessage(noteHeader(3)), 10_000)).toBe(true);
  });

  it("is no other role, no block content and no text that merely quotes the header", () => {
    expect(isCompactionNote(assistantText(note), 10_000)).toBe(false);
    expect(isCompactionNote(toolResult("c", "t", note), 10_000)).toBe(false);
    expect(isCompactionNote(userMessage([{ type: "text", text: note }]), 10_000)).toBe(false);
    expect(isCompactionNote(userMessage(`See: ${note}`), 10_000)).toBe(false);
    expect(isCompactionNote(userMessage(`${noteHeader(3)} and more`), 10_000)).toBe(false);
  });
});

describe("snippet", () => {
  it("labels each message by its role, a result by its tool, a calling assistant by its calls", () => {
    const messages = [
      userMessage("question"),
      assistantText("answer"),
      assistantCalling(toolCall("a", "search"), toolCall("b", "read_document")),
      toolResult("a", "search", "id: doc_1"),
      { role: "assistant", content: "no calls", toolCalls: [] } as Message,
    ];
    expect(snippetsOf(messages, 300)).toEqual([
      "- user: question",
      "- assistant: answer",
      "- assistant (called search, read_document): ",
      "- tool search: id: doc_1",
      "- assistant: no calls",
    ]);
  });

  it("collapses whitespace runs and trims the text", () => {
    expect(snippet(userMessage("  one \n\n two\tthree  "), 300)).toBe("- user: one two three");
  });

  it("sees text past long whitespace runs", () => {
    expect(snippet(userMessage(`a${" ".repeat(100)}b`), 20)).toBe("- user: a b");
    expect(snippet(userMessage(`a${" ".repeat(1_000)}b`), 20)).toBe("- user: a b");
  });

  it("reads a long text far enough to fill the snippet after collapsing", () => {
    const text = `${"a ".repeat(5)}${" ".repeat(200)}${"b".repeat(100)}`;
    expect(snippet(userMessage(text), 30)).toBe(`- user: a a a a a ${"b".repeat(11)}…`);
  });

  it("keeps a snippet of exactly maxChars and cuts a longer one to maxChars with an ellipsis", () => {
    const exact = "x".repeat(20 - "- user: ".length);
    expect(snippet(userMessage(exact), 20)).toBe(`- user: ${exact}`);
    expect(snippet(userMessage(`${exact}y`), 20)).toBe(`- user: ${exact.slice(0, -1)}…`);
    expect(snippet(userMessage(`${exact}y`), 20)).toHaveLength(20);
  });

  it("reads on when the first prefix collapses to a line of exactly maxChars", () => {
    // 40 chars (twice maxChars) collapse to "abcdefghijkl": the line is exactly 20 chars, but more text follows.
    const text = `abcdefghijkl${" ".repeat(28)}z`;
    expect(snippet(userMessage(text), 20)).toBe("- user: abcdefghijk…");
  });

  it("gives the same line for a page however long it runs past the cut", () => {
    const page = "word ".repeat(10);
    expect(snippet(userMessage(page + "z".repeat(10_000)), 40)).toBe(snippet(userMessage(`${page}zz`), 40));
  });
});

describe("renderNote within maxChars", () => {
  const messages = [userMessage("first message"), userMessage("second message, a little longer")];
  const dropped = new Uint8Array([1, 1]);
  const header = noteHeader(2);
  const first = "- user: first message";
  const second = "- user: second message, a little longer";
  const tail = (left: number) => `- … and ${left} more`;
  const snippetAt = (index: number) => snippet(messages[index] as Message, 300);
  const render = (maxChars: number) => renderNote(dropped, 2, maxChars, snippetAt);

  it("adds a snippet only when the tail of the rest still fits after it", () => {
    const room = header.length + 1 + first.length + 1 + tail(2).length;
    expect(render(room)).toBe([header, first, tail(1)].join("\n"));
    expect(render(room - 1)).toBe([header, tail(2)].join("\n"));
  });

  it("adds the tail only when it fits", () => {
    expect(render(header.length + 1 + tail(2).length)).toBe([header, tail(2)].join("\n"));
    expect(render(header.length + tail(2).length)).toBe(header);
  });

  it("counts every snippet already added against the room", () => {
    const room = header.length + 1 + first.length + 1 + second.length + 1 + tail(1).length - 1;
    expect(render(room)).toBe([header, first, tail(1)].join("\n"));
  });

  it("lists every dropped message when there is room, and only those", () => {
    const some = new Uint8Array([0, 1]);
    expect(renderNote(some, 1, 10_000, snippetAt)).toBe([noteHeader(1), second].join("\n"));
    expect(render(10_000)).toBe([header, first, second].join("\n"));
  });

  it("asks for the snippets of dropped messages only, and no more than droppedCount of them", () => {
    const asked: number[] = [];
    const marks = new Uint8Array([0, 1, 2, 1, 1]);
    renderNote(marks, 1, 10_000, (index) => {
      asked.push(index);
      return `- line ${index}`;
    });
    expect(asked).toEqual([1]);
  });
});

describe("digestNoteLine", () => {
  const digest = [
    DIGEST_HEADER,
    "tool: read_document",
    "source: file_id=f · page 2",
    "digest:",
    "  - Amounts: base rent",
    "figures verbatim: $1,250,000; 2.5%; §8.2",
    're-read: read_document(file_id="f", offset=5000) or read_original(tool_call_id="c7")',
  ].join("\n");
  const result = toolResult("c7", "read_document", "raw page");

  it("gives the call id, the re-read calls whole and the figures, and no bullet", () => {
    expect(digestNoteLine(result, digest, 300)).toBe(
      '- tool read_document (call c7, condensed) — re-read: read_document(file_id="f", offset=5000) or read_original(tool_call_id="c7"); figures verbatim: $1,250,000; 2.5%; §8.2',
    );
  });

  it("cuts the figures to maxChars, never the re-read calls", () => {
    const line = digestNoteLine(result, digest, 25) as string;
    expect(line).toContain('or read_original(tool_call_id="c7"); figures verbatim: $1,2…');
    expect(line.endsWith("…")).toBe(true);
  });

  it("is undefined for text that is not a digest or a message that is not a result", () => {
    expect(digestNoteLine(result, "plain text", 300)).toBeUndefined();
    expect(digestNoteLine(userMessage("hi"), digest, 300)).toBeUndefined();
  });
});

describe("snippet with a read_original handle", () => {
  it("puts the handle after the label, on top of maxChars", () => {
    const result = toolResult("c1", "fetch", "x".repeat(500));
    const plain = snippet(result, 40);
    const handled = snippet(result, 40, 'read_original(tool_call_id="c1")');
    expect(handled).toBe(
      `- tool fetch — read_original(tool_call_id="c1")${plain.slice("- tool fetch".length)}`,
    );
  });
});

describe("renderNote with read_original handles", () => {
  const messages: Message[] = Array.from({ length: 30 }, (_, index) =>
    index % 2 === 0
      ? userMessage(`request ${index} ${"x".repeat(200)}`)
      : toolResult(`c${index}`, "fetch", "y".repeat(500)),
  );
  const handleAt = (index: number) => {
    const message = messages[index] as Message;
    return message.role === "tool" ? `read_original(tool_call_id="${message.toolCallId}")` : undefined;
  };
  // Listed results name their handle on their own line, as the assembler's note lines do.
  const render = (maxChars: number) =>
    renderNote(
      new Uint8Array(messages.length).fill(1),
      messages.length,
      maxChars,
      (index) => snippet(messages[index] as Message, 300, handleAt(index)),
      handleAt,
    );

  it("closes with the handles of every result its lines leave out, within maxChars", () => {
    const note = render(1_500);
    expect(note.length).toBeLessThanOrEqual(1_500);
    for (let index = 1; index < messages.length; index += 2)
      expect(note).toContain(`tool_call_id="c${index}"`);
    expect(note.split("\n").at(-1)).toMatch(
      /^- … and \d+ more; re-read their results with read_original\(tool_call_id="c\d+"\)/,
    );
  });

  it("lists every message as before when the room allows, and falls back to the plain tail without room for the handles", () => {
    const roomy = render(100_000);
    expect(roomy).toBe(
      renderNote(new Uint8Array(messages.length).fill(1), messages.length, 100_000, (index) =>
        snippet(messages[index] as Message, 300, handleAt(index)),
      ),
    );
    expect(render(200).split("\n").at(-1)).toBe("- … and 30 more");
  });
});
