import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  assistantText,
  documentPage,
  resultIndex,
  systemMessage,
  toolCall,
  toolExchange,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { createToolPolicy } from "../policy";
import { protectMessages, protectWindow } from "../steps/protect";
import { indexedThreadOf, threadFactsOf } from "../thread/thread-state";
import type { AssistantMessage, Message, ToolMessage } from "../types";
import {
  hasEmptyToolCallId,
  isInterruptResult,
  isLedgerFirstPage,
  isPolicyKept,
  KEEP_REASONS,
  KEEP_RULE_DEFAULTS,
  nextTurnWallStart,
  provenanceKeys,
  readOffset,
  recencyWallStart,
  sourceKey,
} from "./keep-rules";
import { forEachReferenceSpan, type IsDocumentRead, isSingleToken, windowText } from "./window-references";

/**
 * Whether the recency window (messages from `wallStart`) refers to any of `keys`, read the
 * way the keep index reads it: one-token keys among each message's reference tokens, other
 * keys in the window's reference text.
 */
function windowMentions(
  messages: readonly Message[],
  wallStart: number,
  isDocumentRead: IsDocumentRead,
  keys: readonly string[],
): boolean {
  const window = messages.slice(wallStart);
  const tokens = new Set<string>();
  for (const message of window) {
    forEachReferenceSpan(message, isDocumentRead, (text, start, end) => tokens.add(text.slice(start, end)));
  }
  const text = windowText(window, isDocumentRead);
  return keys.some((key) => (isSingleToken(key) ? tokens.has(key) : text.includes(key)));
}

const policy = createToolPolicy();

describe("recency-wall: recencyWallStart and nextTurnWallStart", () => {
  const exchanges = (from: number, count: number): Message[] =>
    Array.from({ length: count }, (_, offset) =>
      toolExchange(`c${from + offset}`, "search", { q: from + offset }, "hits"),
    ).flat();

  it("starts at the latest user message moved back past the last 3 exchanges", () => {
    // 0 system, 1 user, 2..11 five exchanges, 12 user, 13..14 active turn
    const messages = [
      systemMessage(),
      userMessage("go"),
      ...exchanges(1, 5),
      userMessage("next"),
      ...exchanges(9, 1),
    ];
    const latestUser = 12;
    expect(messages[latestUser]?.role).toBe("user");
    expect(recencyWallStart(messages, 3)).toBe(latestUser - 6);
    expect(recencyWallStart(messages, 1)).toBe(latestUser - 2);
    expect(recencyWallStart(messages, 0)).toBe(latestUser);
  });

  it("starts at the latest user message by default", () => {
    const messages = [systemMessage(), userMessage("go"), ...exchanges(1, 5), userMessage("next")];
    expect(KEEP_RULE_DEFAULTS.recencyKeepExchanges).toBe(0);
    expect(recencyWallStart(messages)).toBe(messages.length - 1);
    expect(nextTurnWallStart(messages.slice(0, -1))).toBe(messages.length - 1);
  });

  it("counts an exchange with several tool results as one", () => {
    const messages = [
      userMessage("go"),
      assistantCalling(toolCall("a", "search", {}), toolCall("b", "search", {})),
      toolResult("a", "search", "x"),
      toolResult("b", "search", "y"),
      ...exchanges(1, 1),
      userMessage("next"),
    ];
    expect(recencyWallStart(messages, 2)).toBe(1);
    expect(recencyWallStart(messages, 1)).toBe(4);
  });

  it("nextTurnWallStart: the wall once a user message follows the last message", () => {
    // 0 user, 1..8 four exchanges, 9 the answer that ends the turn
    const ended = [userMessage("go"), ...exchanges(1, 4), assistantText("Done.")];
    expect(recencyWallStart(ended, 3)).toBe(0);
    expect(nextTurnWallStart(ended, 3)).toBe(5);
    expect(nextTurnWallStart(ended, 1)).toBe(9);
    expect(nextTurnWallStart(ended, 0)).toBe(ended.length);
    expect(nextTurnWallStart(ended, 3)).toBe(recencyWallStart([...ended, userMessage("next")], 3));
    // Once the next user message is in, both walls agree.
    const started = [...ended, userMessage("next")];
    expect(nextTurnWallStart(started, 3)).toBe(recencyWallStart(started, 3));
  });

  it("counts the last exchanges across earlier user messages", () => {
    // 0..3 two exchanges, 4 user, 5..6 one exchange, 7 user
    const messages = [...exchanges(1, 2), userMessage("first"), ...exchanges(3, 1), userMessage("second")];
    expect(recencyWallStart(messages, 3)).toBe(0);
    expect(recencyWallStart(messages, 2)).toBe(2);
    expect(recencyWallStart(messages, 1)).toBe(5);
  });

  it("starts at a first and only user message, whatever follows", () => {
    expect(recencyWallStart([userMessage("go"), ...exchanges(1, 5)])).toBe(0);
  });

  it("takes tool results right before the latest user message into the wall, with or without their call", () => {
    const orphans = [userMessage("go"), toolResult("c1", "search", "x"), toolResult("c2", "search", "y")];
    expect(recencyWallStart([...orphans, userMessage("next")], 1)).toBe(1);
  });

  it("keeps the last exchanges when there is no user message", () => {
    const messages = [systemMessage(), ...exchanges(1, 5)];
    expect(recencyWallStart(messages, 3)).toBe(5);
  });
});

describe("empty-tool-call-id: hasEmptyToolCallId", () => {
  it("is true only for an empty tool call id", () => {
    expect(hasEmptyToolCallId(toolResult("", "read_document", "Error: timeout", "error"))).toBe(true);
    expect(hasEmptyToolCallId(toolResult("c1", "read_document", "text"))).toBe(false);
  });
});

describe("interrupt: isInterruptResult", () => {
  it("is true for ask_user and for tools the policy marks interrupt", () => {
    const custom = createToolPolicy({ tools: { send_mail: { kind: "interrupt" } } });
    expect(isInterruptResult(toolResult("c1", "ask_user", "yes"), policy)).toBe(true);
    expect(isInterruptResult(toolResult("c1", "send_mail", "sent"), custom)).toBe(true);
    expect(isInterruptResult(toolResult("c1", "send_mail", "sent"), policy)).toBe(false);
    expect(isInterruptResult(toolResult("c1", "read_document", "text"), policy)).toBe(false);
  });
});

describe("ledger-first-page: isLedgerFirstPage", () => {
  const ledgerText = "TRACKED CHANGES\n1. Deleted §4.2 (J. Smith)\n\nLease body …";

  it.each([
    ["offset 0", { file_id: "f1", offset: 0 }],
    ["offset absent", { file_id: "f1" }],
    ['offset "0" as a string', { file_id: "f1", offset: "0" }],
  ])("is true for a first page (%s) carrying a ledger", (_label, args) => {
    const call = toolCall("c1", "read_document", args);
    expect(isLedgerFirstPage(toolResult("c1", "read_document", ledgerText), call, policy)).toBe(true);
  });

  it("is false for a later page of the same document, even with a ledger", () => {
    const call = toolCall("c2", "read_document", { file_id: "f1", offset: 58_000 });
    expect(isLedgerFirstPage(toolResult("c2", "read_document", ledgerText), call, policy)).toBe(false);
  });

  it("is false for a first page without a ledger marker", () => {
    const call = toolCall("c1", "read_document", { file_id: "f1", offset: 0 });
    expect(isLedgerFirstPage(toolResult("c1", "read_document", documentPage("f1", 1)), call, policy)).toBe(
      false,
    );
  });

  it("is false for tools that are not document reads", () => {
    const call = toolCall("c1", "search", { q: "lease" });
    expect(isLedgerFirstPage(toolResult("c1", "search", ledgerText), call, policy)).toBe(false);
  });

  it.each([
    "Redlined draft of 3 May",
    "Comments ledger:\n- p.4 tenant asks",
    "[Comments]\n1. J. Smith: delete the cap",
    "Document text\n[Comment] Landlord: agreed",
    "Revision marks shown in the margin",
  ])("recognises the default marker in %j", (text) => {
    const call = toolCall("c1", "read_document", { file_id: "f1" });
    expect(isLedgerFirstPage(toolResult("c1", "read_document", text), call, policy)).toBe(true);
  });

  it("uses each policy's own marker for the same message object", () => {
    const message = toolResult("c1", "fetch_contract", "AUDIT-TRAIL v3\nbody");
    const call = toolCall("c1", "fetch_contract", { contract_id: "k1" });
    const marked = createToolPolicy({
      tools: {
        fetch_contract: {
          kind: "document-read",
          provenanceArgs: ["contract_id"],
          ledgerMarker: "audit-trail",
        },
      },
    });
    const unmarked = createToolPolicy({
      tools: {
        fetch_contract: { kind: "document-read", provenanceArgs: ["contract_id"], ledgerMarker: "redline" },
      },
    });
    expect(isLedgerFirstPage(message, call, marked)).toBe(true);
    expect(isLedgerFirstPage(message, call, unmarked)).toBe(false);
  });

  it("is false for a tool that is not a document read, even with a ledger marker configured", () => {
    const custom = createToolPolicy({ tools: { search: { kind: "search", ledgerMarker: "tracked" } } });
    const call = toolCall("c1", "search", { q: "lease" });
    expect(isLedgerFirstPage(toolResult("c1", "search", ledgerText), call, custom)).toBe(false);
  });

  it("reads the page again when its content is replaced on the same object", () => {
    const call = toolCall("c1", "read_document", { file_id: "f1", offset: 0 });
    const message = toolResult("c1", "read_document", documentPage("f1", 1));
    expect(isLedgerFirstPage(message, call, policy)).toBe(false);
    message.content = ledgerText;
    expect(isLedgerFirstPage(message, call, policy)).toBe(true);
  });

  it("readOffset reads numbers and numeric strings, ignores the rest", () => {
    expect(readOffset(toolCall("c", "r", { offset: 12 }), "offset")).toBe(12);
    expect(readOffset(toolCall("c", "r", { offset: " 7 " }), "offset")).toBe(7);
    expect(readOffset(toolCall("c", "r", { offset: "next" }), "offset")).toBeUndefined();
    expect(readOffset(toolCall("c", "r", { offset: "" }), "offset")).toBeUndefined();
    expect(readOffset(undefined, "offset")).toBeUndefined();
    expect(readOffset(toolCall("c", "r", { offset: "   " }), "offset")).toBeUndefined();
    expect(readOffset(toolCall("c", "r", { offset: Number.NaN }), "offset")).toBeUndefined();
    expect(readOffset(toolCall("c", "r", { offset: Number.POSITIVE_INFINITY }), "offset")).toBeUndefined();
    expect(readOffset(toolCall("c", "r", { offset: "Infinity" }), "offset")).toBeUndefined();
  });
});

describe("referenced-by-window: provenance keys and window references", () => {
  const documentReads = (toolName: string) => policy.ruleFor(toolName).kind === "document-read";
  it("provenanceKeys are the tool call id and the document id", () => {
    const call = toolCall("c7", "read_document", { file_id: "cd_9f2", offset: 58_000 });
    expect(provenanceKeys(toolResult("c7", "read_document", "x"), call, policy)).toEqual(["c7", "cd_9f2"]);
    expect(
      provenanceKeys(toolResult("c8", "search", "x"), toolCall("c8", "search", { q: "a" }), policy),
    ).toEqual(["c8"]);
    expect(provenanceKeys(toolResult("", "read_document", "x"), undefined, policy)).toEqual([]);
  });

  it("an empty document id is no provenance key: no window mentions it", () => {
    const call = toolCall("c9", "read_document", { file_id: "", offset: 5_000 });
    expect(provenanceKeys(toolResult("c9", "read_document", "x"), call, policy)).toEqual(["c9"]);
    const messages = [
      userMessage("go"),
      assistantCalling(call),
      toolResult("c9", "read_document", documentPage("x", 2)),
      assistantText("a"),
      assistantText("b"),
      assistantText("c"),
      userMessage("Draft the memo."),
    ];
    expect(protectMessages(messages, policy, 3).reasons[2]).toBeUndefined();
  });

  it("takes a numeric document id as a key, and no id of any other type", () => {
    const message = toolResult("c7", "read_document", "x");
    const numeric = toolCall("c7", "read_document", { file_id: 4_417, offset: 0 });
    expect(sourceKey(message, numeric, policy)).toBe("4417");
    expect(provenanceKeys(message, numeric, policy)).toEqual(["c7", "4417"]);
    for (const fileId of [{ id: "cd_9f2" }, ["cd_9f2"], true, null]) {
      const call = toolCall("c7", "read_document", { file_id: fileId, offset: 0 });
      expect(sourceKey(message, call, policy)).toBeUndefined();
      expect(provenanceKeys(message, call, policy)).toEqual(["c7"]);
    }
  });

  it("strips a run of trailing punctuation from a mention, and only trailing punctuation", () => {
    const references = (keys: string[]) =>
      windowMentions([userMessage("Compare cd_9f2... with lease-2024.v2.")], 0, documentReads, keys);
    expect(references(["cd_9f2"])).toBe(true);
    expect(references(["lease-2024.v2"])).toBe(true);
    expect(references(["lease2024.v2"])).toBe(false);
  });

  it("finds a key with spaces in a window tool call's args, but not one split across two messages", () => {
    const messages = [
      userMessage("Compare the Ground "),
      assistantText("Lease 445 draft with the final one."),
      assistantCalling(toolCall("c9", "compare_documents", { file_id: "Ground Lease 446" })),
    ];
    const references = (keys: string[]) => windowMentions(messages, 0, documentReads, keys);
    expect(references(["Ground Lease 446"])).toBe(true);
    expect(references(["Ground Lease 445"])).toBe(false);
  });

  it("finds a document id mentioned in a later user message, with trailing punctuation", () => {
    const messages = [userMessage("old"), userMessage("What does cd_9f2. say about rent?")];
    const references = (keys: string[]) => windowMentions(messages, 1, documentReads, keys);
    expect(references(["c1", "cd_9f2"])).toBe(true);
    expect(references(["c1", "cd_9f"])).toBe(false);
  });

  it("finds a document id inside the args of a window tool call that is not a document read", () => {
    const messages = [
      userMessage("go"),
      assistantCalling(toolCall("c9", "update_tracker", { source: "cd_9f2", value: "$1" })),
    ];
    expect(windowMentions(messages, 1, documentReads, ["cd_9f2"])).toBe(true);
  });

  it("a window document read, and a window tool result, refer to no earlier result", () => {
    const reading = [
      userMessage("go"),
      assistantCalling(toolCall("c9", "read_document", { file_id: "cd_9f2", offset: 58_000 })),
    ];
    expect(windowMentions(reading, 1, documentReads, ["cd_9f2"])).toBe(false);
    // The same args under a tool the policy does not read documents with do refer.
    const noReads = () => false;
    expect(windowMentions(reading, 1, noReads, ["cd_9f2"])).toBe(true);
    const hits = [userMessage("go"), toolResult("s1", "search", 'hits: [{"id": "cd_9f2"}, {"id": "c7"}]')];
    expect(windowMentions(hits, 1, documentReads, ["cd_9f2"])).toBe(false);
    expect(windowMentions(hits, 1, documentReads, ["c7"])).toBe(false);
  });

  it("reads the window's text and its calls' args, but no tool result and no document read's args", () => {
    const window = [
      userMessage("Compare Ground Lease 445"),
      assistantCalling(
        toolCall("c1", "read_document", { file_id: "Ground Lease 446", offset: 0 }),
        toolCall("c2", "compare_documents", { left: "Ground Lease 445", right: "cd_9f2" }),
      ),
      toolResult("c1", "read_document", "Ground Lease 447 is cited here"),
      assistantText("Done."),
    ];
    expect(windowText(window, documentReads)).toBe(
      'Compare Ground Lease 445\n\n{"left":"Ground Lease 445","right":"cd_9f2"}\nDone.',
    );
    const references = (keys: string[]) =>
      windowMentions([userMessage("old"), ...window], 1, documentReads, keys);
    expect(references(["Ground Lease 446"])).toBe(false);
    expect(references(["Ground Lease 447"])).toBe(false);
    expect(references(["Ground Lease 445"])).toBe(true);
  });

  it("finds a one-token key named by any one window message", () => {
    const messages = [userMessage("old"), userMessage("What does cd_9f2 say?"), assistantText("Reading it.")];
    expect(windowMentions(messages, 1, documentReads, ["cd_9f2"])).toBe(true);
  });

  it("takes no shorter token from a mention that does not end in punctuation", () => {
    const references = (keys: string[]) =>
      windowMentions([userMessage("What does cd_9f2 say?")], 0, documentReads, keys);
    expect(references(["cd_9f2"])).toBe(true);
    expect(references(["cd_9f"])).toBe(false);
  });

  it("ignores mentions before the window", () => {
    const messages = [userMessage("read cd_9f2"), userMessage("thanks")];
    expect(windowMentions(messages, 1, documentReads, ["cd_9f2"])).toBe(false);
  });

  it("reads a message again when its content is replaced on the same object", () => {
    const latest = userMessage("Thanks.");
    const messages = [userMessage("old"), latest];
    expect(windowMentions(messages, 1, documentReads, ["cd_9f2"])).toBe(false);
    latest.content = "Now compare cd_9f2.";
    expect(windowMentions(messages, 1, documentReads, ["cd_9f2"])).toBe(true);
  });

  it("matches keys with spaces as substrings of the window text", () => {
    const messages = [userMessage("Open Ground Lease 445 please")];
    expect(windowMentions(messages, 0, documentReads, ["Ground Lease 445"])).toBe(true);
    expect(windowMentions(messages, 0, documentReads, ["Ground Lease 446"])).toBe(false);
  });
});

describe("policy-keep: isPolicyKept", () => {
  it("is true for keep tools only", () => {
    expect(isPolicyKept(toolResult("c1", "save_memory", "ok"), policy)).toBe(true);
    expect(isPolicyKept(toolResult("c1", "load_skill", "steps"), policy)).toBe(true);
    expect(isPolicyKept(toolResult("c1", "read_document", "text"), policy)).toBe(false);
  });
});

describe("protectMessages", () => {
  // A thread whose old part holds one result per keep-rule, and cleanable results.
  function thread(): Message[] {
    return [
      systemMessage(),
      userMessage("Review the Ground Lease and the side letter."),
      ...toolExchange("p1", "read_document", { file_id: "lease", offset: 0 }, documentPage("lease", 1)),
      ...toolExchange("p2", "read_document", { file_id: "lease", offset: 5_000 }, documentPage("lease", 2)),
      ...toolExchange(
        "s1",
        "read_document",
        { file_id: "side", offset: 0 },
        "Tracked changes:\n- cap deleted",
      ),
      ...toolExchange("s2", "read_document", { file_id: "side", offset: 5_000 }, documentPage("side", 2)),
      ...toolExchange("q1", "ask_user", { question: "Which tenant?" }, "Acme Corp"),
      ...toolExchange("m1", "save_memory", { note: "tenant = Acme" }, "saved"),
      assistantCalling(toolCall("", "search", { q: "x" })),
      toolResult("", "search", "Error: no id", "error"),
      ...toolExchange("g1", "search", { q: "escalator" }, "id: lease\nid: side"),
      assistantText("Noted."),
      ...toolExchange("w1", "search", { q: "rent" }, "hits"),
      ...toolExchange("w2", "search", { q: "term" }, "hits"),
      ...toolExchange("w3", "search", { q: "cap" }, "hits"),
      userMessage("What does the lease say about page 2? cf. p1"),
    ];
  }

  it("gives each message its first matching reason", () => {
    const messages = thread();
    const { wallStart, reasons } = protectMessages(messages, policy, 3);
    const reasonOf = (id: string) => reasons[resultIndex(messages, id)];
    expect(reasons[0]).toBe(KEEP_REASONS.conversational);
    expect(reasonOf("s1")).toBe(KEEP_REASONS.ledgerFirstPage);
    expect(reasonOf("s2")).toBeUndefined();
    expect(reasonOf("q1")).toBe(KEEP_REASONS.interrupt);
    expect(reasonOf("m1")).toBe(KEEP_REASONS.policyKeep);
    expect(reasonOf("")).toBe(KEEP_REASONS.emptyToolCallId);
    expect(reasonOf("g1")).toBeUndefined();
    expect(wallStart).toBe(resultIndex(messages, "w1") - 1);
    expect(reasonOf("w1")).toBe(KEEP_REASONS.recencyWall);
    expect(reasons[messages.length - 1]).toBe(KEEP_REASONS.conversational);
  });

  it("keeps the result the window names by call id and the latest page of the document it names", () => {
    const messages = thread();
    const { reasons } = protectMessages(messages, policy, 3);
    expect(reasons[resultIndex(messages, "p1")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(reasons[resultIndex(messages, "p2")]).toBe(KEEP_REASONS.referencedByWindow);
  });

  it("records a result another rule keeps as referred to, without keeping the rest of its document", () => {
    const messages = thread();
    messages[messages.length - 1] = userMessage("What do the redlines in s1 change?");
    const { reasons, mentioned } = protectMessages(messages, policy, 3);
    expect(reasons[resultIndex(messages, "s1")]).toBe(KEEP_REASONS.ledgerFirstPage);
    expect(mentioned.has(resultIndex(messages, "s1"))).toBe(true);
    expect(reasons[resultIndex(messages, "s2")]).toBeUndefined();
  });

  it("keeps the latest page of a document the window names, and nothing of another document", () => {
    const messages = thread();
    messages[messages.length - 1] = userMessage("Compare with side please.");
    const { reasons } = protectMessages(messages, policy, 3);
    expect(reasons[resultIndex(messages, "s2")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(reasons[resultIndex(messages, "p1")]).toBeUndefined();
    expect(reasons[resultIndex(messages, "p2")]).toBeUndefined();
  });

  it("evaluates the same message objects afresh under another policy", () => {
    const messages = thread();
    const marked = createToolPolicy({
      tools: { read_document: { kind: "keep" }, ask_user: { kind: "other" } },
    });
    const before = protectMessages(messages, policy, 3).reasons;
    const after = protectMessages(messages, marked, 3).reasons;
    expect(before[resultIndex(messages, "s2")]).toBeUndefined();
    expect(after[resultIndex(messages, "s2")]).toBe(KEEP_REASONS.policyKeep);
    expect(before[resultIndex(messages, "q1")]).toBe(KEEP_REASONS.interrupt);
    expect(after[resultIndex(messages, "q1")]).toBeUndefined();
    expect(protectMessages(messages, policy, 3).reasons).toEqual(before);
  });

  it("keeps a result the window mentions by call id when its tool names no document, and only that one", () => {
    const messages = thread();
    messages[messages.length - 1] = userMessage("Which hits did g1 return?");
    const { reasons, mentioned } = protectMessages(messages, policy, 3);
    expect(reasons[resultIndex(messages, "g1")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(mentioned).toEqual(new Set([resultIndex(messages, "g1")]));
    // Results of the same tool without a document id are no common source.
    const sibling = [
      ...messages.slice(0, -1),
      ...toolExchange("g2", "search", { q: "term" }, "id: other"),
      assistantText("a"),
      assistantText("b"),
      assistantText("c"),
      userMessage("Which hits did g1 return?"),
    ];
    const again = protectMessages(sibling, policy, 3).reasons;
    expect(again[resultIndex(sibling, "g1")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(again[resultIndex(sibling, "g2")]).toBeUndefined();
  });

  it("evaluates a result afresh when its content or its call is replaced on the same objects", () => {
    const messages = thread();
    messages[messages.length - 1] = userMessage("Thanks, draft the memo.");
    const page = resultIndex(messages, "p1");
    expect(protectMessages(messages, policy, 3).reasons[page]).toBeUndefined();
    const result = messages[page] as ToolMessage;
    result.content = "Tracked changes:\n- rent cap deleted";
    expect(protectMessages(messages, policy, 3).reasons[page]).toBe(KEEP_REASONS.ledgerFirstPage);
    const asking = messages[page - 1] as AssistantMessage;
    asking.toolCalls = [toolCall("p1", "read_document", { file_id: "lease", offset: 5_000 })];
    expect(protectMessages(messages, policy, 3).reasons[page]).toBeUndefined();
  });

  it("evaluates each result's keep-rules once while its content, call and policy stay the same", () => {
    let reads = 0;
    const args = {
      get file_id() {
        reads++;
        return "lease";
      },
      offset: 5_000,
    };
    const messages = thread();
    const page = resultIndex(messages, "p2");
    (messages[page - 1] as AssistantMessage).toolCalls = [{ id: "p2", name: "read_document", args }];
    const first = protectMessages(messages, policy, 3).reasons;
    const readsAfterFirst = reads;
    expect(readsAfterFirst).toBeGreaterThan(0);
    expect(protectMessages(messages, policy, 3).reasons).toEqual(first);
    expect(reads).toBe(readsAfterFirst);
  });

  it("gives a reason slot to every message, also when the thread ends in a cleanable result", () => {
    const messages = [
      systemMessage(),
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000 }, documentPage("lease", 2)),
    ];
    const { reasons } = protectMessages(messages, policy, 0);
    expect(reasons).toHaveLength(messages.length);
    expect(reasons[2]).toBeUndefined();
  });

  it("evaluates the keep-rules for the recency wall it is given", () => {
    // The turn ended with an answer: the next turn's wall holds the last 3 exchanges, the
    // answer counting as one.
    const messages = [
      userMessage("Read the lease."),
      ...toolExchange("p1", "read_document", { file_id: "lease", offset: 0 }, documentPage("lease", 1)),
      ...toolExchange("p2", "read_document", { file_id: "lease", offset: 5_000 }, documentPage("lease", 2)),
      ...toolExchange("w1", "search", { q: "rent" }, "hits"),
      ...toolExchange("w2", "search", { q: "term" }, "hits"),
      ...toolExchange("w3", "search", { q: "cap" }, "hits"),
      assistantText("Done."),
    ];
    expect(protectMessages(messages, policy, 3).wallStart).toBe(0);
    const next = nextTurnWallStart(messages, 3);
    expect(next).toBe(resultIndex(messages, "w2") - 1);
    const { wallStart, reasons } = protectMessages(messages, policy, 3, next);
    expect(wallStart).toBe(next);
    for (const id of ["p1", "p2", "w1"]) expect(reasons[resultIndex(messages, id)]).toBeUndefined();
    expect(reasons[resultIndex(messages, "w2")]).toBe(KEEP_REASONS.recencyWall);
    // The count of exchanges is not used when the wall is given.
    expect(protectMessages(messages, policy, 0, next).reasons).toEqual(reasons);
  });

  it("keeps a result whose key with spaces the window names, reading the window only", () => {
    const messages = [
      userMessage("Open Ground Lease 446 when you can."),
      ...toolExchange(
        "g5",
        "read_document",
        { file_id: "Ground Lease 445", offset: 5_000 },
        documentPage("g", 2),
      ),
      ...toolExchange(
        "g6",
        "read_document",
        { file_id: "Ground Lease 446", offset: 5_000 },
        documentPage("h", 2),
      ),
      userMessage("What does Ground Lease 445 say about rent?"),
    ];
    const { reasons, mentioned } = protectMessages(messages, policy, 0);
    expect(reasons[resultIndex(messages, "g5")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(reasons[resultIndex(messages, "g6")]).toBeUndefined();
    expect([...mentioned]).toEqual([resultIndex(messages, "g5")]);
  });

  it("puts a result the given wall starts at inside the wall, where mentions of it pin nothing", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000 }, documentPage("lease", 2)),
      ...toolExchange(
        "r2",
        "read_document",
        { file_id: "Ground Lease 445", offset: 0 },
        documentPage("g", 1),
      ),
      userMessage("What did r1 and Ground Lease 445 return?"),
    ];
    const [first, second] = [resultIndex(messages, "r1"), resultIndex(messages, "r2")];
    const atFirst = protectMessages(messages, policy, 0, first);
    expect(atFirst.reasons[first]).toBe(KEEP_REASONS.recencyWall);
    expect([...atFirst.mentioned]).toEqual([]);
    const atSecond = protectMessages(messages, policy, 0, second);
    expect(atSecond.reasons[second]).toBe(KEEP_REASONS.recencyWall);
    expect(atSecond.reasons[first]).toBe(KEEP_REASONS.referencedByWindow);
    expect([...atSecond.mentioned]).toEqual([first]);
  });

  it("pins the pages of a mentioned source before the wall only, and counts each protected result once", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000 }, documentPage("lease", 2)),
      ...toolExchange("r2", "read_document", { file_id: "lease", offset: 10_000 }, documentPage("lease", 3)),
      userMessage("What did r1 say?"),
    ];
    const [first, second] = [resultIndex(messages, "r1"), resultIndex(messages, "r2")];
    const protection = protectWindow(threadFactsOf(indexedThreadOf(messages), policy), second);
    expect([...protection.referenced]).toEqual([first]);
    // r2 by the recency wall, r1 by the window.
    expect(protection.protectedResults).toBe(2);
  });

  it("keeps a result whose one-char call id the window names", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("7", "search", { q: "rent" }, "hits"),
      ...toolExchange("8", "search", { q: "term" }, "hits"),
      userMessage("What did 7 return?"),
    ];
    const { reasons } = protectMessages(messages, policy, 0);
    expect(reasons[resultIndex(messages, "7")]).toBe(KEEP_REASONS.referencedByWindow);
    expect(reasons[resultIndex(messages, "8")]).toBeUndefined();
  });

  it("keeps a result the window names after one inside the wall", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("r2", "search", { q: "rent" }, "hits"),
      ...toolExchange("r9", "search", { q: "term" }, "hits"),
      userMessage("Compare r9 with r2."),
    ];
    const wallStart = resultIndex(messages, "r9") - 1;
    const { reasons, mentioned } = protectMessages(messages, policy, 0, wallStart);
    expect(reasons[resultIndex(messages, "r2")]).toBe(KEEP_REASONS.referencedByWindow);
    expect([...mentioned]).toEqual([resultIndex(messages, "r2")]);
  });

  it("finds for a window message the results before it that it names, in order", () => {
    const messages = [
      userMessage("go"),
      ...toolExchange("r1", "search", { q: "rent" }, "hits"),
      ...toolExchange("r2", "search", { q: "term" }, "hits"),
      userMessage("Compare r2, r1 and r5."),
      ...toolExchange("r5", "search", { q: "cap" }, "hits"),
    ];
    const { keep } = threadFactsOf(indexedThreadOf(messages), policy);
    const asking = messages.findIndex((message) => message.content === "Compare r2, r1 and r5.");
    expect(keep.mentionedBy(asking, messages[asking] as Message)).toEqual([
      resultIndex(messages, "r1"),
      resultIndex(messages, "r2"),
    ]);
  });

  it("leaves old results cleanable when the window mentions nothing of theirs", () => {
    const messages = thread();
    messages[messages.length - 1] = userMessage("Thanks, draft the memo.");
    const { reasons } = protectMessages(messages, policy, 3);
    expect(reasons[resultIndex(messages, "p1")]).toBeUndefined();
    expect(reasons[resultIndex(messages, "p2")]).toBeUndefined();
  });
});

describe("referenced-by-window: a window naming a document keeps what it refers to, not every page", () => {
  const NOTICE = "The Tenant shall give the Landlord three months' written notice.";
  // Five pages of lease_445 read before the wall; page 3 holds the notice clause.
  function leaseThread(window: Message[]): Message[] {
    const pages = [0, 5_000, 10_000, 15_000, 20_000].flatMap((offset, index) =>
      toolExchange(
        `r${index + 1}`,
        "read_document",
        { file_id: "lease_445", offset },
        index === 2
          ? `${documentPage("p3", 3, 2_000)}\n${NOTICE.replace("three months'", "three\nmonths'")}`
          : documentPage(`p${index + 1}`, index + 1, 2_000),
      ),
    );
    return [userMessage("Review lease_445."), ...pages, ...window];
  }
  const kept = (messages: Message[]) => {
    const { reasons, mentioned } = protectMessages(messages, policy, 0);
    const ids = ["r1", "r2", "r3", "r4", "r5"].filter(
      (id) => reasons[resultIndex(messages, id)] === KEEP_REASONS.referencedByWindow,
    );
    expect([...mentioned].sort((a, b) => a - b)).toEqual(ids.map((id) => resultIndex(messages, id)));
    return ids;
  };

  it("keeps only the document's latest page when the window echoes its id", () => {
    expect(kept(leaseThread([userMessage("Per lease_445, what is the rent?")]))).toEqual(["r5"]);
  });

  it("keeps a page the window names by offset, beside the latest", () => {
    expect(kept(leaseThread([userMessage("In lease_445 at offset 10,000 — what changed?")]))).toEqual([
      "r3",
      "r5",
    ]);
    expect(kept(leaseThread([userMessage("lease_445 offset: 5000 please")]))).toEqual(["r2", "r5"]);
  });

  it("keeps a page holding a passage the window quotes, whitespace aside", () => {
    const quoting = userMessage(`lease_445 says "three months' written notice" — is that binding?`);
    expect(kept(leaseThread([quoting]))).toEqual(["r3", "r5"]);
    const short = userMessage(`lease_445 says "notice" — is that binding?`);
    expect(kept(leaseThread([short]))).toEqual(["r5"]);
  });

  it("keeps the latest older page while the wall gains pages of the document: what a turn's start pinned stays pinned mid-turn", () => {
    const start = leaseThread([userMessage("Read the last page of lease_445.")]);
    expect(kept(start)).toEqual(["r5"]);
    const midTurn = [
      ...start,
      ...toolExchange(
        "r6",
        "read_document",
        { file_id: "lease_445", offset: 25_000 },
        documentPage("p6", 6, 2_000),
      ),
    ];
    expect(kept(midTurn)).toEqual(["r5"]);
    const { reasons } = protectMessages(midTurn, policy, 0);
    expect(reasons[resultIndex(midTurn, "r6")]).toBe(KEEP_REASONS.recencyWall);
  });

  it("keeps a result the window names by its call id, and not the rest of its document", () => {
    expect(kept(leaseThread([userMessage("What did r2 return?")]))).toEqual(["r2"]);
  });
});
