import type { MessageParam } from "@anthropic-ai/sdk/resources/messages";
import { describe, expect, it } from "vitest";
import { anthropicPairingProblems } from "#test/assembler/fixtures/anthropic-pairing";
import { pageText } from "#test/assembler/fixtures/provider-thread";
import { contentSha256 } from "../../contract/hash";
import {
  COMPACTION_NOTE_PREFIX,
  DIGEST_HEADER,
  renderDuplicateStub,
  renderErrorRetryStub,
} from "../../contract/stubs";
import { InvalidThreadError } from "../../errors";
import { type OrgPolicyInput, validateOrgPolicy } from "../../org-policy";
import type { DigestEntry } from "../../types";
import { anthropicToNeutral, assembleAnthropicView } from "./anthropic-adapter";

const PAGE = pageText("lease_445", 5_000, 6_000);
const SIDE_LETTER = "Side letter: the tenant may assign to an affiliate without consent. ".repeat(8);
const DIGEST = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - rent $1,250,000`;
const REMINDER = { type: "text" as const, text: "<reminder>cite sections</reminder>" };

function digestFor(content: string, digest: string): DigestEntry {
  return { digest, contentSha256: contentSha256(content), digestChars: digest.length };
}

function calling(id: string, name: string, input: Record<string, unknown>, text?: string): MessageParam {
  return {
    role: "assistant",
    content: [...(text ? [{ type: "text" as const, text }] : []), { type: "tool_use", id, name, input }],
  };
}

function result(id: string, content: string, extra: { is_error?: boolean } = {}): MessageParam {
  return { role: "user", content: [{ type: "tool_result", tool_use_id: id, content, ...extra }] };
}

/** A legal-review thread: a digested page, an error then retry, a duplicate read, three recent exchanges. */
function anthropicThread(): MessageParam[] {
  return [
    { role: "user", content: "Review the lease." },
    calling("p1", "read_document", { file_id: "lease_445", offset: 5_000 }, "Reading page 2."),
    {
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "p1", content: PAGE, cache_control: { type: "ephemeral" } },
      ],
    },
    calling("e1", "search", { q: "assignment" }),
    result("e1", "Error: backend timeout\ntrace", { is_error: true }),
    calling("e2", "search", { q: "assignment" }),
    {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "e2", content: "id: lease_445" }, REMINDER],
    },
    calling("d1", "read_document", { file_id: "side_77" }),
    result("d1", SIDE_LETTER),
    calling("d2", "read_document", { file_id: "side_77" }),
    result("d2", SIDE_LETTER),
    ...["w1", "w2", "w3"].flatMap((id) => [calling(id, "web_search", { q: id }), result(id, `id: ${id}`)]),
    { role: "user", content: "Draft the memo." },
  ];
}

const digests = new Map([["p1", digestFor(PAGE, DIGEST)]]);

function toolResultBlock(message: MessageParam | undefined, index = 0): Record<string, unknown> {
  const block = Array.isArray(message?.content) ? message.content[index] : undefined;
  if (block?.type !== "tool_result") throw new Error("fixture: no tool_result block there");
  return block as unknown as Record<string, unknown>;
}

describe("assembleAnthropicView", () => {
  const thread = anthropicThread();
  // Without breakpoints: these tests look at what cleaning alone does to the messages.
  const { messages: view, report } = assembleAnthropicView(thread, digests, { cacheBreakpoints: false });

  it("returns untouched messages as the same objects and rebuilds only the condensed ones", () => {
    expect(view).toHaveLength(thread.length);
    const rebuilt = new Set([2, 4, 8]);
    view.forEach((message, index) => {
      if (rebuilt.has(index)) expect(message).not.toBe(thread[index]);
      else expect(message).toBe(thread[index]);
    });
    expect(report).toMatchObject({ substitutions: 1, stale: 0, stubs: { duplicate: 1, errorRetry: 1 } });
  });

  it("keeps tool_use_id, is_error and cache_control on replaced tool_result blocks", () => {
    expect(toolResultBlock(view[2])).toEqual({
      type: "tool_result",
      tool_use_id: "p1",
      content: DIGEST,
      cache_control: { type: "ephemeral" },
    });
    expect(toolResultBlock(view[4])).toEqual({
      type: "tool_result",
      tool_use_id: "e1",
      content: renderErrorRetryStub("Error: backend timeout", `search(q="assignment")`),
      is_error: true,
    });
    expect(toolResultBlock(view[8]).content).toBe(
      renderDuplicateStub("read_document", "d2", `read_document(file_id="side_77")`),
    );
  });

  it("does not mutate the input", () => {
    expect(toolResultBlock(thread[2]).content).toBe(PAGE);
    expect(thread).toEqual(anthropicThread());
  });

  it("keeps every tool_use paired with its one tool_result in the next user message", () => {
    expect(anthropicPairingProblems(view)).toEqual([]);
  });

  it("keeps the text blocks of a mixed user message as the same objects when a result in it is condensed", () => {
    const mixed = anthropicThread();
    mixed[2] = { role: "user", content: [toolResultBlock(mixed[2]) as never, REMINDER] };
    const again = assembleAnthropicView(mixed, digests, { cacheBreakpoints: false }).messages[2];
    expect(again).not.toBe(mixed[2]);
    expect(Array.isArray(again?.content) && again.content[1]).toBe(REMINDER);
    expect(toolResultBlock(again).content).toBe(DIGEST);
  });

  it("does not treat text beside tool results as a new user turn (the active turn stays raw)", () => {
    // One turn: the user asks, then a duplicate read and three more exchanges, each result
    // carrying a reminder. Were the reminders user turns, the duplicate would be stubbed.
    const turn: MessageParam[] = [
      { role: "user", content: "Review the side letter." },
      ...["d1", "d2", "x1", "x2", "x3", "x4"].flatMap((id): MessageParam[] => [
        calling(id, "read_document", { file_id: id.startsWith("d") ? "side_77" : id }),
        {
          role: "user",
          content: [{ type: "tool_result", tool_use_id: id, content: SIDE_LETTER }, REMINDER],
        },
      ]),
    ];
    const { messages, report } = assembleAnthropicView(turn, null, { cacheBreakpoints: false });
    expect(report.stubs.duplicate).toBe(0);
    messages.forEach((message, index) => {
      expect(message).toBe(turn[index]);
    });
  });

  it("answers the backstop's note as a user message and never splits an exchange", () => {
    const { messages, report } = assembleAnthropicView(thread, digests, {
      historyBudgetChars: 300,
      cacheBreakpoints: false,
    });
    expect(report.compaction.fired).toBe(true);
    const note = messages.find(
      (message) => typeof message.content === "string" && message.content.startsWith(COMPACTION_NOTE_PREFIX),
    );
    expect(note?.role).toBe("user");
    expect(anthropicPairingProblems(messages)).toEqual([]);
    expect(messages.at(-1)).toBe(thread.at(-1));
  });

  it("sees a tool_result block edited in place (the hash gate checks live content)", () => {
    const mutable = anthropicThread();
    expect(assembleAnthropicView(mutable, digests).report.substitutions).toBe(1);
    const block = toolResultBlock(mutable[2]);
    block.content = `${PAGE} (amended)`;
    const again = assembleAnthropicView(mutable, digests);
    expect(again.report).toMatchObject({ substitutions: 0, stale: 1 });
    expect(again.messages[2]).toBe(mutable[2]);
  });

  it("passes the kill switch through", () => {
    const off = assembleAnthropicView(thread, digests, { disabled: true });
    expect(off.messages).toHaveLength(thread.length);
    off.messages.forEach((message, index) => {
      expect(message).toBe(thread[index]);
    });
  });
});

const EPHEMERAL = { type: "ephemeral" as const };

function blockAt(message: MessageParam | undefined, index: number): unknown {
  return Array.isArray(message?.content) ? message.content[index] : undefined;
}

/** The blocks of `message` that carry a cache_control breakpoint, by index. */
function marked(message: MessageParam | undefined): number[] {
  if (!message || typeof message.content === "string") return [];
  return message.content.flatMap((block, index) =>
    "cache_control" in block && block.cache_control ? [index] : [],
  );
}

describe("assembleAnthropicView cache breakpoints", () => {
  it("marks the end of the stable prefix (before the first changed message) and the end of the request", () => {
    const thread = anthropicThread();
    const { messages, report, cacheBreakpoints } = assembleAnthropicView(thread, digests);
    // The first change is p1's result (neutral position 2, in message 2): the prefix ends at message 1.
    expect(report.ledger.prefixKeptMessages).toBe(2);
    const last = thread.length - 1;
    expect(cacheBreakpoints).toEqual([
      { message: 1, block: 1, kind: "prefix" },
      { message: 2, block: 0, kind: "caller" },
      { message: last, block: 0, kind: "end" },
    ]);
    expect(marked(messages[1])).toEqual([1]);
    // A string content becomes one text block carrying the breakpoint.
    expect(messages[last]).toEqual({
      role: "user",
      content: [{ type: "text", text: "Draft the memo.", cache_control: EPHEMERAL }],
    });
    // Only the marked messages are copies; their other blocks stay the same objects.
    expect(messages[0]).toBe(thread[0]);
    expect(messages[3]).toBe(thread[3]);
    expect(messages[1]).not.toBe(thread[1]);
    expect(blockAt(messages[1], 0)).toBe(blockAt(thread[1], 0));
    expect(blockAt(thread[1], 0)).toBeDefined();
    expect(thread).toEqual(anthropicThread());
    expect(anthropicPairingProblems(messages)).toEqual([]);
  });

  it("when nothing changed, marks the message before the latest user message, or before the latest assistant message it is", () => {
    const thread: MessageParam[] = [
      { role: "user", content: "Review the lease." },
      calling("a", "read_document", { file_id: "lease_445" }),
      result("a", "id: lease_445"),
      { role: "assistant", content: "Done." },
      { role: "user", content: "Now the side letter." },
    ];
    const { messages, report, cacheBreakpoints } = assembleAnthropicView(thread, null);
    expect(report.ledger.prefixKeptMessages).toBe(thread.length);
    // "Done." is the latest assistant message, which goes as it came: the message before it takes the mark.
    expect(cacheBreakpoints).toEqual([
      { message: 2, block: 0, kind: "prefix" },
      { message: 4, block: 0, kind: "end" },
    ]);
    expect(marked(messages[2])).toEqual([0]);
    expect(messages[2]).toEqual({
      role: "user",
      content: [{ ...(blockAt(thread[2], 0) as object), cache_control: EPHEMERAL }],
    });
    for (const index of [0, 1, 3]) expect(messages[index]).toBe(thread[index]);
  });

  it("keeps every breakpoint the caller set and drops its own first beyond four", () => {
    const callerMarked = (id: string): MessageParam => ({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: id, content: `id: ${id}`, cache_control: EPHEMERAL }],
    });
    const base: MessageParam[] = [{ role: "user", content: "Compare the leases." }];
    for (const id of ["a", "b", "c", "d"]) base.push(calling(id, "search", { q: id }), callerMarked(id));
    base.push({ role: "assistant", content: "Compared." }, { role: "user", content: "Summarise." });

    // Three of the caller's: room for one more, the end of the request.
    const three = base.filter((message) => message !== base[8]);
    const withThree = three.map((message, index) => (index === 7 ? result("d", "id: d") : message));
    const one = assembleAnthropicView(withThree, null);
    expect(one.cacheBreakpoints.filter((mark) => mark.kind === "caller")).toHaveLength(3);
    expect(one.cacheBreakpoints.filter((mark) => mark.kind !== "caller")).toEqual([
      { message: withThree.length - 1, block: 0, kind: "end" },
    ]);

    // Four of the caller's: none of its own, the caller's all kept.
    const four = assembleAnthropicView(base, null);
    expect(four.cacheBreakpoints.map((mark) => mark.kind)).toEqual(["caller", "caller", "caller", "caller"]);
    four.messages.forEach((message, index) => {
      expect(message).toBe(base[index]);
    });

    // Breakpoints outside messages (system, tools) count too.
    const fewer = assembleAnthropicView(withThree.slice(0, 3).concat(withThree.slice(-2)), null, {
      cacheBreakpoints: { elsewhere: 2 },
    });
    expect(fewer.cacheBreakpoints.map((mark) => mark.kind)).toEqual(["caller", "end"]);
    expect(() => assembleAnthropicView(base, null, { cacheBreakpoints: { elsewhere: -1 } })).toThrow(
      /cacheBreakpoints\.elsewhere/,
    );
  });

  it("does not add a second breakpoint where the caller already set one", () => {
    const thread: MessageParam[] = [
      { role: "user", content: "Hi." },
      { role: "assistant", content: "Hello." },
      { role: "user", content: [{ type: "text", text: "Review the lease.", cache_control: EPHEMERAL }] },
    ];
    const { messages, cacheBreakpoints } = assembleAnthropicView(thread, null);
    expect(cacheBreakpoints).toEqual([
      { message: 0, block: 0, kind: "prefix" },
      { message: 2, block: 0, kind: "caller" },
    ]);
    expect(messages[1]).toBe(thread[1]);
    expect(messages[2]).toBe(thread[2]);
  });

  it("sets none with cacheBreakpoints: false or the kill switch", () => {
    const thread = anthropicThread();
    for (const options of [{ cacheBreakpoints: false }, { disabled: true }] as const) {
      const { messages, cacheBreakpoints } = assembleAnthropicView(thread, digests, options);
      expect(cacheBreakpoints).toEqual([{ message: 2, block: 0, kind: "caller" }]);
      expect(messages.at(-1)).toBe(thread.at(-1));
      expect(messages[1]).toBe(thread[1]);
    }
  });

  it("never puts a breakpoint on a thinking block: the last other block takes it, or none", () => {
    const thinking = { type: "thinking" as const, thinking: "The lease says…", signature: "sig" };
    const redacted = { type: "redacted_thinking" as const, data: "opaque" };
    const thread: MessageParam[] = [
      { role: "user", content: "Review the lease." },
      { role: "assistant", content: [{ type: "text", text: "Reviewed." }, redacted] },
      { role: "user", content: "And the side letter?" },
      { role: "assistant", content: [thinking] },
    ];
    const { messages, cacheBreakpoints } = assembleAnthropicView(thread, null);
    // The request ends on the latest assistant message, thinking only: it goes as it came,
    // and the user message before it takes the end breakpoint.
    expect(cacheBreakpoints).toEqual([
      { message: 1, block: 0, kind: "prefix" },
      { message: 2, block: 0, kind: "end" },
    ]);
    expect(marked(messages[1])).toEqual([0]);
    expect(blockAt(messages[1], 1)).toBe(redacted);
    expect(messages[3]).toBe(thread[3]);
  });
});

describe("anthropicToNeutral", () => {
  it("maps tool_use to tool calls, tool_result to tool messages with their tool name and error status", () => {
    const neutral = anthropicToNeutral(anthropicThread());
    expect(neutral[1]).toEqual({
      role: "assistant",
      content: [{ type: "text", text: "Reading page 2." }],
      toolCalls: [{ id: "p1", name: "read_document", args: { file_id: "lease_445", offset: 5_000 } }],
    });
    expect(neutral[2]).toMatchObject({
      role: "tool",
      toolCallId: "p1",
      toolName: "read_document",
      content: PAGE,
    });
    expect(neutral[4]).toMatchObject({ role: "tool", toolCallId: "e1", toolName: "search", status: "error" });
    expect(neutral[6]).toMatchObject({ role: "tool", toolCallId: "e2" });
    expect(neutral[7]).toEqual({ role: "system", content: [REMINDER] });
  });

  it("keeps system messages, block content and non-object tool input", () => {
    const neutral = anthropicToNeutral([
      { role: "system", content: "Be brief." },
      { role: "assistant", content: [{ type: "tool_use", id: "c", name: "calc", input: "1+1" }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "c", content: [{ type: "text", text: "2" }] }],
      },
    ]);
    expect(neutral).toEqual([
      { role: "system", content: "Be brief." },
      { role: "assistant", content: [], toolCalls: [{ id: "c", name: "calc", args: { input: "1+1" } }] },
      { role: "tool", toolCallId: "c", toolName: "calc", content: [{ type: "text", text: "2" }] },
    ]);
  });
});

describe("Anthropic validation errors", () => {
  function caught(messages: unknown): InvalidThreadError {
    try {
      assembleAnthropicView(messages as MessageParam[]);
    } catch (error) {
      if (error instanceof InvalidThreadError) return error;
      throw error;
    }
    throw new Error("expected an InvalidThreadError");
  }

  it.each([
    ["a role", [{ role: "tool", content: "x" }], 0, "role"],
    ["content", [{ role: "user", content: 7 }], 0, "content"],
    [
      "a block",
      [
        { role: "user", content: "hi" },
        { role: "user", content: [null] },
      ],
      1,
      "content[0]",
    ],
    [
      "a tool_result id",
      [
        { role: "user", content: "hi" },
        { role: "user", content: [{ type: "tool_result", tool_use_id: 3 }] },
      ],
      1,
      "content[0].tool_use_id",
    ],
    [
      "is_error",
      [{ role: "user", content: [{ type: "tool_result", tool_use_id: "a", is_error: "yes" }] }],
      0,
      "content[0].is_error",
    ],
    [
      "a tool_use id",
      [{ role: "assistant", content: [{ type: "tool_use", name: "x", input: {} }] }],
      0,
      "content[0].id",
    ],
    [
      "a tool_result in an assistant message",
      [{ role: "assistant", content: [{ type: "tool_result", tool_use_id: "a" }] }],
      0,
      "content[0]",
    ],
  ])("names the message index and field of %s", (_label, messages, index, field) => {
    const error = caught(messages);
    expect(error).toMatchObject({ index, field });
    expect(error.message).toContain(`messages[${index}].${field}`);
  });

  it("rejects a value that is not an array of objects", () => {
    expect(caught("nope").field).toBe("messages");
    expect(caught([{ role: "user", content: "a" }, 3]).index).toBe(1);
  });
});

describe("assembleAnthropicView under the org's policy (the turn state)", () => {
  // What the storage package's loadTurnState resolves to: the digests with the org's policy.
  const stateOf = (policy: OrgPolicyInput | null) => ({
    digests,
    policy: policy === null ? null : validateOrgPolicy(policy),
  });
  const under = (policy: OrgPolicyInput | null, options = {}) =>
    assembleAnthropicView(anthropicThread(), stateOf(policy), {
      ...{ cacheBreakpoints: false },
      disabled: false,
      ...options,
    });

  it("no policy cleans as the bare digests do", () => {
    const bare = assembleAnthropicView(anthropicThread(), digests, {
      ...{ cacheBreakpoints: false },
      disabled: false,
    });
    const none = under(null);
    expect(JSON.stringify(none.messages)).toBe(JSON.stringify(bare.messages));
    expect(none.report).toEqual(bare.report);
    expect(none.report).toMatchObject({ mode: "on", substitutions: 1 });
  });

  it("off sends what the kill switch sends, and shadow sends what off sends while reporting the cleaned view", () => {
    const killed = assembleAnthropicView(anthropicThread(), digests, {
      ...{ cacheBreakpoints: false },
      disabled: true,
    });
    const off = under({ mode: "off" });
    const shadow = under({ mode: "shadow" });
    expect(JSON.stringify(off.messages)).toBe(JSON.stringify(killed.messages));
    expect(off.report).toMatchObject({ disabled: true, mode: "off", substitutions: 0 });
    expect(JSON.stringify(shadow.messages)).toBe(JSON.stringify(off.messages));
    expect(shadow.report).toMatchObject({ disabled: true, mode: "shadow", substitutions: 0 });
    expect(shadow.report.shadow?.substitutions).toBe(1);
    expect(shadow.report.shadow?.wouldSaveChars).toBeGreaterThan(0);
  });

  it("applies the org's tool rules, and an explicit orgPolicy option wins over the state's", () => {
    const excluded = under({ toolRules: { exclude: ["read_document"] } });
    expect(excluded.report.substitutions).toBe(0);
    expect(excluded.report.ledger.entries.map((entry) => entry.toolCallId)).not.toContain("p1");
    const overridden = under({ mode: "off" }, { orgPolicy: validateOrgPolicy({ mode: "on" }) });
    expect(overridden.report).toMatchObject({ mode: "on", substitutions: 1 });
  });
});
