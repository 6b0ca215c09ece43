import { createToolPolicy, type Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { classifyThread, type DigestCandidate } from "../classify/classify-thread";
import type { DigestResult, DigestRow, PageDigest } from "../ports";
import { AS_OF_CALL_NOTE } from "../render/render-digest";
import { renderSupersededSearchStub } from "../render/render-superseded-search-stub";
import { digestedRow, reusedRow, supersededSearchRow } from "./build-rows";
import { provenanceArgs } from "./provenance-args";

const threadId = "thread-1";

/** The candidate of `toolCallId` in `messages`, every exchange past the recency wall. */
function candidateOf(
  messages: readonly Message[],
  toolCallId: string,
  readOriginal = false,
): DigestCandidate {
  const { candidates } = classifyThread(messages, createToolPolicy(), {
    recencyKeepExchanges: 0,
    readOriginal,
  });
  const candidate = candidates.find((found) => found.message.toolCallId === toolCallId);
  if (candidate === undefined) throw new Error(`no candidate ${toolCallId}`);
  return candidate;
}

/** An earlier search, answered with `content`, that a later search of the same tool supersedes. */
function supersededSearch(content: string): DigestCandidate {
  const thread = threadBuilder();
  thread.user("Search.");
  thread.call("s_1", "search_documents", { query: "lease" }, content);
  thread.user("Search again.");
  thread.call("s_2", "search_documents", { query: "lease amendment" }, 'id: "doc_z"');
  thread.assistant("Searched.");
  thread.user("Next.");
  return candidateOf(thread.messages, "s_1");
}

/** The second page of a document read, answered with `content`, consumed by the exchanges after it. */
function consumedPage(content: string): DigestCandidate {
  const thread = threadBuilder();
  thread.user("Read it.");
  thread.call("r_1", "read_document", { file_id: "f1", offset: 12_000 }, content);
  thread.assistant("Read.");
  thread.user("Next.");
  return candidateOf(thread.messages, "r_1");
}

const usage = { inputTokens: 3_000, outputTokens: 600, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
const result: DigestResult = { pages: [], model: "m-1", usage, costUsd: 0.3 };
const caps = { digestCharCap: 400, digestCharCapMax: 400 };

function digestOf(candidate: DigestCandidate, page: Partial<PageDigest> = {}) {
  return digestedRow(threadId, candidate, {
    page: {
      toolCallId: candidate.message.toolCallId,
      bullets: { points: ["The reviewer reads the passage."] },
      ...page,
    },
    result,
    source: candidate.message.content as string,
    pagesInCall: 3,
    caps,
  });
}

describe("supersededSearchRow", () => {
  const hits = 'id: "doc_a"\nid: "doc_b"\n';

  it("writes the stub of a search longer than it, every hit id kept, at no cost", () => {
    const candidate = supersededSearch(hits + filler("snippets", 2_000));
    const row = supersededSearchRow(threadId, candidate);
    expect(row).toMatchObject({ kind: "superseded-search", toolCallId: "s_1", model: null, costUsd: 0 });
    expect(row?.digest).toContain("doc_a; doc_b");
    expect(row?.digest).toContain("s_2");
  });

  it("writes no stub for a search no longer than its stub: exactly as long saves nothing", () => {
    // The stub's text does not depend on the result's length, only on its hit ids.
    const stubChars = renderSupersededSearchStub({
      call: supersededSearch(hits).call,
      content: hits,
      hitIdPattern: createToolPolicy().ruleFor("search_documents").hitIdPattern as RegExp,
      laterToolCallId: "s_2",
    }).text.length;
    const padded = (chars: number) => supersededSearch(hits + filler("snippets", chars - hits.length));
    expect(supersededSearchRow(threadId, supersededSearch(hits))).toBeUndefined();
    expect(supersededSearchRow(threadId, padded(stubChars))).toBeUndefined();
    expect(supersededSearchRow(threadId, padded(stubChars + 1))?.digestChars).toBe(stubChars);
  });

  it("writes no stub for a search whose result has no hit id it could keep", () => {
    const candidate = supersededSearch(filler("no hits here", 5_000));
    expect(supersededSearchRow(threadId, candidate)).toBeUndefined();
  });
});

describe("reusedRow", () => {
  const candidate = consumedPage(filler("page", 12_000));
  const stored = (overrides: Partial<DigestRow> = {}): DigestRow => ({
    threadId: "thread-0",
    toolCallId: "r_0",
    toolName: "read_document",
    provenanceArgs: provenanceArgs(candidate),
    contentSha256: candidate.contentSha256,
    originalChars: candidate.originalChars,
    kind: "digest",
    digest: "digest of the page",
    digestChars: 18,
    model: "m-0",
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0.01,
    ...overrides,
  });

  it("copies the org's digest of the page read the same way, args in any order, at no cost", () => {
    const reversed = Object.fromEntries(Object.entries(provenanceArgs(candidate)).reverse());
    expect(reusedRow(threadId, candidate, stored({ provenanceArgs: reversed }))).toMatchObject({
      threadId,
      toolCallId: "r_1",
      digest: "digest of the page",
      model: "m-0",
      inputTokens: 0,
      costUsd: 0,
    });
  });

  it("does not reuse a digest of the same bytes read with other args", () => {
    const other = stored({ provenanceArgs: { file_id: "f2", offset: 12_000 } });
    expect(reusedRow(threadId, candidate, other)).toBeUndefined();
  });

  it("does not reuse a digest of the same bytes read by another tool, or a stub", () => {
    expect(reusedRow(threadId, candidate, stored({ toolName: "read_file" }))).toBeUndefined();
    expect(reusedRow(threadId, candidate, stored({ kind: "superseded-search" }))).toBeUndefined();
    expect(reusedRow(threadId, candidate, undefined)).toBeUndefined();
  });
});

describe("digestedRow", () => {
  const candidate = consumedPage(filler("page", 12_000));

  it("shares the call's usage and cost between its pages", () => {
    const { row } = digestOf(candidate);
    expect(row).toMatchObject({ kind: "digest", model: "m-1", inputTokens: 1_000, outputTokens: 200 });
    expect(row?.costUsd).toBeCloseTo(0.1, 12);
  });

  it("names the document by the model's title", () => {
    expect(digestOf(candidate, { title: "Ground Lease" }).row?.digest).toContain('"Ground Lease"');
    expect(digestOf(candidate).row?.digest).not.toContain("Ground Lease");
  });

  it("says the digest of a time-varying tool's output is of the output as it was at the call", () => {
    const thread = threadBuilder();
    thread.user("Pull the rent roll.");
    thread.call("db_1", "query_database", { sql: "select 1" }, filler("rows", 9_000));
    thread.assistant("Pulled.");
    thread.user("Next.");
    const timeVarying = candidateOf(thread.messages, "db_1", true);
    expect(timeVarying.timeVarying).toBe(true);
    expect(digestOf(timeVarying).row?.digest).toContain(AS_OF_CALL_NOTE);
    expect(digestOf(candidate).row?.digest).not.toContain(AS_OF_CALL_NOTE);
  });

  it("writes no row for a digest no shorter than the page, and still counts the bullets it dropped", () => {
    const invented = { points: ["The reviewer reads the passage.", "Rent is $9,999,999 a year."] };
    const digestChars = digestOf(candidate, { bullets: invented }).row?.digestChars as number;
    const asLong = { ...candidate, originalChars: digestChars };
    expect(digestOf(asLong, { bullets: invented })).toEqual({ row: undefined, droppedBullets: 1 });
    const longer = { ...candidate, originalChars: digestChars + 1 };
    expect(digestOf(longer, { bullets: invented })).toMatchObject({
      row: { digestChars },
      droppedBullets: 1,
    });
  });
});
