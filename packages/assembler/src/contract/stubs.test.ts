import { describe, expect, it } from "vitest";
import { toolCall } from "#test/assembler/fixtures/thread-builder";
import {
  BUDGET_STUB_PREFIX,
  COMPACTION_NOTE_PREFIX,
  DIGEST_HEADER,
  ERROR_GIST_MAX_CHARS,
  FIGURES_ONLY_BULLET_PREFIX,
  figuresOnlyDigest,
  isErrorRetryStubFor,
  renderBudgetStub,
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

  it("renders an arg passed as undefined as null", () => {
    expect(renderToolCall(toolCall("c1", "lookup", { q: "x", a: undefined }))).toBe('lookup(a=null, q="x")');
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

  it("keeps the first line that has text, trimmed at both ends", () => {
    expect(gistOf(renderErrorRetryStub("\n\n  Error: timeout  \nretry later", FAILED_CALL))).toBe(
      "Error: timeout",
    );
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

const DIGEST = [
  "[Condensed by context-cleaner — original preserved and re-readable.]",
  "tool: read_document",
  'source: file_id=ca_204 "Senior Credit Agreement" · characters 25,000–50,000',
  "digest:",
  "  - ARTICLE 6 NEGATIVE COVENANTS",
  "  - Amounts: Indebtedness may not exceed $40,000,000.",
  "figures verbatim: ARTICLE 6; $40,000,000",
  're-read: read_document(file_id="ca_204", offset=25000)',
].join("\n");

describe("figuresOnlyDigest", () => {
  it("replaces every bullet with one line naming the tool call, keeping the other lines as they are", () => {
    expect(figuresOnlyDigest(DIGEST, "call_7")).toBe(
      [
        DIGEST_HEADER,
        "tool: read_document",
        'source: file_id=ca_204 "Senior Credit Agreement" · characters 25,000–50,000',
        "digest:",
        "  - (bullets of tool call call_7 left out to fit the history budget; re-read for the full text)",
        "figures verbatim: ARTICLE 6; $40,000,000",
        're-read: read_document(file_id="ca_204", offset=25000)',
      ].join("\n"),
    );
    expect(FIGURES_ONLY_BULLET_PREFIX).toBe("  - (bullets of tool call ");
  });

  it("keeps two results' cut-down digests apart", () => {
    expect(figuresOnlyDigest(DIGEST, "a")).not.toBe(figuresOnlyDigest(DIGEST, "b"));
  });

  it("cuts a digest whose bullets run to its last line", () => {
    const text = `${DIGEST_HEADER}\ntool: t\ndigest:\n  - one\n  - two`;
    expect(figuresOnlyDigest(text, "c")).toBe(
      `${DIGEST_HEADER}\ntool: t\ndigest:\n${FIGURES_ONLY_BULLET_PREFIX}c left out to fit the history budget; re-read for the full text)`,
    );
  });

  it("stops at the first line after the label that is not a bullet", () => {
    const text = `${DIGEST_HEADER}\ndigest:\n  - one\nfigures verbatim: x\n  - not a bullet of the digest`;
    expect(figuresOnlyDigest(text, "c")).toBe(
      `${DIGEST_HEADER}\ndigest:\n${FIGURES_ONLY_BULLET_PREFIX}c left out to fit the history budget; re-read for the full text)\nfigures verbatim: x\n  - not a bullet of the digest`,
    );
  });

  it("is undefined for text that is not a digest, or has no bullet to leave out", () => {
    expect(figuresOnlyDigest(DIGEST.slice(1), "c")).toBeUndefined();
    expect(figuresOnlyDigest(`${DIGEST_HEADER}digest:\n  - one`, "c")).toBeUndefined();
    expect(figuresOnlyDigest(DIGEST.replace("digest:", "digest: "), "c")).toBeUndefined();
    expect(figuresOnlyDigest(`${DIGEST_HEADER}\ndigest:\nfigures verbatim: x`, "c")).toBeUndefined();
    expect(figuresOnlyDigest(`${DIGEST_HEADER}\ndigest:`, "c")).toBeUndefined();
    expect(figuresOnlyDigest(`${DIGEST_HEADER}\ndigest:\n - one`, "c")).toBeUndefined();
  });
});

describe("renderBudgetStub", () => {
  it("names the tool call and the call that re-reads the original", () => {
    expect(renderBudgetStub('read_document(file_id="f")', true, "call_3")).toBe(
      '[Condensed by context-cleaner to fit the history budget: tool call call_3 — the original is one call away: read_document(file_id="f")]',
    );
    expect(BUDGET_STUB_PREFIX).toBe("[Condensed by context-cleaner to fit the history budget");
  });

  it("offers the call of a tool that is not idempotent as a re-run returning current data", () => {
    expect(renderBudgetStub('search(q="a")', false, "call_4")).toBe(
      '[Condensed by context-cleaner to fit the history budget: tool call call_4 — re-running search(q="a") returns current data.]',
    );
  });
});
