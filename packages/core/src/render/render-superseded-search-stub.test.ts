import { createToolPolicy, type ToolCall } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import {
  extractHitIds,
  renderSupersededSearchStub,
  SUPERSEDED_SEARCH_HEADER,
} from "./render-superseded-search-stub";

const rule = createToolPolicy().ruleFor("search_documents");
const call: ToolCall = { id: "s1", name: "search_documents", args: { query: "ground lease", limit: 20 } };
const content = JSON.stringify([
  { id: "cd_9f2", title: "Ground Lease — 445 W 35th", snippet: "rent $1,250,000" },
  { id: "cd_a11", title: "Estoppel" },
  { id: "cd_9f2", title: "duplicate hit" },
]);

describe("renderSupersededSearchStub", () => {
  it("keeps every hit id verbatim, once, and points at the later search", () => {
    const { text, hitIds } = renderSupersededSearchStub({
      call,
      content,
      hitIdPattern: rule.hitIdPattern as RegExp,
      laterToolCallId: "s7",
    });
    expect(hitIds).toEqual(["cd_9f2", "cd_a11"]);
    expect(text).toBe(
      [
        SUPERSEDED_SEARCH_HEADER,
        'tool: search_documents(limit=20, query="ground lease")',
        "hit ids verbatim: cd_9f2; cd_a11",
        "superseded by: the later search in tool call s7; re-running the search returns current data.",
      ].join("\n"),
    );
  });

  it("is deterministic and says when no ids were found", () => {
    const input = { call, content: "no results", hitIdPattern: /doc-(\d+)/, laterToolCallId: "s2" };
    expect(renderSupersededSearchStub(input).text).toBe(renderSupersededSearchStub(input).text);
    expect(renderSupersededSearchStub(input).text).toContain("hit ids verbatim: (none found)");
  });

  it("opens with a header that says the result was condensed and its hit ids kept", () => {
    const { text } = renderSupersededSearchStub({
      call,
      content,
      hitIdPattern: /"id":"([^"]+)"/,
      laterToolCallId: "s7",
    });
    expect(text.split("\n")[0]).toMatch(
      /^\[Superseded search results — condensed by context-cleaner; every hit id kept/,
    );
  });

  it("skips a hit whose id is empty", () => {
    expect(extractHitIds('[{"id":""},{"id":"cd_1"},{"id":""}]', /"id":"([^"]*)"/)).toEqual(["cd_1"]);
  });

  it("uses the whole match when the pattern has no capture group, and ignores a stale lastIndex", () => {
    const pattern = /doc-\d+/g;
    pattern.lastIndex = 5;
    expect(extractHitIds("doc-1 doc-22 doc-1", pattern)).toEqual(["doc-1", "doc-22"]);
  });
});
