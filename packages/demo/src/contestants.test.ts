import { assembleModelView, type Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import {
  BLIND_CAPS,
  CLEAR_TOOL_RESULTS,
  CONTESTANT_DEFAULTS,
  INLINE_ONLY,
  RAW,
  withAssembleOptions,
} from "./contestants";
import { createPruneMessagesContestant, createTrimMessagesContestant } from "./peer-contestants";

function exchange(index: number, chars: number): Message[] {
  const id = `call_${index}`;
  return [
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "read_document", args: { file_id: "cd_1", offset: index } }],
    },
    { role: "tool", toolCallId: id, toolName: "read_document", content: `page ${index} `.padEnd(chars, "x") },
  ];
}

/** Two user turns of reads: `perTurn` reads of `chars` each. */
function thread(perTurn: number, chars: number): Message[] {
  return [
    { role: "system", content: "system" },
    { role: "user", content: "first" },
    ...Array.from({ length: perTurn }, (_, index) => exchange(index, chars)).flat(),
    { role: "assistant", content: "done with the first" },
    { role: "user", content: "second" },
    ...Array.from({ length: perTurn }, (_, index) => exchange(perTurn + index, chars)).flat(),
  ];
}

const texts = (messages: readonly Message[]) => messages.map((message) => String(message.content));

describe("in-house contestants", () => {
  it("raw shows the prompt as it is; blind caps is the kill-switch view; inline only assembles without digests", async () => {
    const prompt = thread(8, 30_000);
    expect((await RAW.view(prompt, new Map())).messages).toBe(prompt);
    expect((await BLIND_CAPS.view(prompt, new Map())).messages).toEqual(
      assembleModelView(prompt, null, { disabled: true }).messages,
    );
    expect((await INLINE_ONLY.view(prompt, new Map())).messages).toEqual(
      assembleModelView(prompt, new Map(), { disabled: false }).messages,
    );
  });

  it("inline only reports its ledger's batch status: applied when a batch of stubs lands, none without one", async () => {
    const clean = thread(2, 1_000);
    // A read repeated in the first turn: the older copy becomes a duplicate stub once the second turn starts.
    const repeated = [
      ...clean.slice(0, 4),
      ...exchange(0, 1_000).map((message, index) =>
        index === 0 && message.role === "assistant"
          ? {
              ...message,
              toolCalls: (message.toolCalls ?? []).map((entry) => ({ ...entry, id: "call_again" })),
            }
          : message.role === "tool"
            ? { ...message, toolCallId: "call_again" }
            : message,
      ),
      ...clean.slice(4),
    ];
    const status = (prompt: Message[]) =>
      assembleModelView(prompt, new Map(), { disabled: false }).report.ledger.batch.status;
    expect(status(repeated)).toBe("applied");
    expect((await INLINE_ONLY.view(repeated, new Map())).batch).toBe("applied");
    expect(status(clean)).toBe("none");
    expect((await INLINE_ONLY.view(clean, new Map())).batch).toBe("none");
    expect((await RAW.view(clean, new Map())).batch).toBeUndefined();
  });

  it("withAssembleOptions adds assembly options to this project's contestants only", async () => {
    expect(withAssembleOptions(RAW, { readOriginal: true })).toBe(RAW);
    // A repeated read: its older copy's stub names read_original once the tool is on.
    const prompt = [
      ...thread(2, 1_000).slice(0, 4),
      ...exchange(0, 1_000).map((message) =>
        message.role === "assistant"
          ? { ...message, toolCalls: (message.toolCalls ?? []).map((entry) => ({ ...entry, id: "again" })) }
          : message.role === "tool"
            ? { ...message, toolCallId: "again" }
            : message,
      ),
      { role: "user", content: "next" } as Message,
    ];
    const plain = texts((await INLINE_ONLY.view(prompt, new Map())).messages).join("\n");
    const tooled = withAssembleOptions(INLINE_ONLY, { readOriginal: true });
    const withTool = texts((await tooled.view(prompt, new Map())).messages).join("\n");
    expect(plain).not.toContain("read_original(");
    expect(withTool).toContain('read_original(tool_call_id="call_0")');
  });

  it("clear-old-tool-results leaves a prompt under the trigger alone", async () => {
    const prompt = thread(2, 10_000);
    expect((await CLEAR_TOOL_RESULTS.view(prompt, new Map())).messages).toBe(prompt);
  });

  it("clear-old-tool-results replaces every result but the last three by the placeholder, keeping the calls", async () => {
    const prompt = thread(8, 30_000);
    const view = (await CLEAR_TOOL_RESULTS.view(prompt, new Map())).messages;
    const results = view.filter((message) => message.role === "tool");
    expect(results).toHaveLength(16);
    expect(texts(results.slice(0, 13)).every((text) => text === CONTESTANT_DEFAULTS.clearedPlaceholder)).toBe(
      true,
    );
    expect(results.slice(13)).toEqual(prompt.filter((message) => message.role === "tool").slice(13));
    expect(view.filter((message) => message.role === "assistant")).toEqual(
      prompt.filter((message) => message.role === "assistant"),
    );
  });
});

describe("LangChain trimMessages", () => {
  it("keeps the system message and the latest turns that fit, starting on a user message", async () => {
    const prompt = thread(4, 30_000);
    // 2 turns of 120,000 + chars: the whole prompt fits the 320,000 budget.
    expect((await createTrimMessagesContestant().view(prompt, new Map())).messages).toEqual(prompt);
    const long = thread(6, 30_000);
    const view = (await createTrimMessagesContestant().view(long, new Map())).messages;
    expect(view[0]).toBe(long[0]);
    expect(view[1]).toEqual({ role: "user", content: "second" });
    expect(view.slice(1)).toEqual(long.slice(long.indexOf(view[1] as Message)));
  });

  it("returns nothing when the latest user turn alone is over the budget", async () => {
    const prompt = thread(12, 30_000);
    expect((await createTrimMessagesContestant().view(prompt, new Map())).messages).toEqual([]);
  });
});

describe("AI SDK pruneMessages", () => {
  it("removes tool calls and results before the last six messages, and the messages left empty", async () => {
    const prompt = thread(4, 1_000);
    const view = (await createPruneMessagesContestant().view(prompt, new Map())).messages;
    expect(view.filter((message) => message.role === "tool")).toEqual(
      prompt.filter((message) => message.role === "tool").slice(-3),
    );
    expect(view.filter((message) => message.role !== "tool" && message.role !== "assistant")).toEqual(
      prompt.filter((message) => message.role !== "tool" && message.role !== "assistant"),
    );
    expect(view).toContainEqual({ role: "assistant", content: "done with the first" });
  });
});
