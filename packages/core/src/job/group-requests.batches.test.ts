import type { Message } from "@context-cleaner/assembler";
import { resolveToolPolicy } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { classifyThread, type DigestCandidate } from "../classify/classify-thread";
import { groupRequests, toRequest } from "./group-requests";

type Read = [id: string, tool: string, args: Record<string, unknown>];

/** The digest candidates of a thread that made `reads`, in order, then moved on. */
function candidatesOf(reads: readonly Read[]): DigestCandidate[] {
  const thread = threadBuilder();
  thread.user("Read these.");
  for (const [id, tool, args] of reads) thread.call(id, tool, args, filler(`result ${id}`, 12_000));
  for (let turn = 0; turn < 3; turn++) {
    thread.user(`question ${turn}`);
    thread.assistant(`answer ${turn}`);
  }
  const messages: Message[] = thread.messages;
  const { candidates } = classifyThread(messages, resolveToolPolicy(undefined), {
    recencyKeepExchanges: 1,
    wall: "next-turn",
  });
  expect(candidates.map((candidate) => candidate.message.toolCallId)).toEqual(reads.map(([id]) => id));
  return candidates;
}

const ids = (requests: DigestCandidate[][]) =>
  requests.map((group) => group.map((candidate) => candidate.message.toolCallId));

describe("groupRequests: the pages of one document per request", () => {
  it("groups the pages of a document in thread order, apart from another document's", () => {
    const candidates = candidatesOf([
      ["a0", "read_document", { file_id: "A", offset: 0 }],
      ["b0", "read_document", { file_id: "B", offset: 0 }],
      ["a1", "read_document", { file_id: "A", offset: 1 }],
      ["b1", "read_document", { file_id: "B", offset: 1 }],
      ["a2", "read_document", { file_id: "A", offset: 2 }],
    ]);
    expect(ids(groupRequests(candidates, 10))).toEqual([
      ["a0", "a1", "a2"],
      ["b0", "b1"],
    ]);
  });

  it("keeps the same source read by two tools apart", () => {
    const candidates = candidatesOf([
      ["d0", "read_document", { file_id: "x", offset: 0 }],
      ["f0", "read_file", { path: "x", offset: 0 }],
      ["d1", "read_document", { file_id: "x", offset: 1 }],
    ]);
    expect(ids(groupRequests(candidates, 10))).toEqual([["d0", "d1"], ["f0"]]);
  });

  it("makes a request of each result without a source", () => {
    const candidates = candidatesOf([
      ["n0", "read_document", { offset: 0 }],
      ["n1", "read_document", { offset: 1 }],
    ]);
    expect(candidates.map((candidate) => candidate.source)).toEqual([undefined, undefined]);
    expect(ids(groupRequests(candidates, 10))).toEqual([["n0"], ["n1"]]);
  });

  it("splits a document into requests of at most maxPagesPerCall pages, none empty", () => {
    const reads: Read[] = [0, 1, 2, 3, 4].map((page) => [
      `p${page}`,
      "read_document",
      { file_id: "A", offset: page },
    ]);
    const candidates = candidatesOf(reads);
    expect(ids(groupRequests(candidates, 2))).toEqual([["p0", "p1"], ["p2", "p3"], ["p4"]]);
    expect(ids(groupRequests(candidates.slice(0, 4), 2))).toEqual([
      ["p0", "p1"],
      ["p2", "p3"],
    ]);
    expect(ids(groupRequests(candidates, 5))).toEqual([["p0", "p1", "p2", "p3", "p4"]]);
  });

  it("makes no request of no candidates", () => {
    expect(groupRequests([], 3)).toEqual([]);
  });
});

describe("toRequest: what the digester is asked", () => {
  it("labels a document by its first provenance arg and gives each page's text, args and re-read call", () => {
    const candidates = candidatesOf([
      ["a0", "read_document", { file_id: "A", offset: 0, note: "ignored" }],
      ["a1", "read_document", { file_id: "A", offset: 12_000 }],
    ]);
    expect(toRequest(candidates)).toEqual({
      toolName: "read_document",
      sourceLabel: "file_id=A",
      pages: [
        {
          toolCallId: "a0",
          content: filler("result a0", 12_000),
          provenanceArgs: { file_id: "A", offset: 0 },
          reread: 'read_document(file_id="A", offset=0)',
        },
        {
          toolCallId: "a1",
          content: filler("result a1", 12_000),
          provenanceArgs: { file_id: "A", offset: 12_000 },
          reread: 'read_document(file_id="A", offset=12000)',
        },
      ],
    });
  });

  it("labels a result without a source by its tool", () => {
    const [candidate] = candidatesOf([["n0", "read_document", { offset: 0 }]]);
    expect(toRequest([candidate as DigestCandidate]).sourceLabel).toBe("read_document");
  });
});
