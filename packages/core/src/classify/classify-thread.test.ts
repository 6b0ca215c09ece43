import { createToolPolicy, type Message } from "@context-cleaner/assembler";
import { contentSha256, protectMessages } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { filler, goldenThreads, threadBuilder } from "#test/core/fixtures/golden-threads";
import { CANDIDATE_CATEGORIES, classifyThread } from "./classify-thread";

const golden = goldenThreads();
const byName = (name: string) => {
  const thread = golden.find((entry) => entry.name === name);
  if (!thread) throw new Error(`no golden thread ${name}`);
  return thread;
};

describe("classifyThread over golden threads", () => {
  it.each(golden.map((thread) => [thread.name, thread] as const))(
    "%s: exactly the expected candidates and counts",
    (_name, thread) => {
      const policy = createToolPolicy(thread.policy);
      const result = classifyThread(thread.messages, policy, {
        recencyKeepExchanges: thread.recencyKeepExchanges,
      });
      expect(
        result.candidates.map((candidate) => ({
          toolCallId: candidate.message.toolCallId,
          category: candidate.category,
          ...(candidate.source !== undefined ? { source: candidate.source } : {}),
          ...(candidate.supersededBy !== undefined ? { supersededBy: candidate.supersededBy } : {}),
        })),
      ).toEqual(thread.candidates);
      expect({
        protectedResults: result.protectedResults,
        timeVarying: result.timeVarying,
        inline: result.inline,
      }).toEqual({
        protectedResults: thread.protectedResults,
        timeVarying: thread.timeVarying,
        inline: thread.inline,
      });
      const candidateIds = new Set(result.candidates.map((candidate) => candidate.message.toolCallId));
      for (const id of Object.keys(thread.neverCandidates)) expect(candidateIds.has(id)).toBe(false);
    },
  );

  it.each(golden.map((thread) => [thread.name, thread] as const))(
    "%s: every candidate is a cleanable tool result with its call, hash and size",
    (_name, thread) => {
      const policy = createToolPolicy(thread.policy);
      const result = classifyThread(thread.messages, policy, {
        recencyKeepExchanges: thread.recencyKeepExchanges,
      });
      const protection = protectMessages(thread.messages, policy, thread.recencyKeepExchanges);
      for (const candidate of result.candidates) {
        expect(thread.messages[candidate.index]).toBe(candidate.message);
        expect(protection.reasons[candidate.index]).toBeUndefined();
        expect(candidate.call.id).toBe(candidate.message.toolCallId);
        expect(candidate.rule.name).toBe(candidate.message.toolName);
        expect(candidate.contentSha256).toBe(contentSha256(candidate.message.content));
        expect(candidate.originalChars).toBe((candidate.message.content as string).length);
      }
    },
  );

  it("names the keep-rule protecting each kept result of the keep-rules thread", () => {
    const thread = byName("keep-rules");
    const policy = createToolPolicy(thread.policy);
    const protection = protectMessages(thread.messages, policy, thread.recencyKeepExchanges);
    const reasonOf = (id: string) =>
      thread.messages.flatMap((message, index) =>
        message.role === "tool" && message.toolCallId === id ? [protection.reasons[index]] : [],
      );
    expect(reasonOf("")).toEqual(["empty-tool-call-id", "empty-tool-call-id", "empty-tool-call-id"]);
    expect(reasonOf("k_ask")).toEqual(["interrupt"]);
    expect(reasonOf("k_mail")).toEqual(["interrupt"]);
    expect(reasonOf("k_l0")).toEqual(["ledger-first-page"]);
    expect(reasonOf("k_l1")).toEqual([undefined]);
    for (const id of ["k_r1", "k_r2", "k_s1", "k_ref"])
      expect(reasonOf(id)).toEqual(["referenced-by-window"]);
    // The document's other pages: not what the window refers to.
    for (const id of ["k_r0", "k_s2"]) expect(reasonOf(id)).toEqual([undefined]);
    expect(reasonOf("k_mem")).toEqual(["policy-keep"]);
    expect(reasonOf("k_skill")).toEqual(["policy-keep"]);
    expect(reasonOf("k_wall")).toEqual(["recency-wall"]);
  });

  it("honors recencyKeepExchanges: with 0 the exchanges before the latest user message are fair game", () => {
    const thread = byName("recency wall (3 exchanges)");
    const result = classifyThread(thread.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates.map((candidate) => candidate.message.toolCallId)).toEqual([
      "w_a",
      "w_b",
      "w_c",
      "w_d",
    ]);
    expect(result.protectedResults).toBe(1);
  });

  it("a referenced document's pages become candidates once the window no longer names it", () => {
    const thread = byName("keep-rules");
    const policy = createToolPolicy(thread.policy);
    const cut = thread.messages.findLastIndex((message) => message.role === "user");
    const withoutWindow: Message[] = [...thread.messages.slice(0, cut), { role: "user", content: "Next." }];
    const ids = classifyThread(withoutWindow, policy, { recencyKeepExchanges: 0 }).candidates.map(
      (candidate) => candidate.message.toolCallId,
    );
    expect(ids).toEqual(["k_l1", "k_r1", "k_r2", "k_s1", "k_s2", "k_ref", "k_q1"]);
  });

  it("with the next turn's wall, a turn that just ended gives up its pages before its last exchanges", () => {
    const t = threadBuilder();
    t.user("Read the lease.");
    for (const page of [1, 2, 3, 4]) {
      t.call(
        `p${page}`,
        "read_document",
        { file_id: "lease", offset: page * 20_000 },
        filler(`P${page}`, 20_000),
      );
    }
    t.assistant("Read all four pages.");
    const ids = (wall: "current" | "next-turn") =>
      classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 3, wall }).candidates.map(
        (candidate) => candidate.message.toolCallId,
      );
    // The current wall starts at the latest user message: the whole turn.
    expect(ids("current")).toEqual([]);
    // The next turn's wall holds the answer and the last two pages.
    expect(ids("next-turn")).toEqual(["p1", "p2"]);
  });

  it("with the mid-turn wall, a turn under way gives up what the agent moved past, keeping its latest exchanges and every keep-rule", () => {
    const t = threadBuilder();
    t.user("Read the lease and the guaranty.");
    t.call(
      "l0",
      "read_document",
      { file_id: "lease", offset: 0 },
      `TRACKED CHANGES [C1]\n${filler("L0", 20_000)}`,
    );
    for (const page of [1, 2, 3]) {
      t.call(
        `l${page}`,
        "read_document",
        { file_id: "lease", offset: page * 20_000 },
        filler(`L${page}`, 20_000),
      );
    }
    t.call("ask", "ask_user", { question: "Include the guaranty?" }, filler("ASK", 20_000));
    t.call("mem", "save_memory", { note: "lease read" }, filler("MEM", 20_000));
    t.call("g1", "read_document", { file_id: "guaranty", offset: 20_000 }, filler("G1", 20_000));
    // The latest exchange names the guaranty and reads the lease further.
    t.messages.push({
      role: "assistant",
      content: "Reading on; the guaranty comes next.",
      toolCalls: [{ id: "l4", name: "read_document", args: { file_id: "lease", offset: 80_000 } }],
    });
    t.messages.push({
      role: "tool",
      toolCallId: "l4",
      toolName: "read_document",
      content: filler("L4", 20_000),
    });
    const ids = (options: { wall: "current" | "next-turn" | "mid-turn"; midTurnKeepExchanges?: number }) =>
      classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0, ...options }).candidates.map(
        (candidate) => candidate.message.toolCallId,
      );
    // The turn's wall keeps all of it; the next turn's gives up all of it (its window names nothing).
    expect(ids({ wall: "current" })).toEqual([]);
    expect(ids({ wall: "next-turn" })).toEqual(["l1", "l2", "l3", "g1", "l4"]);
    // Mid-turn: the latest exchange stays raw, and so does the guaranty's latest page it names;
    // the ledger page, the interrupt and the memory stay raw whatever the wall.
    expect(ids({ wall: "mid-turn" })).toEqual(["l1", "l2", "l3"]);
    expect(ids({ wall: "mid-turn", midTurnKeepExchanges: 1 })).toEqual(["l1", "l2", "l3"]);
    // Four exchanges: the memory note in the window names the lease, whose latest page before it stays raw.
    expect(ids({ wall: "mid-turn", midTurnKeepExchanges: 4 })).toEqual(["l1", "l2"]);
    expect(ids({ wall: "mid-turn", midTurnKeepExchanges: 20 })).toEqual([]);
  });

  it("a huge result of a time-varying tool stays raw even when it is the only tool output", () => {
    const t = threadBuilder();
    t.user("Pull the rent roll.");
    t.call("db_1", "query_database", { sql: "select 1" }, filler("DB", 500_000));
    t.call("db_2", "query_database", { sql: "select 2" }, filler("DB2", 500_000));
    t.assistant("Pulled.");
    t.user("Summarise.");
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates).toEqual([]);
    expect(result.timeVarying).toBe(2);
  });

  it("a later search that is itself protected still supersedes an earlier one", () => {
    const t = threadBuilder();
    t.user("Search.");
    t.call("s_1", "search_documents", { query: "lease" }, 'id: "doc_a"\nid: "doc_b"');
    t.user("Search again.");
    t.call("s_2", "search_documents", { query: "lease amendment" }, 'id: "doc_c"');
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates).toHaveLength(1);
    expect(result.candidates[0]).toMatchObject({
      category: CANDIDATE_CATEGORIES.supersededSearch,
      supersededBy: "s_2",
    });
    expect(result.candidates[0]?.message.toolCallId).toBe("s_1");
  });

  it("a search answered with an empty tool call id supersedes nothing and is kept", () => {
    const t = threadBuilder();
    t.user("Search.");
    t.call("s_1", "search_documents", { query: "lease" }, 'id: "doc_a"');
    t.call("", "search_documents", { query: "lease again" }, 'id: "doc_b"');
    t.assistant("Searched.");
    t.user("Next.");
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates).toEqual([]);
    expect(result.protectedResults).toBe(1);
  });

  it("a failed later search supersedes nothing: the earlier list is still the latest that worked", () => {
    const t = threadBuilder();
    t.user("Search.");
    t.call("s_1", "search_documents", { query: "lease" }, 'id: "doc_a"\nid: "doc_b"');
    t.call(
      "s_2",
      "search_documents",
      { query: "lease amendment" },
      "Error: search backend unavailable (503)",
      "error",
    );
    t.call(
      "s_3",
      "search_documents",
      { query: "lease amendment" },
      "Error: search backend unavailable (503)",
    );
    t.assistant("The search service is down.");
    t.user("Next.");
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates).toEqual([]);
  });

  it("a long page that opens like an error is a page to digest, retried or not", () => {
    const t = threadBuilder();
    t.user("Read the supply contract.");
    t.call(
      "p_1",
      "read_document",
      { file_id: "supply", offset: 6_000 },
      `Failed Delivery\n\n12.1 If the Seller fails to deliver by the Delivery Date, the Buyer may terminate.\n${filler("S", 6_000)}`,
    );
    t.call("p_2", "read_document", { file_id: "supply", offset: 12_000 }, filler("S2", 6_000));
    t.call(
      "l_1",
      "read_log",
      { log_id: "billing" },
      `ERROR 12:00 charge failed for INV-4471 $12,480.00\n${filler("L", 10_000)}`,
    );
    t.call("l_2", "read_log", { log_id: "billing" }, "12:05 all charges settled");
    t.assistant("Read.");
    t.user("Next.");
    const policy = createToolPolicy({ tools: { read_log: { kind: "other", idempotent: true } } });
    const result = classifyThread(t.messages, policy, { recencyKeepExchanges: 0 });
    expect(result.candidates.map((candidate) => [candidate.message.toolCallId, candidate.category])).toEqual([
      ["p_1", CANDIDATE_CATEGORIES.consumedPage],
      ["p_2", CANDIDATE_CATEGORIES.consumedPage],
      ["l_1", CANDIDATE_CATEGORIES.bulkyOutput],
    ]);
    expect(result.inline).toBe(0);
  });

  it("a README opening with a context-cleaner badge is a page like any other", () => {
    const t = threadBuilder();
    t.user("Read the README.");
    const badge = "[![context-cleaner build](https://ci.example.com/badge.svg)](https://ci.example.com)\n";
    t.call("m_1", "read_file", { path: "README.md" }, `${badge}# Tools\n\n${filler("R", 9_000)}`);
    t.assistant("Read.");
    t.user("Next.");
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates.map((candidate) => [candidate.message.toolCallId, candidate.category])).toEqual([
      ["m_1", CANDIDATE_CATEGORIES.bulkyOutput],
    ]);
  });

  it("a failed result that was never retried is no page to digest, however long its trace", () => {
    const t = threadBuilder();
    t.user("Read the end of doc_a.");
    t.call(
      "e_1",
      "read_document",
      { file_id: "doc_a", offset: 90_000 },
      `Error: offset beyond end\n${filler("at", 5_000)}`,
      "error",
    );
    t.call(
      "e_2",
      "fetch_filing",
      { filing_id: "F-1" },
      `Exception: filing locked\n${filler("at", 9_000)}`,
      "error",
    );
    t.call("e_3", "fetch_filing", { filing_id: "F-2" }, "Exception: filing locked (423)");
    t.assistant("The document is shorter than that.");
    t.user("Next.");
    const policy = createToolPolicy({ tools: { fetch_filing: { kind: "other", idempotent: true } } });
    const result = classifyThread(t.messages, policy, { recencyKeepExchanges: 0 });
    expect(result.candidates).toEqual([]);
  });

  it("a result with a non-text block is no candidate; one of text blocks only is", () => {
    const t = threadBuilder();
    t.user("Read the agreement.");
    t.call("b_text", "read_document", { file_id: "doc_a", offset: 3_000 }, "");
    t.call("b_image", "read_document", { file_id: "doc_a", offset: 6_000 }, "");
    t.assistant("Read.");
    t.user("Next.");
    const messages = t.messages.map((message) => {
      if (message.role !== "tool") return message;
      const text = { type: "text", text: filler(message.toolCallId, 3_000) };
      const image = {
        type: "image",
        source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" },
      };
      return { ...message, content: message.toolCallId === "b_text" ? [text] : [text, image] };
    });
    const result = classifyThread(messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates.map((candidate) => candidate.message.toolCallId)).toEqual(["b_text"]);
  });

  it("a result whose tool call id is shared with another result is never a candidate", () => {
    const t = threadBuilder();
    t.user("Read the agreement.");
    t.call("r_1", "read_document", { file_id: "doc_a", offset: 3_000 }, filler("A1", 3_000));
    t.call("r_1", "read_document", { file_id: "doc_a", offset: 6_000 }, filler("A2", 3_000));
    t.call("r_2", "read_document", { file_id: "doc_a", offset: 9_000 }, filler("A3", 3_000));
    t.assistant("Read.");
    t.user("Next.");
    const result = classifyThread(t.messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result.candidates.map((candidate) => candidate.message.toolCallId)).toEqual(["r_2"]);
  });

  it("a later page of a tool that is not a document read is bulky output or nothing, never a consumed page", () => {
    const policy = createToolPolicy({
      tools: { fetch_log: { kind: "other", idempotent: true, offsetArg: "offset" } },
    });
    const t = threadBuilder();
    t.user("Fetch the logs.");
    t.call("l_1", "fetch_log", { offset: 2_000 }, filler("L1", 2_000));
    t.call("l_2", "fetch_log", { offset: 4_000 }, filler("L2", 9_000));
    t.assistant("Fetched.");
    t.user("Next.");
    const result = classifyThread(t.messages, policy, { recencyKeepExchanges: 0 });
    expect(result.candidates.map(({ message, category }) => [message.toolCallId, category])).toEqual([
      ["l_2", CANDIDATE_CATEGORIES.bulkyOutput],
    ]);
  });

  it("counts a protected result at the very start of a thread", () => {
    const messages: Message[] = [
      { role: "tool", toolCallId: "", toolName: "read_document", content: "Error: no such file" },
      { role: "user", content: "Read it again." },
    ];
    const result = classifyThread(messages, createToolPolicy(), { recencyKeepExchanges: 0 });
    expect(result).toEqual({ candidates: [], protectedResults: 1, timeVarying: 0, inline: 0 });
  });

  it("never mutates its input", () => {
    for (const thread of golden) {
      const before = JSON.stringify(thread.messages);
      classifyThread(thread.messages, createToolPolicy(thread.policy), {
        recencyKeepExchanges: thread.recencyKeepExchanges,
      });
      expect(JSON.stringify(thread.messages)).toBe(before);
    }
  });
});

describe("classifyThread with read_original", () => {
  const thread = byName("time-varying results");
  const policy = createToolPolicy(thread.policy);
  const classify = (readOriginal?: boolean) =>
    classifyThread(thread.messages, policy, {
      recencyKeepExchanges: thread.recencyKeepExchanges,
      ...(readOriginal === undefined ? {} : { readOriginal }),
    });

  it("leaves time-varying output raw when read_original is off, as by default", () => {
    for (const result of [classify(), classify(false)]) {
      expect(result.candidates.map((candidate) => candidate.message.toolCallId)).toEqual(["t_doc"]);
      expect(result.timeVarying).toBe(5);
    }
  });

  it("digests time-varying output over the bulky size as bulky output, marked, when read_original is on", () => {
    const result = classify(true);
    expect(
      result.candidates.map((candidate) => [
        candidate.message.toolCallId,
        candidate.category,
        candidate.timeVarying,
      ]),
    ).toEqual([
      ["t_db", "bulky-output", true],
      ["t_web", "bulky-output", true],
      ["t_mail", "bulky-output", true],
      ["t_quote", "bulky-output", true],
      ["t_sheet", "bulky-output", true],
      ["t_doc", "consumed-page", undefined],
    ]);
    expect(result.timeVarying).toBe(0);
  });

  it("leaves time-varying output under the bulky size raw even with read_original", () => {
    const t = threadBuilder();
    t.user("Run it.");
    t.call("t_small", "run_command", { cmd: "ls" }, filler("LS", 3_000));
    t.assistant("Done.");
    t.user("Next.");
    const result = classifyThread(t.messages, createToolPolicy(), {
      recencyKeepExchanges: 0,
      readOriginal: true,
    });
    expect(result.candidates).toEqual([]);
  });
});
