import { describe, expect, it } from "vitest";
import { toolCall } from "../test/fixtures/thread-builder";
import {
  COMPACTION_NOTE_PREFIX,
  DIGEST_HEADER,
  ERROR_GIST_MAX_CHARS,
  isErrorRetryStubFor,
  renderDuplicateStub,
  renderErrorRetryStub,
  renderToolCall,
} from "./stubs";

const GIST_PREFIX = "[Transient error, retried successfully below: ";
const FAILED_CALL = 'read_document(file_id="f")';
const CALL_SUFFIX = ` — failed call: ${FAILED_CALL}]`;

function gistOf(stub: string): string {
  expect(stub.startsWith(GIST_PREFIX)).toBe(true);
  expect(stub.endsWith(CALL_SUFFIX)).toBe(true);
  return stub.slice(GIST_PREFIX.length, -CALL_SUFFIX.length);
}

describe("renderToolCall", () => {
  it("renders the provenance args in policy order, strings quoted", () => {
    const call = toolCall("c1", "read_document", { offset: 58_000, file_id: "cd_9f2", verbose: true });
    expect(renderToolCall(call, ["file_id", "offset"])).toBe('read_document(file_id="cd_9f2", offset=58000)');
  });

  it("leaves out provenance args the call did not pass", () => {
    expect(renderToolCall(toolCall("c1", "read_document", { file_id: "f" }), ["file_id", "offset"])).toBe(
      'read_document(file_id="f")',
    );
  });

  it("renders every arg, sorted, without provenance args", () => {
    expect(renderToolCall(toolCall("c1", "lookup", { b: [1], a: null }))).toBe("lookup(a=null, b=[1])");
  });
});

describe("renderDuplicateStub", () => {
  it("names the latest call id and the call that re-reads the original", () => {
    const stub = renderDuplicateStub("read_document", "call_9", 'read_document(file_id="f")');
    expect(stub).toBe(
      '[Duplicate result — identical to the result of tool call call_9 (read_document) below; the original is one call away: read_document(file_id="f")]',
    );
  });

  it("offers the call of a tool that is not idempotent as a re-run returning current data", () => {
    const stub = renderDuplicateStub("search", "call_9", 'search(q="a")', false);
    expect(stub).toContain('re-running search(q="a") returns current data');
    expect(stub).not.toContain("one call away");
  });
});

describe("renderErrorRetryStub", () => {
  it("keeps the first line of the error, trimmed", () => {
    expect(
      gistOf(renderErrorRetryStub("  Error: 404 file not found\n  at read (x.ts:1)\n", FAILED_CALL)),
    ).toBe("Error: 404 file not found");
  });

  it("cuts a 500-char first line to at most 200 chars, ending with an ellipsis", () => {
    const stub = renderErrorRetryStub(`Error: ${"x".repeat(493)}\nsecond line`, FAILED_CALL);
    const gist = gistOf(stub);
    expect(gist.length).toBe(ERROR_GIST_MAX_CHARS);
    expect(gist.startsWith("Error: xxx")).toBe(true);
    expect(gist.endsWith("…")).toBe(true);
    expect(stub).not.toContain("second line");
  });

  it("keeps a first line of exactly 200 chars whole", () => {
    const line = "E".repeat(ERROR_GIST_MAX_CHARS);
    expect(gistOf(renderErrorRetryStub(line, FAILED_CALL))).toBe(line);
  });

  it("handles CRLF line ends", () => {
    expect(gistOf(renderErrorRetryStub("Error: timeout\r\nretry later", FAILED_CALL))).toBe("Error: timeout");
  });
});

describe("isErrorRetryStubFor", () => {
  it("recognises exactly the stub rendered for that failed call, and nothing else", () => {
    const stub = renderErrorRetryStub("Error: timeout\nat x", FAILED_CALL);
    expect(isErrorRetryStubFor(stub, FAILED_CALL)).toBe(true);
    expect(isErrorRetryStubFor(stub, 'read_document(file_id="g")')).toBe(false);
    expect(isErrorRetryStubFor(`${stub} `, FAILED_CALL)).toBe(false);
    expect(isErrorRetryStubFor(`${GIST_PREFIX}a\nb${CALL_SUFFIX}`, FAILED_CALL)).toBe(false);
    expect(isErrorRetryStubFor(`${GIST_PREFIX}${"x".repeat(201)}${CALL_SUFFIX}`, FAILED_CALL)).toBe(false);
    expect(isErrorRetryStubFor(`${DIGEST_HEADER}\n${COMPACTION_NOTE_PREFIX}`, FAILED_CALL)).toBe(false);
  });
});
