import { describe, expect, it } from "vitest";
import {
  digestFor,
  documentPage,
  systemMessage,
  toolExchange,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { assembleModelView } from "../assemble";
import { DIGEST_HEADER } from "../contract/stubs";
import { type OrgPolicyInput, validateOrgPolicy } from "../org-policy";
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
