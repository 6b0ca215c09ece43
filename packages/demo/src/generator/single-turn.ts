import type { Message, ToolCall } from "@context-cleaner/assembler";
import type { ContractSpec, Fact, FactTemplate } from "./contract-writer";
import {
  CREDIT_AGREEMENT,
  DISCLOSURE_LETTER,
  FEE_LETTER,
  GROUND_LEASE,
  LEASE_GUARANTY,
  LEASE_SNDA,
  LICENCE_AGREEMENT,
  MERGER_AGREEMENT,
  SECURITY_AGREEMENT,
  SIDE_LETTER,
  SUPPLY_AGREEMENT,
  SUPPORT_AGREEMENT,
} from "./contracts";
import { FigureRegistry } from "./figures";
import { type FooterStyle, wrap } from "./layout";
import { normalize, probeCandidates, probesOverEveryResult, threadText } from "./probes";
import { SeededRandom } from "./seeded-random";
import {
  type DocumentPlan,
  LEGAL_SYSTEM,
  type RenderedDocument,
  renderDocument,
  type ThreadFixture,
} from "./thread";

/**
 * Single-turn legal threads: ONE user turn in which the agent reads every page of several
 * contracts, for measuring what a view does inside a long turn (the history budget passed
 * long before the turn ends). Three scripts:
 *
 * - `in-full`: each document read page by page in full before the next (a fan-out over a
 *   dozen contracts);
 * - `side-by-side`: documents read in groups, a page of each in turn (A p1, B p1, A p2, …);
 * - `every-junk`: paged reads with every junk category in the same turn: a superseded
 *   search, failed reads retried, an answered `ask_user` interrupt, a first page opening
 *   with a tracked-changes ledger, an exact duplicate read and bulky exhibits.
 *
 * Probes are spread over every page: a few figures verbatim (amounts, rates, dates,
 * section references) of each result that holds one no other message does.
 */

/** A bulky output: one table read whole by one call of an idempotent tool (no page offset). */
export interface ExhibitPlan {
  tool: "get_document_text" | "read_file";
  /** The call's args (`{ document_id }` or `{ path }`). */
  args: Record<string, string>;
  title: string;
  kind: "rent-roll" | "escrow-ledger";
  rows: number;
}

export interface SingleTurnPlan {
  name: string;
  seed: number;
  description: string;
  pageChars: number;
  system: string;
  task: string;
  documents: readonly DocumentPlan[];
  script:
    | { kind: "in-full"; searchQuery: string }
    /** Sizes of the groups read side by side, in document order (they add up to the documents). */
    | { kind: "side-by-side"; searchQuery: string; groups: readonly number[] }
    | {
        kind: "every-junk";
        /** The first search is superseded by the second. */
        searchQueries: readonly [string, string];
        /** The interrupt the user answers mid-turn. */
        interrupt: readonly [string, string];
        exhibits: readonly [ExhibitPlan, ExhibitPlan];
      };
  artifactTool: "update_tracker" | "update_spreadsheet";
  /** The agent's closing answer, the turn's last message. */
  closing: string;
}

const LETTERS = "abcdefgh";
const ROMAN = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii"];

/**
 * `spec` with one more fact template, a section reference: the clause where the
 * exceptions to the current section are set out (`Section 7.14(c)(ii)`), unique in the thread.
 */
export function withSectionReferences(spec: ContractSpec): ContractSpec {
  const template: FactTemplate = (c) => {
    const clause = c.figures.claim(
      (random) =>
        `Section ${random.integer(2, 14)}.${random.integer(10, 29)}(${random.pick([...LETTERS])})(${random.pick(ROMAN)})`,
    );
    return {
      text: `The exceptions to the obligations of the ${c.roleA} under ${c.reference} are set out exhaustively in ${clause}, and no other exception shall apply unless the ${c.roleB} agrees in writing.`,
      facts: [
        {
          question: `Where are the exceptions to ${c.reference} of the ${spec.shortName} set out?`,
          answer: clause,
        },
      ],
    };
  };
  return { ...spec, templates: [...spec.templates, template] };
}

const SUITES_TENANTS = [
  ["Harborview", "Kestrel", "Meridian", "Alder", "Bluewater", "Contoso", "Peregrine", "Osprey", "Lanner"],
  ["Dental", "Analytics", "Partners", "Bakery", "Studio", "Capital", "Pharmacy", "Fitness", "Legal"],
  ["PLLC", "LLC", "Inc.", "LP", "Corp."],
] as const;

/** A bulky exhibit: a table flattened to runs of spaces, with one figure per row a probe may ask about. */
export function writeExhibit(
  plan: ExhibitPlan,
  random: SeededRandom,
  figures: FigureRegistry,
): { text: string; facts: Fact[] } {
  const lines = [plan.title.toUpperCase(), ""];
  const facts: Fact[] = [];
  if (plan.kind === "rent-roll") {
    lines.push(
      "Suite        Tenant                              Expiry              Annual Rent        Deposit",
    );
    for (let row = 0; row < plan.rows; row++) {
      const suite = `Suite ${2 + Math.floor(row / 10)}${String((row % 10) + 1).padStart(2, "0")}`;
      const tenant = `${random.pick(SUITES_TENANTS[0])} ${random.pick(SUITES_TENANTS[1])} ${random.pick(SUITES_TENANTS[2])}`;
      const expiry = figures.date(2026, 2039);
      const rent = figures.money(40_000, 900_000, 1);
      const deposit = figures.money(5_000, 150_000, 1);
      lines.push(`${suite.padEnd(13)}${tenant.padEnd(36)}${expiry.padEnd(20)}${rent.padEnd(19)}${deposit}`);
      facts.push({ question: `What annual rent does the ${plan.title} show for ${suite}?`, answer: rent });
    }
  } else {
    lines.push("Date                 Entry                                   Debit              Balance");
    for (let row = 0; row < plan.rows; row++) {
      const date = figures.date(2024, 2026);
      const entry = random.pick([
        "Escrow deposit (Section 2.3)",
        "Release to Holders",
        "Indemnity claim reserve",
        "Interest credited",
        "Adjustment Escrow release",
        "Paying Agent fees",
      ]);
      const amount = figures.money(10_000, 4_000_000, 1);
      const balance = figures.money(1_000_000, 90_000_000, 1);
      lines.push(`${date.padEnd(21)}${entry.padEnd(40)}${amount.padEnd(19)}${balance}`);
      facts.push({
        question: `What balance does the ${plan.title} show after the entry of ${date}?`,
        answer: balance,
      });
    }
  }
  lines.push(
    "",
    ...wrap(`End of ${plan.title}. Figures as of the date of the last entry; subject to audit.`, 78),
  );
  return { text: `${lines.join("\n")}\n`, facts };
}

/** One read the script makes: a page of a document, or an exhibit. */
type Step =
  | { kind: "read"; document: number; page: number }
  | { kind: "fail"; document: number; page: number }
  | { kind: "search"; query: string }
  | { kind: "ask"; question: string; answer: string }
  | { kind: "exhibit"; exhibit: number }
  | { kind: "say"; text: string };

function pagesOf(document: RenderedDocument, pageChars: number): number {
  return Math.ceil(document.text.length / pageChars);
}

function inFull(pages: readonly number[], from = 0, to = pages.length): Step[] {
  const steps: Step[] = [];
  for (let document = from; document < to; document++) {
    for (let page = 0; page < (pages[document] ?? 0); page++) steps.push({ kind: "read", document, page });
  }
  return steps;
}

/** Each group's documents a page of each in turn: A p1, B p1, A p2, B p2, … */
function sideBySide(pages: readonly number[], groups: readonly number[]): Step[] {
  const steps: Step[] = [];
  let first = 0;
  for (const size of groups) {
    const members = Array.from({ length: size }, (_, index) => first + index);
    const most = Math.max(...members.map((document) => pages[document] ?? 0));
    for (let page = 0; page < most; page++) {
      for (const document of members)
        if (page < (pages[document] ?? 0)) steps.push({ kind: "read", document, page });
    }
    first += size;
  }
  return steps;
}

/**
 * The every-junk script over three documents: search, the first document (its first page
 * opens with a ledger; its third page fails once), the interrupt, the second search, an
 * exhibit, the second document (its second page fails once), the duplicate of the first
 * document's second page, the other exhibit, the third document.
 */
function everyJunk(
  pages: readonly number[],
  plan: Extract<SingleTurnPlan["script"], { kind: "every-junk" }>,
): Step[] {
  const [first, second, third] = [0, 1, 2].map((document) => inFull(pages, document, document + 1)) as [
    Step[],
    Step[],
    Step[],
  ];
  return [
    { kind: "search", query: plan.searchQueries[0] },
    ...first.slice(0, 2),
    { kind: "fail", document: 0, page: 2 },
    ...first.slice(2, 4),
    { kind: "ask", question: plan.interrupt[0], answer: plan.interrupt[1] },
    ...first.slice(4),
    { kind: "say", text: "The first document is done; searching again for the ancillary documents." },
    { kind: "search", query: plan.searchQueries[1] },
    { kind: "exhibit", exhibit: 0 },
    ...second.slice(0, 1),
    { kind: "fail", document: 1, page: 1 },
    ...second.slice(1),
    { kind: "read", document: 0, page: 1 },
    { kind: "exhibit", exhibit: 1 },
    ...third,
  ];
}

/** Probes per result: about one per 18,000 chars, one to four. */
export function probesPerResult(chars: number): number {
  return Math.min(4, Math.max(1, Math.round(chars / 18_000)));
}

/** Builds a single-turn thread from its plan. Deterministic: the same plan gives the same bytes. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a seeded script: its random draws, in this order, fix the generated bytes; it reads top to bottom
export function buildSingleTurnThread(plan: SingleTurnPlan): ThreadFixture {
  const random = new SeededRandom(plan.seed);
  const figures = new FigureRegistry(random.fork(1));
  const documents = plan.documents.map((document, index) =>
    renderDocument(
      { ...document, spec: withSectionReferences(document.spec) },
      random.fork(10 + index),
      figures,
    ),
  );
  const script = plan.script;
  const exhibits =
    script.kind === "every-junk"
      ? script.exhibits.map((exhibit, index) => ({
          plan: exhibit,
          ...writeExhibit(exhibit, random.fork(100 + index), figures),
        }))
      : [];
  const pages = documents.map((document) => pagesOf(document, plan.pageChars));
  const steps =
    script.kind === "in-full"
      ? inFull(pages)
      : script.kind === "side-by-side"
        ? sideBySide(pages, script.groups)
        : everyJunk(pages, script);

  const messages: Message[] = [{ role: "system", content: plan.system }];
  let callNumber = 0;
  /** What the agent says with its next call. */
  let saying = "";
  const call = (name: string, args: Record<string, unknown>, content: string, status?: "error"): string => {
    const id = `call_${plan.name}_${String(++callNumber).padStart(3, "0")}`;
    const toolCall: ToolCall = { id, name, args };
    messages.push({ role: "assistant", content: saying, toolCalls: [toolCall] });
    saying = "";
    messages.push({ role: "tool", toolCallId: id, toolName: name, content, ...(status ? { status } : {}) });
    return id;
  };
  const searchResult = (query: string) =>
    [
      ...documents.map(
        (document, index) =>
          `{"id": "${document.plan.fileId}", "title": "${document.plan.spec.title}", "score": ${(0.97 - index * 0.03).toFixed(2)}}`,
      ),
      `{"query": "${query}", "total": ${documents.length}}`,
    ].join("\n");
  /** Facts cited by artifact calls are in assistant args, so they are no probe answers. */
  const cited = new Set<string>();
  const artifact = (document: RenderedDocument, content: string) => {
    const chosen = document.facts
      .filter((fact) => normalize(content).includes(fact.answer) && !cited.has(fact.answer))
      .slice(0, 2);
    if (chosen.length === 0) return;
    for (const fact of chosen) cited.add(fact.answer);
    const rows = chosen.map((fact) => ({
      item: fact.question.replace(/\?$/, ""),
      value: fact.answer,
      source: document.plan.spec.title,
    }));
    call(
      plan.artifactTool,
      plan.artifactTool === "update_spreadsheet"
        ? { sheet: document.plan.spec.shortName, rows }
        : { tracker: plan.name, entries: rows },
      `Saved ${rows.length} ${rows.length === 1 ? "entry" : "entries"} to ${document.plan.spec.shortName}.`,
    );
  };

  messages.push({ role: "user", content: plan.task });
  if (script.kind !== "every-junk")
    call("search_documents", { query: script.searchQuery }, searchResult(script.searchQuery));
  let reads = 0;
  for (const step of steps) {
    if (step.kind === "search") call("search_documents", { query: step.query }, searchResult(step.query));
    else if (step.kind === "ask") call("ask_user", { question: step.question }, step.answer);
    else if (step.kind === "say") saying = step.text;
    else if (step.kind === "exhibit") {
      const exhibit = exhibits[step.exhibit] as (typeof exhibits)[number];
      call(exhibit.plan.tool, exhibit.plan.args, exhibit.text);
    } else {
      const document = documents[step.document] as RenderedDocument;
      const offset = step.page * plan.pageChars;
      const args = { file_id: document.plan.fileId, offset };
      if (step.kind === "fail") {
        call(
          "read_document",
          args,
          `Error: DocumentStoreTimeout: upstream read of file_id=${document.plan.fileId} at offset ${offset} timed out after 30000 ms (attempt 1 of 3)\n    at DocumentStore.read (document-store.ts:88:13)\n    at async readDocument (tools.ts:41:5)`,
          "error",
        );
        continue;
      }
      const content = document.text.slice(offset, offset + plan.pageChars);
      call("read_document", args, content);
      if (++reads % 3 === 0) artifact(document, content);
    }
  }
  messages.push({ role: "assistant", content: plan.closing });

  const text = threadText(messages);
  const sources = [
    ...documents.map((document) => ({
      facts: document.facts,
      skipFirstPage: document.plan.ledger !== undefined,
    })),
    ...exhibits.map((exhibit) => ({ facts: exhibit.facts })),
  ];
  return {
    name: plan.name,
    seed: plan.seed,
    description: plan.description,
    messages,
    probes: probesOverEveryResult(text, probeCandidates(text, sources, cited), probesPerResult),
  };
}

const FOOTERS: readonly FooterStyle[] = [
  { kind: "page-of" },
  { kind: "bare", dashed: true },
  { kind: "numbered-footer", footer: ["Execution Version", "Confidential"] },
  { kind: "dms", before: "#7730412v3", after: "NYC 90551208 v4" },
];

/** A document of a single-turn plan: a new file id, a target size, the footers in rotation. */
function document(spec: ContractSpec, fileId: string, targetChars: number, index: number): DocumentPlan {
  return { spec, fileId, targetChars, footer: FOOTERS[index % FOOTERS.length] as FooterStyle };
}

/** The single-turn legal threads (generated at run time, never checked in: ~750,000 chars each). */
export const SINGLE_TURN_PLANS: readonly SingleTurnPlan[] = [
  {
    name: "fan-out-twelve-contracts",
    seed: 5101,
    description:
      "One user turn reading twelve contracts of a closing set page by page in full: 15 pages of about 46,000–56,000 chars, about 750,000 chars.",
    pageChars: 56_000,
    system: LEGAL_SYSTEM,
    task: "Go through all twelve closing documents in the data room, every page, and put every payment, rate, date and section reference they state in the tracker.",
    documents: [
      [GROUND_LEASE, 92_000],
      [LEASE_GUARANTY, 43_000],
      [LEASE_SNDA, 43_000],
      [CREDIT_AGREEMENT, 92_000],
      [SECURITY_AGREEMENT, 43_000],
      [FEE_LETTER, 43_000],
      [MERGER_AGREEMENT, 92_000],
      [DISCLOSURE_LETTER, 43_000],
      [SUPPORT_AGREEMENT, 43_000],
      [LICENCE_AGREEMENT, 43_000],
      [SUPPLY_AGREEMENT, 43_000],
      [SIDE_LETTER, 43_000],
    ].map(([spec, chars], index) =>
      document(spec as ContractSpec, `cd_5101${(index + 10).toString(36)}`, chars as number, index),
    ),
    script: { kind: "in-full", searchQuery: "closing set data room all documents" },
    artifactTool: "update_tracker",
    closing:
      "I have read all twelve documents in full and the tracker holds their payments, rates, dates and section references.",
  },
  {
    name: "side-by-side-five-contracts",
    seed: 5202,
    description:
      "One user turn comparing contracts page against page: the credit agreement beside its security agreement, then the ground lease beside its guaranty and SNDA (A p1, B p1, A p2, …); 15 pages of about 43,000–52,000 chars, about 750,000 chars.",
    pageChars: 52_000,
    system: LEGAL_SYSTEM,
    task: "Compare the credit agreement with its security agreement, and the ground lease with its guaranty and SNDA, page against page, and list every figure on which they must agree.",
    documents: [CREDIT_AGREEMENT, SECURITY_AGREEMENT, GROUND_LEASE, LEASE_GUARANTY, LEASE_SNDA].map(
      (spec, index) => document(spec, `cd_5202${(index + 10).toString(36)}`, 135_000, index),
    ),
    script: {
      kind: "side-by-side",
      searchQuery: "Northwind credit and 445 West 35th Street lease documents",
      groups: [2, 3],
    },
    artifactTool: "update_spreadsheet",
    closing:
      "I have compared every page side by side and the spreadsheet lists each figure the documents must agree on.",
  },
  {
    name: "every-junk-single-turn",
    seed: 5303,
    description:
      "One user turn with every junk category among paged reads: a superseded search, two failed reads retried, an answered ask_user, a first page opening with a tracked-changes ledger, an exact duplicate read and two bulky exhibits read whole; about 700,000 chars.",
    pageChars: 56_000,
    system: LEGAL_SYSTEM,
    task: "Review the Bluewater merger set in one go — the merger agreement, the disclosure letter, the support agreement and the closing exhibits — and track the deal economics: fees, escrow, thresholds, consideration and dates.",
    documents: [
      {
        ...document(MERGER_AGREEMENT, "cd_5303a", 250_000, 0),
        ledger: [
          "[Comments] Execution draft — tracked changes against Parent’s draft; comments ledger follows.",
          "[C1] Parent counsel: confirm the Outside Date extension mechanics in Article 8.",
          "[C2] Company counsel: the reverse termination fee should be payable on any regulatory failure.",
        ],
      },
      document(DISCLOSURE_LETTER, "cd_5303b", 140_000, 1),
      document(SUPPORT_AGREEMENT, "cd_5303c", 95_000, 2),
    ],
    script: {
      kind: "every-junk",
      searchQueries: ["Bluewater merger agreement", "Bluewater disclosure letter support agreement exhibits"],
      interrupt: [
        "Should the tracker carry the ledger comments as open points?",
        "Yes, one open point per comment.",
      ],
      exhibits: [
        {
          tool: "get_document_text",
          args: { document_id: "cd_5303r" },
          title: "Company Real Property Rent Roll",
          kind: "rent-roll",
          rows: 240,
        },
        {
          tool: "read_file",
          args: { path: "exports/escrow-ledger.txt" },
          title: "Escrow Account Ledger",
          kind: "escrow-ledger",
          rows: 150,
        },
      ],
    },
    artifactTool: "update_tracker",
    closing:
      "The tracker holds the deal economics of the merger set, with the ledger comments as open points.",
  },
];

/** Every single-turn legal thread. Deterministic: the same bytes on every run and machine. */
export function generateSingleTurnLegalThreads(): ThreadFixture[] {
  return SINGLE_TURN_PLANS.map((plan) => buildSingleTurnThread(plan));
}
