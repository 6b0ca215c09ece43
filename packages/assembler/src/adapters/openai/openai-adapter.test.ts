import fc from "fast-check";
import type { ChatCompletionMessageParam } from "openai/resources/chat/completions";
import { describe, expect, it } from "vitest";
import {
  digestPickArbitrary,
  digestsFor,
  pageText,
  renderOpenAI,
  threadSpecArbitrary,
} from "#test/assembler/fixtures/provider-thread";
import { contentSha256 } from "../../contract/hash";
import {
  COMPACTION_NOTE_PREFIX,
  DIGEST_HEADER,
  renderDuplicateStub,
  renderErrorRetryStub,
} from "../../contract/stubs";
import { InvalidThreadError } from "../../errors";
import { type OrgPolicyInput, validateOrgPolicy } from "../../org-policy";
import { assembleOpenAIView, type OpenAIMessageLike, openAIToNeutral } from "./openai-adapter";

const PAGE = pageText("lease_445", 5_000, 6_000);
const SIDE_LETTER = "Side letter: the tenant may assign to an affiliate without consent. ".repeat(8);
const DIGEST = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - rent $1,250,000`;
const NUM_RUNS = process.env.CI ? 500 : 150;

function calling(id: string, name: string, args: Record<string, unknown>): ChatCompletionMessageParam {
  return {
    role: "assistant",
    content: null,
    tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
  };
}

function result(id: string, content: string): ChatCompletionMessageParam {
  return { role: "tool", tool_call_id: id, content };
}

function openAIThread(): ChatCompletionMessageParam[] {
  return [
    { role: "developer", content: "You are a careful legal assistant." },
    { role: "user", content: "Review the lease." },
    calling("p1", "read_document", { file_id: "lease_445", offset: 5_000 }),
    result("p1", PAGE),
    calling("e1", "search", { q: "assignment" }),
    result("e1", "Error: backend timeout\ntrace"),
    calling("e2", "search", { q: "assignment" }),
    result("e2", "id: lease_445"),
    calling("d1", "read_document", { file_id: "side_77" }),
    result("d1", SIDE_LETTER),
    calling("d2", "read_document", { file_id: "side_77" }),
    result("d2", SIDE_LETTER),
    ...["w1", "w2", "w3"].flatMap((id) => [calling(id, "web_search", { q: id }), result(id, `id: ${id}`)]),
    { role: "user", content: "Draft the memo." },
  ];
}

const digests = new Map([
  ["p1", { digest: DIGEST, contentSha256: contentSha256(PAGE), digestChars: DIGEST.length }],
]);

/** Pairing as the Chat Completions API wants it: each call's one result follows its assistant message. */
function openAIPairingProblems(messages: readonly OpenAIMessageLike[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const calls = ((message as { tool_calls?: { id: string }[] }).tool_calls ?? []).map((call) => call.id);
    if (message.role !== "assistant" || calls.length === 0) return;
    const results: string[] = [];
    for (let next = index + 1; messages[next]?.role === "tool"; next++) {
      results.push((messages[next] as unknown as { tool_call_id: string }).tool_call_id);
    }
    if (results.join() !== calls.join())
      problems.push(`messages[${index}] asked [${calls}], got [${results}]`);
  });
  return problems;
}

describe("assembleOpenAIView", () => {
  const thread = openAIThread();
  const { messages: view, report } = assembleOpenAIView(thread, digests);

  it("returns untouched messages as the same objects; condensed results keep tool_call_id", () => {
    const replaced = new Set([3, 5, 9]);
    view.forEach((message, index) => {
      if (replaced.has(index)) expect(message).not.toBe(thread[index]);
      else expect(message).toBe(thread[index]);
    });
    expect(view[3]).toEqual({ role: "tool", tool_call_id: "p1", content: DIGEST });
    expect(view[5]).toEqual({
      role: "tool",
      tool_call_id: "e1",
      content: renderErrorRetryStub("Error: backend timeout", `search(q="assignment")`),
    });
    expect(view[9]).toEqual({
      role: "tool",
      tool_call_id: "d1",
      content: renderDuplicateStub("read_document", "d2", `read_document(file_id="side_77")`),
    });
    expect(report).toMatchObject({ substitutions: 1, stubs: { duplicate: 1, errorRetry: 1 } });
    expect(thread).toEqual(openAIThread());
  });

  it("type-checks as the SDK's message params and keeps pairing after the backstop", () => {
    const compacted: ChatCompletionMessageParam[] = assembleOpenAIView(thread, digests, {
      historyBudgetChars: 300,
    }).messages;
    expect(compacted.some((message) => String(message.content).startsWith(COMPACTION_NOTE_PREFIX))).toBe(
      true,
    );
    expect(openAIPairingProblems(compacted)).toEqual([]);
    expect(compacted[0]).toBe(thread[0]);
  });
});

describe("assembleOpenAIView and reasoning items", () => {
  const WARM = { turnStart: true, idleMs: 60_000 };
  /** The thread with reasoning on the last search call (message 16): results 3, 5 and 9 come before it. */
  function reasoningThread(): ChatCompletionMessageParam[] {
    const thread = openAIThread();
    thread[16] = { ...thread[16], reasoning_content: "The memo needs the side letter." } as never;
    return thread;
  }
  /** What a call that condensed nothing sent of `thread`: the keys of the raw thread. */
  function sentRaw(thread: ChatCompletionMessageParam[]): string[] {
    return assembleOpenAIView(thread, null, { cache: WARM, inline: false }).report.ledger.sent;
  }

  it("condenses at a turn's start and sends the reasoning after the first change without it", () => {
    const thread = reasoningThread();
    const { messages, report } = assembleOpenAIView(thread, digests, {
      cache: { ...WARM, shown: [], sent: sentRaw(thread) },
    });
    expect(messages[3]?.content).toBe(DIGEST);
    expect(messages[16]).not.toBe(thread[16]);
    expect(messages[16]).toEqual(openAIThread()[16]);
    expect("reasoning_content" in (messages[16] as object)).toBe(false);
    expect(report.ledger.thinking).toEqual({
      removedBlocks: 1,
      newlyRemovedBlocks: 1,
      changedAt: 3,
      latestInvalidated: false,
    });
    expect(thread).toEqual(reasoningThread());
  });

  it("keeps the reasoning when the view changes nothing before it", () => {
    const thread = reasoningThread();
    const first = assembleOpenAIView(thread, null, { cache: WARM, inline: false });
    expect(first.messages[16]).toBe(thread[16]);
    expect(first.report.ledger.thinking.removedBlocks).toBe(0);
    const again = assembleOpenAIView(thread, null, {
      cache: { turnStart: false, idleMs: 60_000, sent: first.report.ledger.sent },
      inline: false,
    });
    expect(again.messages[16]).toBe(thread[16]);
    expect(again.report.ledger.thinking.changedAt).toBeUndefined();
  });

  it("keeps a reasoning item it left out out on later calls, and keeps later ones", () => {
    const thread = reasoningThread();
    const first = assembleOpenAIView(thread, digests, {
      cache: { ...WARM, shown: [], sent: sentRaw(thread) },
    });
    const grown = [
      ...thread,
      { ...calling("x1", "web_search", { q: "x1" }), reasoning_content: "Now check x1." } as never,
      result("x1", "id: x1"),
    ];
    const next = assembleOpenAIView(grown, digests, {
      cache: {
        turnStart: false,
        idleMs: 60_000,
        shown: first.report.ledger.condensedIds,
        sent: first.report.ledger.sent,
      },
    });
    expect("reasoning_content" in (next.messages[16] as object)).toBe(false);
    expect(next.messages[18]).toBe(grown[18]);
    expect(next.report.ledger.thinking).toEqual({
      removedBlocks: 1,
      newlyRemovedBlocks: 0,
      changedAt: undefined,
      latestInvalidated: false,
    });
  });

  it("lands no batch while the latest assistant message's reasoning awaits its results", () => {
    const thread = [
      ...openAIThread(),
      { ...calling("w4", "web_search", { q: "w4" }), reasoning_content: "Searching w4." } as never,
      result("w4", "id: w4"),
    ];
    const { messages, report } = assembleOpenAIView(thread, digests, {
      cache: { ...WARM, shown: [], sent: sentRaw(thread.slice(0, 19)) },
    });
    expect(messages[3]).toBe(thread[3]);
    expect(messages[19]).toBe(thread[19]);
    expect(report.ledger.batch).toMatchObject({ status: "deferred", reason: "mid-turn" });
    expect(report.ledger.thinking.latestInvalidated).toBe(false);
  });
});

describe("openAIToNeutral", () => {
  it("parses arguments, names tool results after their call, maps developer to system", () => {
    const neutral = openAIToNeutral(openAIThread());
    expect(neutral[0]).toEqual({ role: "system", content: "You are a careful legal assistant." });
    expect(neutral[2]).toEqual({
      role: "assistant",
      content: "",
      toolCalls: [{ id: "p1", name: "read_document", args: { file_id: "lease_445", offset: 5_000 } }],
    });
    expect(neutral[3]).toEqual({ role: "tool", toolCallId: "p1", toolName: "read_document", content: PAGE });
  });

  it("keeps unparsable arguments as text and custom tool input under input", () => {
    const neutral = openAIToNeutral([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "a", type: "function", function: { name: "f", arguments: '{"x": 1' } },
          { id: "b", type: "custom", custom: { name: "g", input: "free text" } },
        ],
      },
    ]);
    expect(neutral[0]).toMatchObject({
      toolCalls: [
        { id: "a", name: "f", args: { arguments: '{"x": 1' } },
        { id: "b", name: "g", args: { input: "free text" } },
      ],
    });
  });

  it.each([
    [[{ role: "critic", content: "x" }], 0, "role"],
    [
      [
        { role: "user", content: "x" },
        { role: "tool", content: "r" },
      ],
      1,
      "tool_call_id",
    ],
    [[{ role: "assistant", content: null, tool_calls: [{ id: 1 }] }], 0, "tool_calls[0].id"],
    [
      [
        {
          role: "assistant",
          content: null,
          tool_calls: [{ id: "a", type: "function", function: { name: "f" } }],
        },
      ],
      0,
      "tool_calls[0].function.arguments",
    ],
    [[{ role: "user", content: 5 }], 0, "content"],
  ])("names the message index and field at fault (%#)", (messages, index, field) => {
    let caught: unknown;
    try {
      assembleOpenAIView(messages as OpenAIMessageLike[]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidThreadError);
    expect(caught).toMatchObject({ index, field });
    expect((caught as Error).message).toContain(`messages[${index}].${field}`);
  });
});

describe("OpenAI adapter properties", () => {
  it("without cleaning, answers with the very same message objects", () => {
    fc.assert(
      fc.property(threadSpecArbitrary, (spec) => {
        const thread = Object.freeze(renderOpenAI(spec)) as unknown as OpenAIMessageLike[];
        const { messages } = assembleOpenAIView(thread, null, { inline: false, disabled: false });
        expect(messages).toHaveLength(thread.length);
        messages.forEach((message, index) => {
          expect(message).toBe(thread[index]);
        });
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it("keeps every call's one result right after it, whatever it condenses or drops", () => {
    let substitutions = 0;
    fc.assert(
      fc.property(
        threadSpecArbitrary,
        digestPickArbitrary,
        fc.integer({ min: 200, max: 8_000 }),
        (spec, pick, budget) => {
          const thread = renderOpenAI(spec) as unknown as OpenAIMessageLike[];
          const digestRows = digestsFor(openAIToNeutral(thread), pick);
          const { messages, report } = assembleOpenAIView(thread, digestRows, {
            historyBudgetChars: budget,
            disabled: false,
          });
          substitutions += report.substitutions;
          expect(openAIPairingProblems(messages)).toEqual([]);
          const inputs = new Set(thread);
          for (const message of messages) {
            if (inputs.has(message)) continue;
            if (message.role === "user") continue; // the backstop's note
            expect(message.role).toBe("tool");
            expect(typeof message.content).toBe("string");
          }
        },
      ),
      { numRuns: NUM_RUNS },
    );
    expect(substitutions).toBeGreaterThan(0);
  });
});

describe("assembleOpenAIView under the org's policy (the turn state)", () => {
  // What the storage package's loadTurnState resolves to: the digests with the org's policy.
  const stateOf = (policy: OrgPolicyInput | null) => ({
    digests,
    policy: policy === null ? null : validateOrgPolicy(policy),
  });
  const under = (policy: OrgPolicyInput | null, options = {}) =>
    assembleOpenAIView(openAIThread(), stateOf(policy), { ...{}, disabled: false, ...options });

  it("no policy cleans as the bare digests do", () => {
    const bare = assembleOpenAIView(openAIThread(), digests, { ...{}, disabled: false });
    const none = under(null);
    expect(JSON.stringify(none.messages)).toBe(JSON.stringify(bare.messages));
    expect(none.report).toEqual(bare.report);
    expect(none.report).toMatchObject({ mode: "on", substitutions: 1 });
  });

  it("off sends what the kill switch sends, and shadow sends what off sends while reporting the cleaned view", () => {
    const killed = assembleOpenAIView(openAIThread(), digests, { ...{}, disabled: true });
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
