import { describe, expect, it } from "vitest";
import {
  documentPage,
  resultIndex,
  toolExchange,
  toolResult,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { DUPLICATE_PREFIX, renderDuplicateStub, renderErrorRetryStub } from "../contract/stubs";
import { createToolPolicy } from "../policy";
import { isErrorResult } from "../rules/error-retry";
import { indexThread } from "../thread/thread-index";
import type { Message } from "../types";
import { type InlineStub, inlineStubs } from "./inline-clean";

const policy = createToolPolicy();

function stubsOf(
  messages: readonly Message[],
  options: { cleanable?: (index: number) => boolean } = {},
): InlineStub[] {
  return inlineStubs({
    messages,
    cleanable: options.cleanable ?? (() => true),
    threadIndex: indexThread(messages),
    policy,
  });
}

const page = documentPage("lease", 1);
const readArgs = { file_id: "lease", offset: 0 };

describe("isErrorResult", () => {
  it("trusts an explicit status", () => {
    expect(isErrorResult(toolResult("c", "t", "all good", "error"))).toBe(true);
    expect(isErrorResult(toolResult("c", "t", "Error: looks bad but is fine", "success"))).toBe(false);
  });

  it.each([
    "Error: file not found",
    "  exception in handler",
    "Traceback (most recent call last):",
    "FAILED to connect",
    "[error] upstream timeout",
    "Status code: 503 Service Unavailable",
    "status 404",
  ])("detects an error opening with no status: %j", (text) => {
    expect(isErrorResult(toolResult("c", "t", text))).toBe(true);
  });

  it.each(["No errors found in the lease.", "Errors and omissions insurance: $2m", "status: 200"])(
    "does not flag %j",
    (text) => {
      expect(isErrorResult(toolResult("c", "t", text))).toBe(false);
    },
  );

  it("reads block content", () => {
    expect(isErrorResult(toolResult("c", "t", [{ type: "text", text: "Error: boom" }]))).toBe(true);
  });
});

describe("isErrorResult never reads real output as an error", () => {
  const billingLog = `ERROR 12:00 charge failed for INV-4471 $12,480.00\n${"12:01 retry scheduled for INV-4471; ledger balanced at $0.00.\n".repeat(180)}`;

  it("a long log whose first line reads ERROR is output, not an error", () => {
    expect(billingLog.length).toBeGreaterThan(10_000);
    expect(isErrorResult(toolResult("c", "read_log", billingLog))).toBe(false);
  });

  it("a contract page headed Failed Delivery is a page, not an error", () => {
    const contract = `Failed Delivery\n\n12.1 If the Seller fails to deliver the Goods by the Delivery Date, the Buyer may terminate.\n\n${page}`;
    expect(isErrorResult(toolResult("c", "read_document", contract))).toBe(false);
  });

  it("a short text opening like an error counts only when it is one paragraph of at most 500 chars", () => {
    expect(isErrorResult(toolResult("c", "t", `Error: ${"x".repeat(493)}`))).toBe(true);
    expect(isErrorResult(toolResult("c", "t", `Error: ${"x".repeat(494)}`))).toBe(false);
    expect(isErrorResult(toolResult("c", "t", "Error: timeout\n  at fetch (tool.js:10)"))).toBe(true);
    expect(isErrorResult(toolResult("c", "t", "Error codes\n\nE-17: consent pending"))).toBe(false);
  });

  it("a long result the framework marks as failed is still an error", () => {
    expect(isErrorResult(toolResult("c", "read_log", billingLog, "error"))).toBe(true);
  });

  it("a long log is never collapsed, even when a later call of the same tool succeeded", () => {
    const messages = [
      ...toolExchange("l1", "read_log", { log_id: "billing" }, billingLog),
      ...toolExchange("l2", "read_log", { log_id: "billing" }, "12:05 all charges settled"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });
});

describe("duplicates", () => {
  it("leaves a duplicate raw when the stub would be longer than the result", () => {
    const messages = [
      ...toolExchange("s1", "lookup", { key: "a" }, "ok"),
      ...toolExchange("s2", "lookup", { key: "a" }, "ok"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("stubs every earlier identical read, pointing to the next copy's call id; the latest stays raw", () => {
    const messages = [
      userMessage("read it"),
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", { offset: 0, file_id: "lease" }, page),
      ...toolExchange("r3", "read_document", readArgs, page),
    ];
    const stubs = stubsOf(messages);
    const reread = 'read_document(file_id="lease", offset=0)';
    expect(stubs).toEqual([
      {
        index: resultIndex(messages, "r1"),
        category: "duplicate",
        text: renderDuplicateStub("read_document", "r2", reread),
        target: resultIndex(messages, "r2"),
      },
      {
        index: resultIndex(messages, "r2"),
        category: "duplicate",
        text: renderDuplicateStub("read_document", "r3", reread),
        target: resultIndex(messages, "r3"),
      },
    ]);
  });

  it("a stub keeps its text when a later copy arrives (it never re-points)", () => {
    const twoCopies = [
      userMessage("read it"),
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, page),
    ];
    const before = stubsOf(twoCopies)[0];
    const after = stubsOf([...twoCopies, ...toolExchange("r3", "read_document", readArgs, page)]).find(
      (stub) => stub.index === before?.index,
    );
    expect(before?.text).toContain("r2");
    expect(after).toEqual(before);
  });

  it("does not stub the same args with different content", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, `${page} (revised)`),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("does not stub different args with the same content", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", { file_id: "lease", offset: 5_000 }, page),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("does not stub the same args and content of different tools", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_file", readArgs, page),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("points to the latest occurrence of the same content when content changed in between", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, "other"),
      ...toolExchange("r3", "read_document", readArgs, page),
    ];
    const stubs = stubsOf(messages);
    expect(stubs.map((stub) => stub.index)).toEqual([resultIndex(messages, "r1")]);
    expect(stubs[0]?.text).toContain("r3");
  });

  it("carries the re-read call of the latest copy (its provenance args only)", () => {
    const messages = [
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000, verbose: true }, page),
      ...toolExchange("r2", "read_document", { file_id: "lease", offset: 5_000, verbose: true }, page),
    ];
    const [stub] = stubsOf(messages);
    expect(stub?.text).toBe(
      renderDuplicateStub("read_document", "r2", 'read_document(file_id="lease", offset=5000)'),
    );
  });

  it("offers a tool that is not idempotent as a re-run returning current data", () => {
    const messages = [
      ...toolExchange("q1", "query_database", { sql: "select *" }, page),
      ...toolExchange("q2", "query_database", { sql: "select *" }, page),
    ];
    const [stub] = stubsOf(messages);
    expect(stub?.text).toBe(
      renderDuplicateStub("query_database", "q2", 'query_database(sql="select *")', false),
    );
    expect(stub?.text).toContain("returns current data");
  });

  it("leaves protected earlier copies alone", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, page),
    ];
    const protectedIndex = resultIndex(messages, "r1");
    expect(stubsOf(messages, { cleanable: (index) => index !== protectedIndex })).toEqual([]);
  });

  it("ignores results without a matching call", () => {
    const messages = [toolResult("x1", "read_document", page), toolResult("x1", "read_document", page)];
    expect(stubsOf(messages)).toEqual([]);
  });
});

describe("error-retry: a retry is a later call with the same or overlapping provenance", () => {
  const failedRead = (id: string, args: Record<string, unknown>) =>
    toolExchange(id, "read_document", args, "Error: upstream timeout (504)", "error");

  it("a later success of the same tool for another document or page is no retry", () => {
    const messages = [
      ...failedRead("e1", { file_id: "lease", offset: 5_000 }),
      ...toolExchange("o1", "read_document", { file_id: "side_letter", offset: 5_000 }, page),
      ...toolExchange("o2", "read_document", { file_id: "lease", offset: 10_000 }, page),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("a later success naming the same document and page is the retry, whatever its other args", () => {
    const messages = [
      ...failedRead("e1", { file_id: "lease", offset: 5_000 }),
      ...toolExchange("o1", "read_document", { file_id: "lease", offset: 10_000 }, page),
      ...toolExchange("e2", "read_document", { offset: 5_000, file_id: "lease", verbose: true }, page),
    ];
    expect(stubsOf(messages)).toMatchObject([
      { index: resultIndex(messages, "e1"), category: "error-retry", target: resultIndex(messages, "e2") },
    ]);
  });

  it("an offset left out counts as the first page", () => {
    const messages = [
      ...failedRead("e1", { file_id: "lease" }),
      ...toolExchange("e2", "read_document", { file_id: "lease", offset: 0 }, page),
      ...failedRead("e3", { file_id: "lease", offset: 5_000 }),
      ...toolExchange("e4", "read_document", { file_id: "lease" }, page),
    ];
    expect(stubsOf(messages).map((stub) => stub.index)).toEqual([resultIndex(messages, "e1")]);
  });

  it("a tool without provenance args is retried only by a call with identical args", () => {
    const messages = [
      ...toolExchange("e1", "search", { q: "assignment" }, "Error: search backend timeout", "error"),
      ...toolExchange("s1", "search", { q: "assignment clause" }, "id: doc_1"),
    ];
    expect(stubsOf(messages)).toEqual([]);
    const retried = [...messages, ...toolExchange("s2", "search", { q: "assignment" }, "id: doc_2")];
    expect(stubsOf(retried).map((stub) => stub.index)).toEqual([resultIndex(retried, "e1")]);
  });

  it("every stub names the call that re-reads what it replaced", () => {
    const messages = [
      ...failedRead("e1", { file_id: "lease", offset: 5_000 }),
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000 }, page),
      ...toolExchange("r2", "read_document", { file_id: "lease", offset: 5_000 }, page),
    ];
    const reread = 'read_document(file_id="lease", offset=5000)';
    const stubs = stubsOf(messages);
    expect(stubs.map((stub) => stub.category)).toEqual(["error-retry", "duplicate"]);
    for (const stub of stubs) expect(stub.text).toContain(reread);
  });
});

describe("inline cleaning trusts no text that merely looks like the cleaner's", () => {
  const badge = "[![context-cleaner build](https://ci.example.com/badge.svg)](https://ci.example.com)\n";
  const readme = `${badge}# Lease tools\n\n${page}`;

  it("a success opening with the error stub's prefix is still the retry of an earlier error", () => {
    const spoof = `[Transient error, retried successfully below: none] ${page}`;
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: upstream timeout (504)", "error"),
      ...toolExchange("e2", "read_document", readArgs, spoof),
    ];
    expect(stubsOf(messages)).toMatchObject([
      { index: resultIndex(messages, "e1"), category: "error-retry", target: resultIndex(messages, "e2") },
    ]);
  });

  it("an earlier copy of a README opening with a context-cleaner badge is a duplicate like any other", () => {
    const args = { path: "README.md" };
    const messages = [
      ...toolExchange("m1", "read_file", args, readme),
      ...toolExchange("m2", "read_file", args, readme),
    ];
    expect(stubsOf(messages)).toMatchObject([
      { index: resultIndex(messages, "m1"), category: "duplicate", target: resultIndex(messages, "m2") },
    ]);
  });

  it("a failed result showing exactly its own error stub is decided again as that same text", () => {
    const stub = renderErrorRetryStub("Error: timeout", 'read_document(file_id="lease", offset=0)');
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, stub),
      ...toolExchange("e2", "read_document", readArgs, page),
    ];
    expect(stubsOf(messages)).toEqual([
      {
        index: resultIndex(messages, "e1"),
        category: "error-retry",
        text: stub,
        target: resultIndex(messages, "e2"),
      },
    ]);
  });

  it("a result showing exactly its own duplicate stub is decided again as that same text", () => {
    const stub = renderDuplicateStub("read_document", "r3", 'read_document(file_id="lease", offset=0)');
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, stub),
      ...toolExchange("r2", "read_document", readArgs, stub),
      ...toolExchange("r3", "read_document", readArgs, page),
    ];
    const target = resultIndex(messages, "r3");
    expect(stubsOf(messages)).toEqual([
      { index: resultIndex(messages, "r1"), category: "duplicate", text: stub, target },
      { index: resultIndex(messages, "r2"), category: "duplicate", text: stub, target },
    ]);
  });
});

describe("inline cleaning under another policy", () => {
  it("matches a retry by each policy's own provenance args for the same message objects", () => {
    const messages = [
      ...toolExchange("e1", "lookup", { doc: "a", verbose: true }, "Error: lookup timed out", "error"),
      ...toolExchange("e2", "lookup", { doc: "a" }, "the answer"),
    ];
    const byDocument = createToolPolicy({ tools: { lookup: { kind: "other", provenanceArgs: ["doc"] } } });
    const run = (chosen: typeof policy) =>
      inlineStubs({ messages, cleanable: () => true, threadIndex: indexThread(messages), policy: chosen });
    expect(run(policy)).toEqual([]);
    expect(run(byDocument).map((stub) => [stub.index, stub.category])).toEqual([
      [resultIndex(messages, "e1"), "error-retry"],
    ]);
    expect(run(policy)).toEqual([]);
  });

  it("keys a tool without provenance args by every arg, also one named undefined", () => {
    const messages = [
      ...toolExchange("e1", "lookup", { undefined: "a", attempt: 1 }, "Error: lookup timed out", "error"),
      ...toolExchange("e2", "lookup", { undefined: "a", attempt: 2 }, "the answer"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });
});

describe("error-retry: error/retry", () => {
  it("stubs an error followed by a success of the same tool, keeping the first line", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: 503 upstream timeout\nstack…", "error"),
      ...toolExchange("e2", "read_document", readArgs, page),
    ];
    expect(stubsOf(messages)).toEqual([
      {
        index: resultIndex(messages, "e1"),
        category: "error-retry",
        text: renderErrorRetryStub("Error: 503 upstream timeout", 'read_document(file_id="lease", offset=0)'),
        target: resultIndex(messages, "e2"),
      },
    ]);
  });

  it("keeps the gist of a 500-char first line to 200 chars", () => {
    const longLine = `Error: ${"quota exceeded for org; ".repeat(30)}`.slice(0, 500);
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, `${longLine}\ndetails`, "error"),
      ...toolExchange("e2", "search", { q: "a" }, "id: doc_1"),
    ];
    const [stub] = stubsOf(messages);
    expect(stub?.category).toBe("error-retry");
    const gist =
      stub?.text
        .replace("[Transient error, retried successfully below: ", "")
        .replace(' — failed call: search(q="a")]', "") ?? "";
    expect(gist.length).toBeLessThanOrEqual(200);
    expect(longLine.startsWith(gist.slice(0, -1))).toBe(true);
  });

  it("keeps an error with no later success raw", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, page),
      ...toolExchange("e2", "read_document", readArgs, "Error: file locked", "error"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("keeps an error raw when only another tool succeeded later", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: file locked", "error"),
      ...toolExchange("s1", "search", { q: "lease" }, "id: doc_1"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("detects an error by its text when the result has no status", () => {
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, "Traceback (most recent call last):\n  File x"),
      ...toolExchange("e2", "search", { q: "a" }, "id: doc_1"),
    ];
    expect(stubsOf(messages).map((stub) => stub.category)).toEqual(["error-retry"]);
  });

  it("does not wrap its own stub in a second stub", () => {
    const stub = renderErrorRetryStub("Error: x", 'search(q="a")');
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, stub, "error"),
      ...toolExchange("e2", "search", { q: "a" }, "id: doc_1"),
    ];
    expect(stubsOf(messages).map((decision) => decision.text)).toEqual([stub]);
  });

  it("gives an error that is also an earlier duplicate the error stub, not a duplicate stub", () => {
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, "Error: timeout", "error"),
      ...toolExchange("e2", "search", { q: "a" }, "Error: timeout", "error"),
      ...toolExchange("e3", "search", { q: "a" }, "id: doc_1"),
    ];
    const stubs = stubsOf(messages);
    expect(stubs.map((stub) => [stub.index, stub.category])).toEqual([
      [resultIndex(messages, "e1"), "error-retry"],
      [resultIndex(messages, "e2"), "error-retry"],
    ]);
  });
});

describe("isErrorResult reads the opening only", () => {
  it("an error word later in the text is no error", () => {
    expect(isErrorResult(toolResult("c", "t", "The lookup returned no error"))).toBe(false);
  });

  it("a line of spaces between paragraphs is a blank line", () => {
    expect(isErrorResult(toolResult("c", "t", "Error: timeout\n  \nretry in 5s"))).toBe(false);
    expect(isErrorResult(toolResult("c", "t", "Error: timeout\n\t\nretry in 5s"))).toBe(false);
  });
});

describe("error-retry: which later success is the retry", () => {
  const byDocument = createToolPolicy({
    tools: { lookup: { kind: "other", provenanceArgs: ["doc", "section"], offsetArg: "page" } },
  });
  const run = (messages: readonly Message[], chosen = byDocument) =>
    inlineStubs({ messages, cleanable: () => true, threadIndex: indexThread(messages), policy: chosen });
  const failed = (id: string, args: Record<string, unknown>) =>
    toolExchange(id, "lookup", args, "Error: lookup timed out", "error");

  it("a further provenance arg that only one of the calls passes does not block the retry", () => {
    const leftOutLater = [
      ...failed("e1", { doc: "a", section: 2 }),
      ...toolExchange("e2", "lookup", { doc: "a" }, "the answer"),
    ];
    expect(run(leftOutLater).map((stub) => stub.index)).toEqual([resultIndex(leftOutLater, "e1")]);
    const leftOutFirst = [
      ...failed("e1", { doc: "a" }),
      ...toolExchange("e2", "lookup", { doc: "a", section: 2 }, "the answer"),
    ];
    expect(run(leftOutFirst).map((stub) => stub.index)).toEqual([resultIndex(leftOutFirst, "e1")]);
    const differs = [
      ...failed("e1", { doc: "a", section: 2 }),
      ...toolExchange("e2", "lookup", { doc: "a", section: 3 }, "the answer"),
    ];
    expect(run(differs)).toEqual([]);
  });

  it("a read without the document arg is retried only by a call with identical args", () => {
    const messages = [
      ...toolExchange("e1", "read_document", { offset: 0 }, "Error: missing file_id", "error"),
      ...toolExchange("e2", "read_document", { offset: 0, verbose: true }, page),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("an offset given as a numeric string is the same page as the number", () => {
    const messages = [
      ...toolExchange("e1", "read_document", { file_id: "lease", offset: "5000" }, "Error: 504", "error"),
      ...toolExchange("e2", "read_document", { file_id: "lease", offset: 5_000 }, page),
    ];
    expect(stubsOf(messages).map((stub) => stub.index)).toEqual([resultIndex(messages, "e1")]);
  });

  it("only the offset arg is read as a number: a section given as a string differs from the number", () => {
    const messages = [
      ...failed("e1", { doc: "a", section: "2" }),
      ...toolExchange("e2", "lookup", { doc: "a", section: 2 }, "the answer"),
    ];
    expect(run(messages)).toEqual([]);
  });

  it("a later failure is no retry", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: file locked", "error"),
      ...toolExchange("e2", "read_document", readArgs, "Error: file still locked", "error"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("leaves a protected failed result alone", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: file locked", "error"),
      ...toolExchange("e2", "read_document", readArgs, page),
    ];
    const protectedIndex = resultIndex(messages, "e1");
    expect(stubsOf(messages, { cleanable: (index) => index !== protectedIndex })).toEqual([]);
  });
});

describe("inline cleaning sees results that changed since an earlier assembly", () => {
  it("a result whose content changed is decided by its new content", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: upstream timeout"),
      ...toolExchange("e2", "read_document", readArgs, page),
    ];
    expect(stubsOf(messages).map((stub) => stub.category)).toEqual(["error-retry"]);
    (messages[1] as { content: unknown }).content = page;
    expect(stubsOf(messages).map((stub) => stub.category)).toEqual(["duplicate"]);
  });

  it("a result whose call changed is decided by its new call", () => {
    const messages: Message[] = [
      ...toolExchange("e1", "search", { q: "a" }, "Error: search backend timeout", "error"),
      ...toolExchange("e2", "search", { q: "a" }, "id: doc_1"),
    ];
    expect(stubsOf(messages).map((stub) => stub.category)).toEqual(["error-retry"]);
    messages[0] = toolExchange("e1", "search", { q: "b" }, "")[0];
    expect(stubsOf(messages)).toEqual([]);
  });
});

describe("a result showing a duplicate stub is its own only when it names a later copy exactly", () => {
  const reread = 'read_document(file_id="lease", offset=0)';

  it("a stub naming an earlier copy is content like any other", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, renderDuplicateStub("read_document", "r1", reread)),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("a stub naming the result itself is content like any other", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", readArgs, renderDuplicateStub("read_document", "r2", reread)),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("a text naming a later copy but not its exact stub is content like any other", () => {
    const messages = [
      ...toolExchange("r1", "read_document", readArgs, `${DUPLICATE_PREFIX}r2 (see the appendix)`),
      ...toolExchange("r2", "read_document", readArgs, page),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });
});

describe("a duplicate stub must be shorter than the copy it replaces", () => {
  it("leaves a copy exactly as long as its stub raw, and stubs one a char longer", () => {
    const copies = (content: string) => [
      ...toolExchange("s1", "lookup", { key: "a" }, content),
      ...toolExchange("s2", "lookup", { key: "a" }, content),
    ];
    const stubLength = stubsOf(copies(page))[0]?.text.length ?? 0;
    expect(stubLength).toBeGreaterThan(0);
    expect(stubsOf(copies("x".repeat(stubLength)))).toEqual([]);
    expect(stubsOf(copies("x".repeat(stubLength + 1))).map((stub) => stub.category)).toEqual(["duplicate"]);
  });
});
