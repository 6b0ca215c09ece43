import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { showsAnnouncedTurn } from "./announced-turn";

const thread: Message[] = [
  { role: "user", content: "Read the lease", id: "u1" },
  { role: "assistant", content: "", id: "a1", toolCalls: [{ id: "c1", name: "read", args: {} }] },
  { role: "tool", content: "page", toolCallId: "c1", toolName: "read" },
  { role: "assistant", content: "Done.", id: "a2" },
];

describe("showsAnnouncedTurn", () => {
  it("is shown by any read when the event announces nothing, even of no checkpoint", () => {
    expect(showsAnnouncedTurn(thread, {})).toBe(true);
    expect(showsAnnouncedTurn(null, {})).toBe(true);
  });

  it("is never shown by a thread with no checkpoint yet", () => {
    expect(showsAnnouncedTurn(null, { messageCount: 0 })).toBe(false);
    expect(showsAnnouncedTurn(null, { lastMessageId: "a2" })).toBe(false);
  });

  it("by id: shown when a message with the announced id is in the thread, wherever it stands", () => {
    expect(showsAnnouncedTurn(thread, { lastMessageId: "a2", messageCount: 4 })).toBe(true);
    // A later turn, or messages removed since, do not hide it.
    expect(showsAnnouncedTurn(thread, { lastMessageId: "a1", messageCount: 9 })).toBe(true);
    // As many messages, but not the announced one: the checkpoint is behind.
    expect(showsAnnouncedTurn(thread, { lastMessageId: "a3", messageCount: 4 })).toBe(false);
    expect(showsAnnouncedTurn(thread.slice(0, 3), { lastMessageId: "a2" })).toBe(false);
  });

  it("by count, when the event has no id: shown by at least as many messages", () => {
    expect(showsAnnouncedTurn(thread, { messageCount: 4 })).toBe(true);
    expect(showsAnnouncedTurn(thread, { messageCount: 3 })).toBe(true);
    expect(showsAnnouncedTurn(thread, { messageCount: 5 })).toBe(false);
    expect(showsAnnouncedTurn([], { messageCount: 0 })).toBe(true);
  });
});
