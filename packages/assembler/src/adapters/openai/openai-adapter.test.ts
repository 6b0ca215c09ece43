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

describe("assembleOpenAIView before the latest reasoning item", () => {
  const WARM = { turnStart: true, idleMs: 60_000 };
  /** The thread with reasoning on the last search call (message 16): results 3, 5 and 9 come before it. */
  function reasoningThread(): ChatCompletionMessageParam[] {
    const thread = openAIThread();
    thread[16] = { ...thread[16], reasoning_content: "The memo needs the side letter." } as never;
    return thread;
  }

  it("holds back condensing results before the latest reasoning item while the cache is warm", () => {
    const thread = reasoningThread();
    const { messages, report, reasoning } = assembleOpenAIView(thread, digests, { cache: WARM });
    expect(reasoning).toEqual({ boundary: 16, heldBack: true, results: 3 });
    messages.forEach((message, index) => {
      expect(message).toBe(thread[index]);
    });
    // The report counts what the view holds: nothing condensed, nothing to mark as shown.
    expect(report.ledger.condensedIds).toEqual([]);
    expect(report.ledger.entries).toEqual([]);
    expect(report.substitutions).toBe(0);
    expect(report.assembledChars).toBe(report.rawChars);
  });

  it("condenses them when the cache is cold or unknown", () => {
    const thread = reasoningThread();
    for (const cache of [{ turnStart: true, idleMs: 300_000 }, { turnStart: true }, undefined]) {
      const { messages, report, reasoning } = assembleOpenAIView(thread, digests, cache ? { cache } : {});
      expect(reasoning).toEqual({ boundary: 16, heldBack: false, results: 0 });
      expect(messages[3]?.content).toBe(DIGEST);
      expect(report.ledger.condensedIds).toContain("p1");
    }
  });

  it("keeps condensed what the previous view already showed condensed", () => {
    const thread = reasoningThread();
    const { messages, report, reasoning } = assembleOpenAIView(thread, digests, {
      cache: { ...WARM, shown: ["p1"] },
    });
    expect(messages[3]?.content).toBe(DIGEST);
    expect(report.ledger.condensedIds).toContain("p1");
    expect(messages[5]).toBe(thread[5]);
    expect(messages[9]).toBe(thread[9]);
    expect(reasoning.heldBack).toBe(reasoning.results > 0);
    expect(report.ledger.condensedIds).not.toContain("e1");
  });

  it("condenses results after the latest reasoning item, and reads an explicit boundary", () => {
    const thread = openAIThread();
    const plain = assembleOpenAIView(thread, digests, { cache: WARM });
    expect(plain.reasoning).toEqual({ boundary: undefined, heldBack: false, results: 0 });
    expect(plain.messages[3]?.content).toBe(DIGEST);
    // The boundary between p1's result and the stubbed ones: only p1 is held back.
    const { messages, reasoning } = assembleOpenAIView(thread, digests, {
      cache: WARM,
      reasoningBoundary: 4,
    });
    expect(reasoning).toEqual({ boundary: 4, heldBack: true, results: 1 });
    expect(messages[3]).toBe(thread[3]);
    expect(messages[5]).not.toBe(thread[5]);
    expect(messages[9]).not.toBe(thread[9]);
    expect(() => assembleOpenAIView(thread, digests, { reasoningBoundary: thread.length })).toThrow(
      /reasoningBoundary/,
    );
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
