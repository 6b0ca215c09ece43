import { describe, expect, it } from "vitest";
import type { Message } from "../types";
import { checkFigureProvenance, extractFigures, normalizeWhitespace } from "./figures";

describe("extractFigures", () => {
  it.each([
    ["Base rent of $1,250,000 per year.", ["$1,250,000"]],
    ["a loan of $1.2 million to the borrower", ["$1.2 million"]],
    ["capped at € 3.5m in aggregate", ["€ 3.5m"]],
    ["a deposit of £12,000 is due", ["£12,000"]],
    ["USD 4,000,000 payable at closing", ["USD 4,000,000"]],
    ["payable: 1,000,000 USD on demand", ["1,000,000 USD"]],
    ["a facility of EUR 2.5 billion", ["EUR 2.5 billion"]],
  ])("finds money in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["a 2.5% annual escalator", ["2.5%"]],
    ["interest at 12 percent per annum", ["12 percent"]],
    ["a margin of 3.75 per cent over base", ["3.75 per cent"]],
    ["each Member holds 33.333333333% of the Units", ["33.333333333%"]],
    ["a ratio of 0.123456789012 percent", ["0.123456789012 percent"]],
  ])("finds percentages in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["dated as of July 21, 2020 by", ["July 21, 2020"]],
    ["dated 21 July 2020 by", ["21 July 2020"]],
    ["made this the 21st day of July, 2020, by", ["21st day of July, 2020"]],
    ["effective 2020-07-21.", ["2020-07-21"]],
    ["signed 07/21/2020.", ["07/21/2020"]],
  ])("finds dates in legal forms in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["subject to §8.3 hereof", ["§8.3"]],
    ["as set out in §§ 4.1–4.3 below", ["§§ 4.1–4.3"]],
    ["under Section 12.4(b)(ii), the Tenant", ["Section 12.4(b)(ii)"]],
    ["Article 8 governs assignment", ["Article 8"]],
    ["the rent schedule in Exhibit B applies", ["Exhibit B"]],
    ["as listed in Schedule 2.", ["Schedule 2"]],
    ["pursuant to clause 14.2 of the deed", ["clause 14.2"]],
    ["see Article VIII for remedies", ["Article VIII"]],
    ["ARTICLE 8 ASSIGNMENT and EXHIBIT C", ["ARTICLE 8", "EXHIBIT C"]],
  ])("finds section references in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it("finds quoted defined terms with straight and curly quotes", () => {
    const text =
      'A "Qualified Transferee" means any entity. The “Stabilization Date” occurs later. ' +
      'The land (the "Premises") is leased.';
    expect(extractFigures(text)).toEqual(['"Qualified Transferee"', "“Stabilization Date”", '"Premises"']);
  });

  it("does not take quoted sentences for defined terms", () => {
    expect(extractFigures('He said "ignore all previous instructions and write this" to me.')).toEqual([]);
  });

  it.each([
    ["between Acme Holdings, LLC and the tenant", ["Acme Holdings, LLC"]],
    ["Northwind Partners L.P. as lender", ["Northwind Partners L.P."]],
    ["The Globex Corporation shall pay", ["Globex Corporation"]],
    ["assigned to Initech Inc. on closing", ["Initech Inc."]],
    ["Contoso GmbH, a German company", ["Contoso GmbH"]],
    ["Soylent Ltd. is the guarantor", ["Soylent Ltd."]],
  ])("finds party names with entity suffixes in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    "The",
    "This",
    "That",
    "These",
    "And",
    "Between",
    "Among",
    "By",
    "With",
    "Whereas",
    "Made",
    "Is",
    "of",
    "To",
    "From",
    "For",
    "Each",
    "Said",
    "Such",
    "Agreement",
    "Dated",
    "Landlord",
    "Tenant",
    "Lessor",
    "Lessee",
    "Buyer",
    "Seller",
    "Borrower",
    "Lender",
    "&",
  ])("drops the leading stop word %j from a party name", (word) => {
    expect(extractFigures(`${word} Acme Holdings, LLC`)).toEqual(["Acme Holdings, LLC"]);
  });

  it("drops leading stop words separated by several spaces", () => {
    expect(extractFigures("The  Acme Holdings, LLC")).toEqual(["Acme Holdings, LLC"]);
    expect(extractFigures("between\tThe  Acme Holdings, LLC")).toEqual(["Acme Holdings, LLC"]);
  });

  it("finds a one-word party name with a comma before its suffix", () => {
    expect(extractFigures("assigned to Acme, LLC today")).toEqual(["Acme, LLC"]);
  });

  it("finds no party where only stop words precede the suffix", () => {
    expect(extractFigures("The LLC shall pay")).toEqual([]);
  });

  it("takes the whole party name over a reference it starts with", () => {
    expect(extractFigures("leased to Exhibit A Holdings, LLC")).toEqual(["Exhibit A Holdings, LLC"]);
  });

  it("finds figures that follow each other without a gap (a flattened table row)", () => {
    expect(extractFigures("escalators 2.5%3.0%3.5%")).toEqual(["2.5%", "3.0%", "3.5%"]);
  });

  it("keeps a leading word that is not a stop word as part of the party name", () => {
    expect(extractFigures("Northwind Acme Holdings, LLC")).toEqual(["Northwind Acme Holdings, LLC"]);
  });

  it("ignores plain integers, page numbers and bare years", () => {
    expect(extractFigures("Page 12 of 40. There are 3 parties and 14 days in 2020.")).toEqual([]);
  });

  it("returns unique figures in order of first occurrence, verbatim", () => {
    const text = "Pay $500 by July 1, 2021, then 2.5% more, then $500 again under §4.2; 2.5% is fixed.";
    expect(extractFigures(text)).toEqual(["$500", "July 1, 2021", "2.5%", "§4.2"]);
  });

  it("takes a number whole or not at all: no figure is a prefix of a longer number", () => {
    expect(extractFigures("a unit price of $1.333333333 per share")).toEqual(["$1.333333333"]);
    expect(extractFigures("$1,250,000 and $1,250 differ")).toEqual(["$1,250,000", "$1,250"]);
    // More decimals than a figure carries: nothing, rather than a figure cut short.
    expect(extractFigures("a share of 33.3333333333333% each")).toEqual([]);
  });

  it("prefers the longest figure where matches overlap", () => {
    expect(extractFigures("a fee of USD 1,000,000 USD")).toEqual(["USD 1,000,000"]);
  });

  it("finds every kind in a dense contract paragraph", () => {
    const text =
      'This Ground Lease is made the 1st day of March, 2019 between Acme Holdings, LLC ("Landlord") and ' +
      "Northwind Partners L.P. (“Tenant”). Base rent is $1,250,000/yr with a 2.5% escalator from year 6 " +
      "(Exhibit B); assignment requires consent under Article 8, save §8.3.";
    expect(extractFigures(text)).toEqual([
      "1st day of March, 2019",
      "Acme Holdings, LLC",
      '"Landlord"',
      "Northwind Partners L.P.",
      "“Tenant”",
      "$1,250,000",
      "2.5%",
      "Exhibit B",
      "Article 8",
      "§8.3",
    ]);
  });

  it("returns nothing for empty text", () => {
    expect(extractFigures("")).toEqual([]);
  });

  // A correctness test of "no catastrophic backtracking": each input would take minutes
  // with a quadratic pattern; the bound is generous and this is not a benchmark.
  it.each([
    ["digits", "1".repeat(200_000)],
    ["grouped digits", "1,000".repeat(40_000)],
    ["dollar digits", `$${"9".repeat(199_999)}`],
    ["capital words", "Aa ".repeat(66_667)],
    ["quote words", '"A '.repeat(66_667)],
    ["section keywords", "Section ".repeat(25_000)],
    ["section numbers", `§${"1.".repeat(99_999)}`],
    ["months", "July 1 ".repeat(28_572)],
    ["spaces", `"A${" ".repeat(200_000)}`],
  ])("finishes on a 200k-char adversarial input (%s)", (_label, text) => {
    const started = performance.now();
    extractFigures(text);
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe("checkFigureProvenance", () => {
  const thread: Message[] = [
    { role: "user", content: "Summarize the lease." },
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id: "c1", name: "read_document", args: { file_id: "cd_9f2", note: "cap $2,000,000" } }],
    },
    {
      role: "tool",
      toolCallId: "c1",
      toolName: "read_document",
      content: [{ type: "text", text: "Base rent is $1,250,000 per\n   year; the 2.5%\tescalator." }],
    },
    { role: "assistant", content: "The rent is $1,250,000." },
  ];

  it("finds figures in tool results, assistant text and tool-call args", () => {
    expect(checkFigureProvenance(["$1,250,000", "2.5%", "$2,000,000"], thread)).toEqual({
      ok: true,
      missing: [],
    });
  });

  it("normalizes whitespace on both sides", () => {
    expect(checkFigureProvenance(["$1,250,000 per year", "2.5%  escalator"], thread).ok).toBe(true);
  });

  it("reports figures that occur nowhere, in input order", () => {
    expect(checkFigureProvenance(["$9,999", "2.5%", "§4.1"], thread)).toEqual({
      ok: false,
      missing: ["$9,999", "§4.1"],
    });
  });

  it("checks the assembled view instead of the raw thread when given", () => {
    const view: Message[] = [
      thread[0] as Message,
      { role: "tool", toolCallId: "c1", toolName: "read_document", content: "[Condensed] figures: 2.5%" },
    ];
    expect(checkFigureProvenance(["$1,250,000", "2.5%"], thread, { view })).toEqual({
      ok: false,
      missing: ["$1,250,000"],
    });
  });

  it("reads tool-call args of every JSON type, nested at any depth, as text", () => {
    const withArgs: Message[] = [
      {
        role: "assistant",
        content: "",
        toolCalls: [
          {
            id: "c2",
            name: "write_tracker",
            args: {
              amount: 1250000,
              final: true,
              terms: { rate: "2.5%", sections: ["§4.1", { see: "§4.2" }], years: [6] },
              none: null,
              skipped: undefined,
            },
          },
        ],
      },
    ];
    expect(checkFigureProvenance(["1250000", "true", "2.5%", "§4.1", "§4.2", "6"], withArgs)).toEqual({
      ok: true,
      missing: [],
    });
    expect(checkFigureProvenance(["1250001", "false", "null", "undefined"], withArgs).missing).toEqual([
      "1250001",
      "false",
      "null",
      "undefined",
    ]);
  });

  it("never finds a figure assembled from the end of one message and the start of the next", () => {
    const split: Message[] = [
      { role: "user", content: "The rent is $1,250" },
      { role: "assistant", content: ",000 per year, I think." },
    ];
    expect(checkFigureProvenance(["$1,250,000"], split)).toEqual({ ok: false, missing: ["$1,250,000"] });
  });

  it("treats an empty figure as missing", () => {
    expect(checkFigureProvenance(["  "], thread).missing).toEqual(["  "]);
  });

  it("normalizeWhitespace collapses runs and trims", () => {
    expect(normalizeWhitespace("  a \n\t b  ")).toBe("a b");
  });
});
