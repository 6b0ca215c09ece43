import { describe, expect, it } from "vitest";
import {
  deepFreeze,
  digestFor,
  documentPage,
  resultIndex,
  systemMessage,
  toolExchange,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { assembleModelView } from "../assemble";
import { contentText } from "../content";
import { DIGEST_HEADER } from "../contract/stubs";
import type { DigestEntry, Message } from "../types";
import { readOriginal, readOriginalHandle } from "./read-original";

const PAGE_1 = documentPage("lease_1", 1, 6_000);
const PAGE_2 = documentPage("lease_1", 2, 6_000);
const SIDE = documentPage("side_2", 1, 3_000);
const SEARCH = "id: lease_1\nid: side_2";

function digestText(page: number, rereadLine = true): string {
  return [
    DIGEST_HEADER,
    "tool: read_document",
    `source: file_id=lease_1 · page ${page}`,
    "digest:",
    `  - Amounts: ${"the base rent steps up each lease year as Exhibit B sets out; ".repeat(12)}`,
    `figures verbatim: $1,${page}50,000; §${page}.2`,
    ...(rereadLine ? [`re-read: read_document(file_id="lease_1", offset=${(page - 1) * 6_000})`] : []),
  ].join("\n");
}

const SUPERSEDED = [
  "[Superseded search results — condensed by context-cleaner; every hit id kept verbatim.]",
  'tool: search(q="lease")',
  "hit ids verbatim: lease_1; side_2",
  "superseded by: the later search in tool call s2; re-running the search returns current data.",
].join("\n");

/** Two digested pages, a superseded search, a duplicate read, an error retried, four recent exchanges. */
function thread(): Message[] {
  return deepFreeze([
    systemMessage(),
    userMessage("Review the lease."),
    ...toolExchange("p1", "read_document", { file_id: "lease_1", offset: 0 }, PAGE_1),
    ...toolExchange("p2", "read_document", { file_id: "lease_1", offset: 6_000 }, PAGE_2),
    ...toolExchange("s1", "search", { q: "lease" }, SEARCH),
    ...toolExchange("d1", "read_document", { file_id: "side_2", offset: 0 }, SIDE),
    ...toolExchange("e1", "fetch", { url: "u" }, "Error: upstream 503\nat fetch()", "error"),
    ...toolExchange("e2", "fetch", { url: "u" }, "fetched"),
    ...toolExchange("d2", "read_document", { file_id: "side_2", offset: 0 }, SIDE),
    ...toolExchange("s2", "search", { q: "lease 2" }, "id: lease_1"),
    userMessage("Now draft the memo."),
  ]);
}

function rows(messages: readonly Message[]): Map<string, DigestEntry> {
  const contentOf = (id: string) => (messages[resultIndex(messages, id)] as Message).content;
  return new Map([
    ["p1", digestFor(PAGE_1, digestText(1))],
    ["p2", digestFor(PAGE_2, digestText(2, false))],
    ["s1", { ...digestFor(contentOf("s1"), SUPERSEDED), kind: "superseded-search" }],
  ]);
}

const KEEP_NONE = { recencyKeepExchanges: 0 };

/** The text of the result of call `id` in `view` (the backstop's note shifts positions). */
function textAt(view: readonly Message[], _messages: readonly Message[], id: string): string {
  return contentText((view[resultIndex(view, id)] as Message).content);
}

describe("stand-ins with read_original enabled", () => {
  const messages = thread();
  const digests = rows(messages);
  const on = assembleModelView(messages, digests, { ...KEEP_NONE, readOriginal: true });
  const off = assembleModelView(messages, digests, KEEP_NONE);

  it("names read_original beside a digest's own re-read call, and on a line of its own without one", () => {
    expect(textAt(on.messages, messages, "p1")).toBe(`${digestText(1)} or ${readOriginalHandle("p1")}`);
    expect(textAt(on.messages, messages, "p2")).toBe(
      `${digestText(2, false)}\noriginal as recorded: ${readOriginalHandle("p2")}`,
    );
    expect(textAt(on.messages, messages, "s1")).toBe(
      `${SUPERSEDED}\noriginal as recorded: ${readOriginalHandle("s1")}`,
    );
  });

  it("names it in the duplicate and error stubs, with the stubbed result's own call id", () => {
    expect(textAt(on.messages, messages, "d1")).toBe(
      `[Duplicate result — identical to the result of tool call d2 (read_document) below; the original is one call away: read_document(file_id="side_2", offset=0) or ${readOriginalHandle("d1")}]`,
    );
    expect(textAt(on.messages, messages, "e1")).toBe(
      `[Transient error, retried successfully below: Error: upstream 503 — failed call: fetch(url="u"); the whole error: ${readOriginalHandle("e1")}]`,
    );
  });

  it("changes nothing else: off, no stand-in names it, and the same results are condensed", () => {
    for (const message of off.messages) expect(contentText(message.content)).not.toContain("read_original");
    expect(on.report.substitutions).toBe(off.report.substitutions);
    expect(on.report.stubs).toEqual(off.report.stubs);
    expect(on.report.ledger.condensedIds).toEqual(off.report.ledger.condensedIds);
  });

  it("every handle it names returns, through the executor, the exact raw result it stands for", () => {
    for (const id of ["p1", "p2", "s1", "d1", "e1"]) {
      expect(textAt(on.messages, messages, id)).toContain(readOriginalHandle(id));
      const result = readOriginal(messages, { tool_call_id: id });
      expect(result.ok && result.content).toBe(textAt(messages, messages, id));
    }
  });

  it("leaves the view of the view as it is", () => {
    const again = assembleModelView(on.messages, digests, { ...KEEP_NONE, readOriginal: true });
    expect(again.messages).toEqual(on.messages);
    expect(again.report).toMatchObject({
      stale: 0,
      substitutions: 0,
      stubs: { duplicate: 0, errorRetry: 0 },
    });
  });

  it("takes the tool's name from { toolName }", () => {
    const named = assembleModelView(messages, digests, {
      ...KEEP_NONE,
      readOriginal: { toolName: "raw_result" },
    });
    expect(textAt(named.messages, messages, "d1")).toContain('raw_result(tool_call_id="d1")');
    expect(textAt(named.messages, messages, "d1")).not.toContain("read_original");
  });
});

describe("the backstop's stand-ins with read_original enabled", () => {
  const messages = thread();
  const digests = rows(messages);
  const full = assembleModelView(messages, digests, { ...KEEP_NONE, readOriginal: true });

  it("names it in a figures-only digest and in the stub of a raw result condensed to fit", () => {
    const budget = full.report.assembledChars - 500;
    const { messages: view, report } = assembleModelView(messages, digests, {
      ...KEEP_NONE,
      readOriginal: true,
      historyBudgetChars: budget,
      lowWaterRatio: 1,
    });
    expect(report.compaction.fired).toBe(true);
    const shrunk = textAt(view, messages, "p1");
    expect(shrunk).toContain("(bullets of tool call p1 left out");
    expect(shrunk).toContain(readOriginalHandle("p1"));
    const pinned = deepFreeze([
      userMessage("Read side_2."),
      ...toolExchange("big", "fetch", { url: "a" }, "x".repeat(9_000)),
      ...toolExchange("next", "fetch", { url: "b" }, "short"),
      userMessage("Go on."),
    ]);
    const stubbed = assembleModelView(pinned, null, {
      ...KEEP_NONE,
      readOriginal: true,
      historyBudgetChars: 1_000,
    });
    expect(textAt(stubbed.messages, pinned, "big")).toBe(
      `[Condensed by context-cleaner to fit the history budget: tool call big — re-running fetch(url="a") returns current data; ${readOriginalHandle("big")} returns the result as recorded.]`,
    );
  });

  it("lists a dropped digested result by its figures and re-read calls, and names it for a dropped raw result", () => {
    const { messages: view, report } = assembleModelView(messages, digests, {
      ...KEEP_NONE,
      readOriginal: true,
      historyBudgetChars: 1_200,
      noteMaxChars: 4_000,
    });
    expect(report.compaction.droppedMessages).toBeGreaterThan(0);
    const note = view.find(
      (message) => message.role === "user" && contentText(message.content).includes("Snippets:"),
    );
    const lines = contentText(note?.content ?? "").split("\n");
    expect(lines).toContain(
      `- tool read_document (call p1, condensed) — re-read: read_document(file_id="lease_1", offset=0) or ${readOriginalHandle("p1")}; figures verbatim: $1,150,000; §1.2`,
    );
    expect(lines).toContain(
      `- tool read_document (call p2, condensed) — re-read: ${readOriginalHandle("p2")}; figures verbatim: $1,250,000; §2.2`,
    );
    const search = lines.find((line) => line.startsWith("- tool search"));
    expect(
      search?.startsWith(`- tool search — ${readOriginalHandle("s1")}: [Superseded search results`),
    ).toBe(true);
  });

  it("names it for every dropped result the note lists, raw or stubbed", () => {
    const raw = deepFreeze([
      userMessage("Fetch both."),
      ...toolExchange("f1", "fetch", { url: "a" }, `alpha ${"a".repeat(2_000)}`),
      ...toolExchange("f2", "fetch", { url: "b" }, "beta"),
      userMessage(`A long request. ${"b".repeat(3_000)}`),
      userMessage("Next."),
      ...toolExchange("f3", "fetch", { url: "c" }, "gamma"),
    ]);
    const { messages: view, report } = assembleModelView(raw, null, {
      ...KEEP_NONE,
      readOriginal: true,
      historyBudgetChars: 2_000,
      lowWaterRatio: 1,
    });
    expect(report.compaction.droppedMessages).toBeGreaterThan(0);
    const note = contentText(
      view.find((message) => contentText(message.content).includes("Snippets:"))?.content ?? "",
    );
    const toolLines = note.split("\n").filter((line) => line.startsWith("- tool "));
    expect(toolLines.length).toBeGreaterThan(0);
    for (const line of toolLines)
      expect(line).toMatch(/^- tool fetch — read_original\(tool_call_id="f[12]"\): /);
  });
});

describe("the backstop's note without read_original", () => {
  it("lists a dropped digested result by its figures and its tool's re-read call, not a prefix of its text", () => {
    const messages = thread();
    const { messages: view } = assembleModelView(messages, rows(messages), {
      ...KEEP_NONE,
      historyBudgetChars: 1_200,
      noteMaxChars: 4_000,
    });
    const note = contentText(
      view.find((message) => message.role === "user" && contentText(message.content).includes("Snippets:"))
        ?.content ?? "",
    );
    expect(note).toContain(
      '- tool read_document (call p1, condensed) — re-read: read_document(file_id="lease_1", offset=0); figures verbatim: $1,150,000; §1.2',
    );
    expect(note).not.toContain("Amounts:");
    expect(note).not.toContain("read_original");
    // A dropped result without a digest keeps its snippet.
    expect(note).toContain("\n- tool search: [Superseded search results — condensed by context-cleaner;");
  });
});
