/**
 * Golden threads for classification (DESIGN §4–§5): small hand-built neutral threads, one
 * per junk category and keep-rule, each with the candidates it must yield. Ids are
 * explicit so a failing expectation names the message.
 */

import { DIGEST_HEADER, type Message, type ToolPolicyInput } from "@context-cleaner/assembler";
import type { CandidateCategory } from "../classify";

/** Deterministic neutral prose of exactly `chars` chars. */
export function filler(label: string, chars: number): string {
  let text = "";
  for (let line = 1; text.length < chars; line++) {
    text += `${label} line ${line}: the reviewer reads this passage and keeps moving through the text. `;
  }
  return text.slice(0, chars);
}

/** Builds a thread exchange by exchange. */
export function threadBuilder() {
  const messages: Message[] = [];
  return {
    messages,
    system(content: string) {
      messages.push({ role: "system", content });
    },
    user(content: string) {
      messages.push({ role: "user", content });
    },
    assistant(content: string) {
      messages.push({ role: "assistant", content });
    },
    /** An assistant tool call and its result; returns the tool call id. */
    call(id: string, name: string, args: Record<string, unknown>, content: string, status?: "error"): string {
      messages.push({ role: "assistant", content: "", toolCalls: [{ id, name, args }] });
      messages.push({ role: "tool", toolCallId: id, toolName: name, content, ...(status ? { status } : {}) });
      return id;
    },
  };
}

export interface ExpectedCandidate {
  toolCallId: string;
  category: CandidateCategory;
  source?: string;
  supersededBy?: string;
}

export interface GoldenThread {
  name: string;
  messages: Message[];
  policy?: ToolPolicyInput;
  recencyKeepExchanges: number;
  /** The candidates, in thread order. */
  candidates: ExpectedCandidate[];
  /** Tool results the keep-rules protect. */
  protectedResults: number;
  /** Results left raw because their tool is time-varying. */
  timeVarying: number;
  /** Results the assembler condenses inline (cat. 2 / cat. 4). */
  inline: number;
  /** Tool call ids that must not be candidates (each for a stated reason). */
  neverCandidates: Record<string, string>;
}

const FINAL_USER = "Thanks. Now draft the summary.";

/** What a golden thread expects unless it says otherwise: no recency wall, nothing protected, time-varying or inline. */
const GOLDEN_DEFAULTS = { recencyKeepExchanges: 0, protectedResults: 0, timeVarying: 0, inline: 0 } as const;

/** A golden thread with {@link GOLDEN_DEFAULTS} for the counts it does not state. */
function golden(
  thread: Omit<GoldenThread, keyof typeof GOLDEN_DEFAULTS> &
    Partial<Pick<GoldenThread, keyof typeof GOLDEN_DEFAULTS>>,
): GoldenThread {
  return { ...GOLDEN_DEFAULTS, ...thread };
}

/** Cat. 1: pages at offset > 0 of idempotent document reads, outside the wall. */
function consumedPages(): GoldenThread {
  const t = threadBuilder();
  t.system("You review documents.");
  t.user("Read the agreement.");
  t.call("c1_p0", "read_document", { file_id: "doc_a", offset: 0 }, filler("A0", 3_000));
  t.call("c1_p1", "read_document", { file_id: "doc_a", offset: 3_000 }, filler("A1", 3_000));
  t.call("c1_p2", "read_document", { file_id: "doc_a", offset: 6_000 }, filler("A2", 3_000));
  t.call("c1_g1", "get_document_text", { document_id: "gd_7", text_offset: 5_000 }, filler("G1", 5_000));
  t.call("c1_f1", "read_file", { path: "notes/a.txt", offset: "4000" }, filler("F1", 4_000));
  t.assistant("I have read the pages.");
  t.user(FINAL_USER);
  return golden({
    name: "cat. 1 consumed pages",
    messages: t.messages,
    candidates: [
      { toolCallId: "c1_p1", category: 1, source: "doc_a" },
      { toolCallId: "c1_p2", category: 1, source: "doc_a" },
      { toolCallId: "c1_g1", category: 1, source: "gd_7" },
      { toolCallId: "c1_f1", category: 1, source: "notes/a.txt" },
    ],
    neverCandidates: { c1_p0: "first page below bulkMinChars" },
  });
}

/** Cat. 3: an earlier search superseded by a later search of the same tool. */
function supersededSearches(): GoldenThread {
  const t = threadBuilder();
  t.user("Find the lease documents.");
  t.call("c3_other", "search", { query: "leases" }, 'id: "doc_z"\nid: "doc_y"');
  t.call("c3_s1", "search_documents", { query: "lease" }, 'id: "doc_a"\nid: "doc_b"');
  t.call("c3_read", "read_document", { file_id: "doc_b", offset: 0 }, filler("B0", 1_000));
  t.call("c3_s2", "search_documents", { query: "lease amendment" }, 'id: "doc_c"');
  t.call("c3_s3", "search_documents", { query: "lease amendment 2" }, 'id: "doc_d"');
  t.call("c3_web", "web_search", { query: "market rent" }, filler("W", 12_000));
  t.assistant("Found them.");
  t.user(FINAL_USER);
  return golden({
    name: "cat. 3 superseded searches",
    messages: t.messages,
    candidates: [
      { toolCallId: "c3_s1", category: 3, supersededBy: "c3_s2" },
      { toolCallId: "c3_s2", category: 3, supersededBy: "c3_s3" },
    ],
    neverCandidates: {
      c3_s3: "the latest search of its tool",
      c3_other: "a different search tool with no later call",
      c3_web: "a lone web search (time-varying) however large",
    },
  });
}

/** Cat. 5: bulky output of idempotent tools (a user-policy tool, a first page without a ledger). */
function bulkyOutput(): GoldenThread {
  const t = threadBuilder();
  t.user("Pull the filings.");
  t.call("c5_f1", "fetch_filing", { filing_id: "F-1" }, filler("F1", 9_000));
  t.call("c5_f2", "fetch_filing", { filing_id: "F-2" }, filler("F2", 7_999));
  t.call("c5_p0", "read_document", { file_id: "doc_b", offset: 0 }, filler("B0", 8_000));
  t.call("c5_p0_absent", "read_document", { file_id: "doc_c" }, filler("C0", 12_000));
  t.call("c5_small", "read_document", { file_id: "doc_d", offset: 0 }, filler("D0", 7_000));
  t.assistant("Done.");
  t.user(FINAL_USER);
  return golden({
    name: "cat. 5 bulky output",
    messages: t.messages,
    policy: { tools: { fetch_filing: { kind: "other", idempotent: true } } },
    candidates: [
      { toolCallId: "c5_f1", category: 5 },
      { toolCallId: "c5_p0", category: 5, source: "doc_b" },
      { toolCallId: "c5_p0_absent", category: 5, source: "doc_c" },
    ],
    neverCandidates: {
      c5_f2: "one char below bulkMinChars",
      c5_small: "a first page below bulkMinChars",
    },
  });
}

/** Keep-rules 3–7: every protected result stays raw, however large; a later ledger page does not. */
function keepRules(): GoldenThread {
  const t = threadBuilder();
  const big = (label: string) => filler(label, 20_000);
  t.user("Work through the deal room.");
  // Rule 3: synthetic errors with an empty tool call id, several sharing "".
  for (const offset of [5_000, 10_000, 15_000]) {
    t.call("", "read_document", { file_id: "doc_x", offset }, big(`X${offset}`));
  }
  // Rule 4: interrupts (default ask_user, a policy interrupt tool).
  t.call("k_ask", "ask_user", { question: "Include the guaranty?" }, big("ASK"));
  t.call("k_mail", "send_mail", { to: "counsel", offset: 1 }, big("MAIL"));
  // Rule 5: a ledger first page is kept; the next page of the same document is fair game.
  t.call("k_l0", "read_document", { file_id: "doc_l", offset: 0 }, `TRACKED CHANGES [C1]\n${big("L0")}`);
  t.call("k_l1", "read_document", { file_id: "doc_l", offset: 20_000 }, big("L1"));
  // Rule 6: doc_r is named in a window tool call's args; doc_s by one page's call id; a filing by call id.
  t.call("k_r0", "read_document", { file_id: "doc_r", offset: 0 }, filler("R0", 3_000));
  t.call("k_r1", "read_document", { file_id: "doc_r", offset: 3_000 }, big("R1"));
  t.call("k_r2", "read_document", { file_id: "doc_r", offset: 23_000 }, big("R2"));
  t.call("k_s1", "read_document", { file_id: "doc_s", offset: 5_000 }, big("S1"));
  t.call("k_s2", "read_document", { file_id: "doc_s", offset: 25_000 }, big("S2"));
  t.call("k_ref", "fetch_filing", { filing_id: "F-9" }, big("F9"));
  // Rule 7: methodology and memory.
  t.call("k_mem", "save_memory", { note: "tracker started" }, big("MEM"));
  t.call("k_skill", "load_skill", { name: "lease-review" }, big("SKILL"));
  t.user("Go on with the rent schedule.");
  // The window, mid-turn: a re-read of doc_r and a note citing two call ids.
  t.call("k_wall", "read_document", { file_id: "doc_r", offset: 43_000 }, filler("R3", 2_000));
  t.assistant("Per k_s1 and k_ref the schedule starts in year 6.");
  return golden({
    name: "keep-rules",
    messages: t.messages,
    policy: {
      tools: { send_mail: { kind: "interrupt" }, fetch_filing: { kind: "other", idempotent: true } },
    },
    candidates: [{ toolCallId: "k_l1", category: 1, source: "doc_l" }],
    // 3 empty ids, 2 interrupts, 1 ledger page, 3 doc_r, 2 doc_s, 1 filing, 2 keep, 1 wall.
    protectedResults: 15,
    neverCandidates: {
      "": "empty tool call id",
      k_ask: "ask_user interrupt",
      k_mail: "policy interrupt",
      k_l0: "ledger first page",
      k_r1: "document id in a window tool call's args",
      k_r2: "document id in a window tool call's args",
      k_s1: "call id mentioned in the window",
      k_s2: "same source as a page whose call id the window mentions",
      k_ref: "call id mentioned in the window",
      k_mem: "save_memory",
      k_skill: "load_skill",
      k_wall: "inside the recency wall",
    },
  });
}

/** Rule 2: the last `recencyKeepExchanges` exchanges before the latest user message, and all after it. */
function recencyWall(): GoldenThread {
  const t = threadBuilder();
  t.user("Read the four documents.");
  for (const id of ["a", "b", "c", "d"]) {
    t.call(`w_${id}`, "read_document", { file_id: `doc_${id}`, offset: 5_000 }, filler(id, 6_000));
  }
  t.user("Continue.");
  t.call("w_e", "read_document", { file_id: "doc_e", offset: 5_000 }, filler("e", 6_000));
  return golden({
    name: "recency wall (3 exchanges)",
    messages: t.messages,
    recencyKeepExchanges: 3,
    candidates: [{ toolCallId: "w_a", category: 1, source: "doc_a" }],
    protectedResults: 4,
    neverCandidates: {
      w_b: "third exchange before the latest user message",
      w_c: "second exchange before the latest user message",
      w_d: "last exchange before the latest user message",
      w_e: "after the latest user message",
    },
  });
}

/** Time-varying results are never candidates, even when huge. */
function timeVarying(): GoldenThread {
  const t = threadBuilder();
  const huge = (label: string) => filler(label, 60_000);
  t.user("Check the live data.");
  t.call("t_db", "query_database", { sql: "select * from rent_roll" }, huge("DB"));
  t.call("t_web", "fetch_url", { url: "https://example.com/rates" }, huge("WEB"));
  t.call("t_mail", "read_mail", { mailbox: "inbox", offset: 20 }, huge("MAIL"));
  t.call("t_quote", "get_quote", { symbol: "REIT" }, huge("QUOTE"));
  t.call("t_sheet", "read_live_sheet", { sheet_id: "S1", offset: 10_000 }, huge("SHEET"));
  t.call("t_search", "web_search", { query: "cap rates" }, huge("SEARCH"));
  t.call("t_doc", "read_document", { file_id: "doc_t", offset: 10_000 }, filler("T", 5_000));
  t.assistant("Collected.");
  t.user(FINAL_USER);
  return golden({
    name: "time-varying results",
    messages: t.messages,
    policy: {
      tools: {
        get_quote: { kind: "other", idempotent: false },
        read_live_sheet: { kind: "document-read", provenanceArgs: ["sheet_id", "offset"], idempotent: false },
      },
    },
    candidates: [{ toolCallId: "t_doc", category: 1, source: "doc_t" }],
    timeVarying: 5,
    neverCandidates: {
      t_db: "database query (unknown tool)",
      t_web: "web fetch (unknown tool)",
      t_mail: "mail read (unknown tool, even with an offset)",
      t_quote: "policy tool marked non-idempotent",
      t_sheet: "document read marked non-idempotent",
      t_search: "a lone search",
    },
  });
}

/**
 * Cat. 2 duplicates and cat. 4 error/retry pairs are the assembler's. A page that opens
 * like a digest is still a page: a checkpoint holds raw results, never the cleaner's text.
 */
function leftToAssembler(): GoldenThread {
  const t = threadBuilder();
  const page = filler("D", 6_000);
  t.user("Read doc_d and doc_e.");
  t.call("i_d1", "read_document", { file_id: "doc_d", offset: 5_000 }, page);
  t.call("i_d2", "read_document", { file_id: "doc_d", offset: 5_000 }, page);
  t.call(
    "i_e1",
    "read_document",
    { file_id: "doc_e", offset: 5_000 },
    "Error: upstream timeout (504) while reading doc_e",
    "error",
  );
  t.call("i_e2", "read_document", { file_id: "doc_e", offset: 5_000 }, filler("E", 6_000));
  t.call(
    "i_f1",
    "fetch_filing",
    { filing_id: "F-3" },
    "Error: filing service unavailable (503)\n  at fetchFiling (filings.js:41)",
  );
  t.call("i_f2", "fetch_filing", { filing_id: "F-3" }, filler("F3", 9_000));
  t.call(
    "i_c",
    "read_document",
    { file_id: "doc_c", offset: 5_000 },
    `${DIGEST_HEADER}\ntool: read_document\n${filler("C", 6_000)}`,
  );
  t.assistant("Done.");
  t.user(FINAL_USER);
  return golden({
    name: "left to the assembler",
    messages: t.messages,
    policy: { tools: { fetch_filing: { kind: "other", idempotent: true } } },
    candidates: [
      { toolCallId: "i_d2", category: 1, source: "doc_d" },
      { toolCallId: "i_e2", category: 1, source: "doc_e" },
      { toolCallId: "i_f2", category: 5 },
      { toolCallId: "i_c", category: 1, source: "doc_c" },
    ],
    inline: 3,
    neverCandidates: {
      i_d1: "earlier exact duplicate (cat. 2 stub)",
      i_e1: "error retried below (cat. 4 stub, status error)",
      i_f1: "error retried below (cat. 4 stub, error text)",
    },
  });
}

/** Every golden thread. */
export function goldenThreads(): GoldenThread[] {
  return [
    consumedPages(),
    supersededSearches(),
    bulkyOutput(),
    keepRules(),
    recencyWall(),
    timeVarying(),
    leftToAssembler(),
  ];
}
