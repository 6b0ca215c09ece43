import { describe, expect, it } from "vitest";
import {
  documentPage,
  resultIndex,
  toolExchange,
  toolResult,
  userMessage,
} from "../test/fixtures/thread-builder";
import { type InlineStub, inlineStubs, isErrorResult } from "./inline-clean";
import { createToolPolicy } from "./policy";
import { renderDuplicateStub, renderErrorRetryStub } from "./stubs";
import { indexThread } from "./thread-index";
import type { Message } from "./types";

const policy = createToolPolicy();

function stubsOf(
  messages: readonly Message[],
  options: { cleanable?: (index: number) => boolean; condensed?: ReadonlySet<number> } = {},
): InlineStub[] {
  return inlineStubs({
    messages,
    cleanable: options.cleanable ?? (() => true),
    threadIndex: indexThread(messages),
    policy,
    condensed: options.condensed ?? new Set(),
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

describe("duplicate stubs", () => {
  it("leaves a duplicate raw when the stub would be longer than the result", () => {
    const messages = [
      ...toolExchange("s1", "lookup", { key: "a" }, "ok"),
      ...toolExchange("s2", "lookup", { key: "a" }, "ok"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("stubs every earlier identical read, pointing to the latest call id; the latest stays raw", () => {
    const messages = [
      userMessage("read it"),
      ...toolExchange("r1", "read_document", readArgs, page),
      ...toolExchange("r2", "read_document", { offset: 0, file_id: "lease" }, page),
      ...toolExchange("r3", "read_document", readArgs, page),
    ];
    const stubs = stubsOf(messages);
    expect(stubs).toEqual([
      {
        index: resultIndex(messages, "r1"),
        category: "duplicate",
        text: renderDuplicateStub("read_document", "r3"),
      },
      {
        index: resultIndex(messages, "r2"),
        category: "duplicate",
        text: renderDuplicateStub("read_document", "r3"),
      },
    ]);
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

  it("carries the re-read call when the latest is condensed", () => {
    const messages = [
      ...toolExchange("r1", "read_document", { file_id: "lease", offset: 5_000 }, page),
      ...toolExchange("r2", "read_document", { file_id: "lease", offset: 5_000 }, page),
    ];
    const latest = resultIndex(messages, "r2");
    const [stub] = stubsOf(messages, { condensed: new Set([latest]) });
    expect(stub?.text).toBe(
      renderDuplicateStub("read_document", "r2", 'read_document(file_id="lease", offset=5000)'),
    );
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

describe("error-retry stubs", () => {
  it("stubs an error followed by a success of the same tool, keeping the first line", () => {
    const messages = [
      ...toolExchange("e1", "read_document", readArgs, "Error: 503 upstream timeout\nstack…", "error"),
      ...toolExchange("e2", "read_document", readArgs, page),
    ];
    expect(stubsOf(messages)).toEqual([
      {
        index: resultIndex(messages, "e1"),
        category: "error-retry",
        text: renderErrorRetryStub("Error: 503 upstream timeout"),
      },
    ]);
  });

  it("keeps the gist of a 500-char first line to 200 chars", () => {
    const longLine = `Error: ${"quota exceeded for org; ".repeat(30)}`.slice(0, 500);
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, `${longLine}\ndetails`),
      ...toolExchange("e2", "search", { q: "b" }, "id: doc_1"),
    ];
    const [stub] = stubsOf(messages);
    expect(stub?.category).toBe("error-retry");
    const gist = stub?.text.replace("[Transient error, retried successfully below: ", "").slice(0, -1) ?? "";
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

  it("does not stub cleaner text again", () => {
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, renderErrorRetryStub("Error: x"), "error"),
      ...toolExchange("e2", "search", { q: "a" }, "id: doc_1"),
    ];
    expect(stubsOf(messages)).toEqual([]);
  });

  it("gives an error that is also an earlier duplicate the error stub, not a duplicate stub", () => {
    const messages = [
      ...toolExchange("e1", "search", { q: "a" }, "Error: timeout", "error"),
      ...toolExchange("e2", "search", { q: "a" }, "Error: timeout", "error"),
      ...toolExchange("e3", "search", { q: "b" }, "id: doc_1"),
    ];
    const stubs = stubsOf(messages);
    expect(stubs.map((stub) => [stub.index, stub.category])).toEqual([
      [resultIndex(messages, "e1"), "error-retry"],
      [resultIndex(messages, "e2"), "error-retry"],
    ]);
  });
});
