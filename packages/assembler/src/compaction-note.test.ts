import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  toolCall,
  toolResult,
  userMessage,
} from "../test/fixtures/thread-builder";
import { isCompactionNote, noteHeader, renderNote } from "./compaction-note";
import type { Message } from "./types";

/** The note over `messages` with all of them dropped. */
function noteOf(messages: readonly Message[], snippetChars: number, maxChars = 10_000): string {
  return renderNote(
    messages,
    new Uint8Array(messages.length).fill(1),
    messages.length,
    snippetChars,
    maxChars,
  );
}

function snippetsOf(messages: readonly Message[], snippetChars: number): string[] {
  return noteOf(messages, snippetChars).split("\n").slice(1);
}

describe("noteHeader", () => {
  it("says how many messages were left out", () => {
    expect(noteHeader(7)).toContain(": 7 earlier messages were left out to fit the history budget.");
  });
});

describe("isCompactionNote", () => {
  const note = `${noteHeader(3)}\n- user: hello`;

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

describe("renderNote snippets", () => {
  it("label each message by its role, a result by its tool, a calling assistant by its calls", () => {
    const messages = [
      userMessage("question"),
      assistantText("answer"),
      assistantCalling(toolCall("a", "search"), toolCall("b", "read_document")),
      toolResult("a", "search", "id: doc_1"),
    ];
    expect(snippetsOf(messages, 300)).toEqual([
      "- user: question",
      "- assistant: answer",
      "- assistant (called search, read_document): ",
      "- tool search: id: doc_1",
    ]);
  });

  it("collapse whitespace runs and trim the text", () => {
    expect(snippetsOf([userMessage("  one \n\n two\tthree  ")], 300)).toEqual(["- user: one two three"]);
  });

  it("see text past long whitespace runs", () => {
    expect(snippetsOf([userMessage(`a${" ".repeat(100)}b`)], 20)).toEqual(["- user: a b"]);
  });

  it("keep a snippet of exactly snippetChars and cut a longer one to snippetChars with an ellipsis", () => {
    const exact = "x".repeat(20 - "- user: ".length);
    expect(snippetsOf([userMessage(exact)], 20)).toEqual([`- user: ${exact}`]);
    expect(snippetsOf([userMessage(`${exact}y`)], 20)).toEqual([`- user: ${exact.slice(0, -1)}…`]);
  });
});

describe("renderNote within maxChars", () => {
  const messages = [userMessage("first message"), userMessage("second message, a little longer")];
  const dropped = new Uint8Array([1, 1]);
  const header = noteHeader(2);
  const first = "- user: first message";
  const tail = (left: number) => `- … and ${left} more`;
  const render = (maxChars: number) => renderNote(messages, dropped, 2, 300, maxChars);

  it("adds a snippet only when the tail of the rest still fits after it", () => {
    const room = header.length + 1 + first.length + 1 + tail(2).length;
    expect(render(room)).toBe([header, first, tail(1)].join("\n"));
    expect(render(room - 1)).toBe([header, tail(2)].join("\n"));
  });

  it("adds the tail only when it fits", () => {
    expect(render(header.length + 1 + tail(2).length)).toBe([header, tail(2)].join("\n"));
    expect(render(header.length + tail(2).length)).toBe(header);
  });

  it("lists every dropped message when there is room, and only those", () => {
    const some = new Uint8Array([0, 1]);
    expect(renderNote(messages, some, 1, 300, 10_000)).toBe(
      [noteHeader(1), "- user: second message, a little longer"].join("\n"),
    );
    expect(render(10_000)).toBe([header, first, "- user: second message, a little longer"].join("\n"));
  });
});
