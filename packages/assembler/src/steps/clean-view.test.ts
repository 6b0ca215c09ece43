import { describe, expect, it } from "vitest";
import {
  assistantCalling,
  digestFor,
  documentPage,
  systemMessage,
  toolCall,
  toolExchange,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { type AssembleOptions, assembleModelView } from "../assemble";
import { DIGEST_HEADER } from "../contract/stubs";
import { type OrgPolicyInput, validateOrgPolicy } from "../org-policy";
import { readOriginal } from "../read-original/read-original";
import type { DigestEntry, Message } from "../types";
import type { CacheContext } from "./cache-policy";

const PAGE_1 = documentPage("lease_445", 1);
const PAGE_2 = documentPage("lease_445", 2);
const NOTES = documentPage("notes_1", 1);

function digestText(source: string): string {
  return `${DIGEST_HEADER}\ntool: read_document\nsource: ${source}\ndigest:\n  - base rent $1,250,000/yr`;
}

/** Three results before the wall with a matching digest row each, and a closing user message. */
function thread(): Message[] {
  return [
    systemMessage(),
    userMessage("Review the lease."),
    ...toolExchange("r1", "read_document", { file_id: "lease_445", offset: 0 }, PAGE_1),
    ...toolExchange("r2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE_2),
    ...toolExchange("f1", "read_file", { path: "/pinned/notes.md", offset: 0 }, NOTES),
    ...toolExchange("w1", "web_search", { q: "a" }, "id: https://example.com/a"),
    ...toolExchange("w2", "web_search", { q: "b" }, "id: https://example.com/b"),
    ...toolExchange("w3", "web_search", { q: "c" }, "id: https://example.com/c"),
    userMessage("Draft the memo."),
  ];
}

function digests(): Map<string, DigestEntry> {
  return new Map([
    ["r1", digestFor(PAGE_1, digestText("lease_445 page 1"))],
    ["r2", digestFor(PAGE_2, digestText("lease_445 page 2"))],
    ["f1", digestFor(NOTES, digestText("notes page 1"))],
  ]);
}

const WARM = { idleMs: 1_000 } as const;

function assemble(messages: Message[], cache: CacheContext, toolRules?: OrgPolicyInput["toolRules"]) {
  return assembleModelView(messages, digests(), {
    disabled: false,
    cache,
    orgPolicy: toolRules ? validateOrgPolicy({ toolRules }) : null,
  });
}

describe("sticky condensations give way to the org's rules at the next turn start", () => {
  const messages = thread();
  const first = assemble(messages, { turnStart: true });
  const shown = first.report.ledger.condensedIds;

  it("without a rule, what the previous view showed condensed stays condensed", () => {
    expect(shown).toEqual(["r1", "r2", "f1"]);
    expect(assemble(messages, { turnStart: true, ...WARM, shown }).report.ledger.condensedIds).toEqual(shown);
  });

  it.each<[string, OrgPolicyInput["toolRules"]]>([
    ["neverCondense", { neverCondense: ["read_file"] }],
    ["exclude", { exclude: ["read_file"] }],
    ["include", { include: ["read_document"] }],
    ["protectedArgs", { protectedArgs: [{ arg: "path", pattern: "^/pinned/" }] }],
  ])("%s set since: raw from the turn's first call on, and unchanged within the turn", (_rule, toolRules) => {
    const fileAt = messages.findIndex((message) => message.role === "tool" && message.toolCallId === "f1");
    const turnStart = assemble(messages, { turnStart: true, ...WARM, shown }, toolRules);
    expect(turnStart.messages[fileAt]).toBe(messages[fileAt]);
    expect(turnStart.report.ledger.condensedIds).toEqual(["r1", "r2"]);
    // The next call of the same turn keeps the view as it is.
    const next = turnStart.report.ledger.condensedIds;
    const later = assemble(messages, { turnStart: false, ...WARM, shown: next }, toolRules);
    expect(later.messages[fileAt]).toBe(messages[fileAt]);
    // Had the rule come mid-turn, the view keeps its condensed form until the turn ends.
    const midTurn = assemble(messages, { turnStart: false, ...WARM, shown }, toolRules);
    expect(midTurn.messages[fileAt]).not.toBe(messages[fileAt]);
    expect(midTurn.report.ledger.condensedIds).toEqual(["r1", "r2", "f1"]);
  });
});

/**
 * An interrupt answer (`ask_user`, kept) whose id a document read also carries, with a
 * later identical answer a duplicate stub could point to, and a digest row for the read.
 */
function sharedIdThread(): { messages: Message[]; digests: Map<string, DigestEntry> } {
  const reply = `Yes, go on with the review. ${"Flag every clause on assignment and rent. ".repeat(20)}`;
  const messages: Message[] = [
    systemMessage(),
    userMessage("Review the lease."),
    ...toolExchange("c1", "read_document", { file_id: "lease_445", offset: 0 }, PAGE_1),
    ...toolExchange("c1", "ask_user", { question: "Proceed?" }, reply),
    ...toolExchange("c9", "ask_user", { question: "Proceed?" }, reply),
    ...toolExchange("r2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE_2),
    ...toolExchange("w1", "web_search", { q: "a" }, "id: https://example.com/a"),
    ...toolExchange("w2", "web_search", { q: "b" }, "id: https://example.com/b"),
    ...toolExchange("w3", "web_search", { q: "c" }, "id: https://example.com/c"),
    userMessage("Draft the memo."),
  ];
  const rows = new Map([
    ["c1", digestFor(PAGE_1, digestText("lease_445 page 1"))],
    ["r2", digestFor(PAGE_2, digestText("lease_445 page 2"))],
  ]);
  return { messages, digests: rows };
}

describe("results that share a tool call id", () => {
  const { messages, digests: rows } = sharedIdThread();
  const at = (id: string, tool: string) =>
    messages.findIndex(
      (message) => message.role === "tool" && message.toolCallId === id && message.toolName === tool,
    );
  const read = at("c1", "read_document");
  const answer = at("c1", "ask_user");

  it("are never condensed nor listed in condensedIds, though a row hash-matches one of them", () => {
    for (const cache of [false, { turnStart: true }] as const) {
      const view = assembleModelView(messages, rows, { disabled: false, cache });
      expect(view.messages[read]).toBe(messages[read]);
      expect(view.messages[answer]).toBe(messages[answer]);
      expect(view.report.ledger.condensedIds).toEqual(["r2"]);
    }
  });

  it("a shown id another result carries makes no kept interrupt answer flip within the turn", () => {
    // `shown` as a view from before the id was shared listed it.
    for (const turnStart of [false, true]) {
      const view = assembleModelView(messages, rows, {
        disabled: false,
        cache: { turnStart, ...WARM, shown: ["c1", "r2"] },
      });
      expect(view.messages[answer]).toBe(messages[answer]);
      expect(view.messages[read]).toBe(messages[read]);
      expect(view.report.ledger.condensedIds).toEqual(["r2"]);
    }
  });

  it("are not condensed by the backstop either, and no stand-in names their id for read_original", () => {
    const options: AssembleOptions = { disabled: false, historyBudgetChars: 2_000, readOriginal: true };
    const view = assembleModelView(messages, rows, options);
    expect(view.report.compaction.fired).toBe(true);
    for (const index of [read, answer]) {
      const shown = view.messages.find((message) => message === messages[index]);
      const dropped = shown === undefined;
      expect(dropped || shown === messages[index]).toBe(true);
    }
    expect(JSON.stringify(view.messages)).not.toContain('read_original(tool_call_id=\\"c1\\")');
  });
});

describe("read_original handles name results by an id of their own", () => {
  it("a result with an empty id that the backstop drops leaves a snippet without a handle", () => {
    const messages: Message[] = [
      systemMessage(),
      userMessage("Review the lease."),
      assistantCalling(toolCall("", "read_document", { file_id: "lease_445", offset: 0 })),
      toolResult("", "read_document", PAGE_1),
      ...toolExchange("r2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE_2),
      ...toolExchange("w1", "web_search", { q: "a" }, "id: https://example.com/a"),
      ...toolExchange("w2", "web_search", { q: "b" }, "id: https://example.com/b"),
      ...toolExchange("w3", "web_search", { q: "c" }, "id: https://example.com/c"),
      userMessage("Draft the memo."),
    ];
    const view = assembleModelView(messages, new Map(), {
      disabled: false,
      historyBudgetChars: 1_500,
      readOriginal: true,
    });
    expect(view.report.compaction.droppedMessages).toBeGreaterThan(0);
    const text = JSON.stringify(view.messages);
    expect(text).not.toContain('read_original(tool_call_id=\\"\\")');
    for (const match of text.matchAll(/read_original\(tool_call_id=\\"([^"\\]*)\\"\)/g))
      expect(readOriginal(messages, { tool_call_id: match[1] }).ok, match[1]).toBe(true);
    expect(text).toContain('read_original(tool_call_id=\\"r2\\")');
  });
});
