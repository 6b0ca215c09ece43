import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adversarialFigureInputs } from "#test/assembler/fixtures/adversarial-figures";
import type { Message } from "../types";
import {
  checkFigureProvenance,
  extractFigures,
  figureSpans,
  normalizeWhitespace,
  numberWordRuns,
  wholeFigureFinder,
} from "./figures";

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
    expect(extractFigures("Page 12 of 40. There are 3 parties and 14 exhibits in 2020.")).toEqual([]);
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

  // Each input would take minutes with a pattern that backtracks catastrophically; that the
  // scan stays linear is measured by `npm run bench:figures`, not timed here. Here: the scan
  // ends, takes nothing of a run for a figure (no run completes an amount, a term or a
  // party), and still finds the amount written after it.
  const figuresOfRun: Record<string, string[]> = {
    // A reference takes at most five sub-sections: the first six numbers of the run.
    "section numbers": ["§1.1.1.1.1.1"],
  };
  it.each(adversarialFigureInputs(200_000))(
    "scans a 200k-char adversarial input to its end (%s)",
    (label, run) => {
      expect(run.length).toBeGreaterThanOrEqual(199_999);
      expect(extractFigures(`${run} and a fee of $1,250,000 due`)).toEqual([
        ...(figuresOfRun[label] ?? []),
        "$1,250,000",
      ]);
    },
  );
});

describe("the figure grammar: a figure is the whole expression", () => {
  it.each([
    ["a fee of U.S.$25 Million payable", ["U.S.$25 Million"]],
    ["up to $1.25 Billion in sales", ["$1.25 Billion"]],
    ["a loan of USD 10 MM to the borrower", ["USD 10 MM"]],
    ["a cap of US$ 5 million", ["US$ 5 million"]],
    ["a price of US$300 per unit", ["US$300"]],
    ["a basket of $2.5 MILLION", ["$2.5 MILLION"]],
    ["revenue of $4.2bn last year", ["$4.2bn"]],
    ["a threshold of $750 M in sales", ["$750 M"]],
    ["a threshold of $750M in sales", ["$750M"]],
    ["a bonus of $50k on signing", ["$50k"]],
    ["a fee of $3 thousand", ["$3 thousand"]],
    ["EUR 15 Million drawn", ["EUR 15 Million"]],
    ["€ 7.5 Billion notional", ["€ 7.5 Billion"]],
    ["£2 million deposit", ["£2 million"]],
    ["¥500 Million facility", ["¥500 Million"]],
    ["CHF 1,000,000 at closing", ["CHF 1,000,000"]],
    ["a payment of 25 Million Dollars", ["25 Million Dollars"]],
  ])("keeps currency and scale with the number in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["a margin of 12.5 basis points over SOFR", ["12.5 basis points"]],
    ["a step-up of 25 bps per year", ["25 bps"]],
    ["an increase of 1/8 of 1% per annum", ["1/8 of 1%"]],
    ["an increase of one-eighth of one percent per annum", ["one-eighth of one percent"]],
    ["a rate of 2 1/4% per annum", ["2 1/4%"]],
    ["a rate of ten percent (10%) per annum", ["ten percent (10%)"]],
  ])("finds basis points and fractions of a percent in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["a royalty of 5% to 10% of Net Sales", ["5% to 10%"]],
    ["a margin of 1.50%-2.25% over base", ["1.50%-2.25%"]],
    ["between 5-10% of revenue", ["5-10%"]],
    ["a purchase price of $5 million to $10 million", ["$5 million to $10 million"]],
    ["a basket of $1,000–$5,000 per claim", ["$1,000–$5,000"]],
    ["a spread of 25-50 basis points", ["25-50 basis points"]],
  ])("finds a range as one figure in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    [
      "a one-time fee of Ten Million Dollars ($10,000,000) per compound",
      ["Ten Million Dollars ($10,000,000)"],
    ],
    [
      "a price of Five Hundred Thousand and No/100 Dollars ($500,000.00) in cash",
      ["Five Hundred Thousand and No/100 Dollars ($500,000.00)"],
    ],
    ["a fee of Twenty-Five Million ($25,000,000)", ["Twenty-Five Million ($25,000,000)"]],
  ])("finds an amount in words with its numerals in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["net loss of ($1,250,000) for the year", ["($1,250,000)"]],
    ["net loss of $(1,250) for the year", ["$(1,250)"]],
    ["an adjustment of (USD 400) was booked", ["(USD 400)"]],
  ])("keeps a negative amount's parentheses in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["made this 21st day of July, 2020 by", ["21st day of July, 2020"]],
    ["dated as of July 21, 2020 by", ["July 21, 2020"]],
    ["signed 7/21/2020 by both", ["7/21/2020"]],
    ["dated JULY 21, 2020", ["JULY 21, 2020"]],
    ["for the quarter ended March 2021", ["March 2021"]],
  ])("finds the date forms filings use in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["within thirty (30) days after notice", ["thirty (30) days"]],
    ["within ten (10) Business Days of demand", ["ten (10) Business Days"]],
    ["a Term of 128 months from the Commencement Date", ["128 months"]],
    ["a 90-day cure period", ["90-day"]],
    ["for 5 consecutive years", ["5 consecutive years"]],
    ["the Rentable Area of 519,680 rentable square feet", ["519,680 rentable square feet"]],
    ["a parcel of 12.5 acres", ["12.5 acres"]],
    ["some 4,000 sq. ft. of storage", ["4,000 sq. ft."]],
  ])("keeps durations and areas with their units in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    ["a Total Leverage Ratio of 5.54:1.00 as of the Closing Date", ["5.54:1.00"]],
    ["a Loan to Value Ratio not greater than 0.65 to 1 at any time", ["0.65 to 1"]],
    ["a Debt Service Coverage Ratio of at least 1.25x for each quarter", ["1.25x"]],
    ["a Fixed Charge Coverage Ratio of 3.00 : 1.00 or more", ["3.00 : 1.00"]],
    ["a Consolidated Leverage Ratio of 4.50 to 1.00 stepping down", ["4.50 to 1.00"]],
    ["an Interest Coverage Ratio of 3:1 and a multiple of 2X", ["3:1", "2X"]],
    ["a covenant of 1.50×, tested quarterly", ["1.50×"]],
  ])("finds a covenant ratio whole in %j", (text, expected) => {
    expect(extractFigures(text)).toEqual(expected);
  });

  it.each([
    "the meeting starts at 10:30 a.m. sharp",
    "Step 2: 1 item each, then 5.1: 1. more",
    "reduced from 3 to 1 members",
    "a 2x4 beam and the value 0x1F",
    "a ratio of 5.54:1.05 or 4.50 to 2.00",
    "a ratio of 15.54:1.00000 is not bounded",
  ])(
    "does not take a time, a step, a count or a ratio to other than one for a covenant ratio in %j",
    (text) => {
      expect(extractFigures(text)).toEqual([]);
    },
  );

  it("takes a rate range ending in one percent over a ratio", () => {
    expect(extractFigures("a margin of 0.65 to 1% over base")).toEqual(["0.65 to 1%"]);
  });

  it("does not take a word that merely contains a number word for an amount", () => {
    expect(extractFigures("someone tended the ironwork Dollars")).toEqual([]);
  });

  const scales = ["million", "Million", "MILLION", "billion", "Billion", "thousand", "MM", "bn", "M", "k"];
  const prefixes = ["$", "U.S.$", "US$", "USD ", "EUR ", "€", "£", "¥", "CHF "];
  const amount = fc.record({
    prefix: fc.constantFrom(...prefixes),
    whole: fc.integer({ min: 1, max: 999_999 }),
    decimals: fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined }),
    space: fc.constantFrom("", " "),
    scale: fc.constantFrom(...scales),
  });
  const words = fc.array(
    fc.constantFrom(
      "a",
      "fee",
      "of",
      "payable",
      "up",
      "to",
      "the",
      "Licensee",
      "shall",
      "pay",
      "and",
      ",",
      ".",
    ),
    { maxLength: 6 },
  );
  const render = (value: {
    prefix: string;
    whole: number;
    decimals?: number;
    space: string;
    scale: string;
  }) => {
    const number = `${value.whole.toLocaleString("en-US")}${value.decimals === undefined ? "" : `.${String(value.decimals).padStart(2, "0")}`}`;
    // A one-letter scale after a space is only a scale when it stands alone; multi-letter scales may be spaced.
    const space = value.scale.length === 1 && value.scale !== "M" ? "" : value.space;
    return { bare: `${value.prefix}${number}`, scaled: `${value.prefix}${number}${space}${value.scale}` };
  };

  it("property: a scaled amount never comes out without its scale", () => {
    fc.assert(
      fc.property(words, amount, words, (before, value, after) => {
        const { bare, scaled } = render(value);
        const text = `${before.join(" ")} ${scaled} ${after.join(" ")}`;
        const figures = extractFigures(text);
        expect(figures).toContain(scaled);
        expect(figures).not.toContain(bare);
        expect(wholeFigureFinder(normalizeWhitespace(text))(bare)).toBe(false);
      }),
    );
  });

  it("property: a figure taken from a text is a substring of it, and its spans point at it", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        ...prefixes,
        ...scales,
        " ",
        "%",
        "(",
        ")",
        "-",
        "–",
        " to ",
        " of ",
        "/",
        ",",
        ".",
        "days",
      ),
      fc.constantFrom(
        "Ten",
        "Million",
        "Dollars",
        "percent",
        "basis points",
        "July",
        "21st day of",
        "§",
        "Section",
      ),
      fc.integer({ min: 0, max: 100_000 }).map(String),
      fc.string({ maxLength: 4 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        for (const figure of extractFigures(text)) expect(text).toContain(figure);
        for (const span of figureSpans(text)) {
          expect(text.slice(span.start, span.end)).toBe(span.text);
          for (const [from, to] of span.parts) {
            expect(from).toBeGreaterThanOrEqual(span.start);
            expect(to).toBeLessThanOrEqual(span.end);
          }
        }
      }),
    );
  });
});

describe("wholeFigureFinder", () => {
  it("finds a figure only where it is the whole expression", () => {
    const occurs = wholeFigureFinder(
      "a fee of U.S.$25 Million, then 12.5% and 1/8 of 1% and $1,250,000 (see §8.3)",
    );
    expect(occurs("U.S.$25 Million")).toBe(true);
    expect(occurs("$25")).toBe(false);
    expect(occurs("2.5%")).toBe(false);
    expect(occurs("1%")).toBe(false);
    expect(occurs("$1,250")).toBe(false);
    expect(occurs("§8")).toBe(false);
    expect(occurs("$1,250,000")).toBe(true);
  });

  it("lets the numerals of an amount in words and each end of a unit range stand alone", () => {
    const occurs = wholeFigureFinder("a fee of Ten Million Dollars ($10,000,000) and a royalty of 5% to 10%");
    expect(occurs("$10,000,000")).toBe(true);
    expect(occurs("Ten Million Dollars")).toBe(true);
    expect(occurs("5%")).toBe(true);
    expect(occurs("10%")).toBe(true);
    expect(wholeFigureFinder("between $5–10 million")("$5")).toBe(false);
  });

  it("compares lower-cased when asked", () => {
    expect(wholeFigureFinder("see ARTICLE 8", { caseInsensitive: true })("Article 8")).toBe(true);
    expect(wholeFigureFinder("see ARTICLE 8")("Article 8")).toBe(false);
  });

  it("does not find a ratio cut short in a longer one", () => {
    const occurs = wholeFigureFinder("a Total Leverage Ratio of 5.54:1.00 and coverage of 1.25x");
    expect(occurs("5.54:1.00")).toBe(true);
    expect(occurs("5.54:1")).toBe(false);
    expect(occurs("1.25x")).toBe(true);
    expect(occurs("1.2")).toBe(false);
  });

  it("checks only the digits around a bare numeric token", () => {
    const occurs = wholeFigureFinder("a fee of U.S.$25 Million");
    expect(occurs("25", "token")).toBe(true);
    expect(occurs("2", "token")).toBe(false);
  });
});

describe("numberWordRuns", () => {
  it("lists every run of number words, with or without a unit, as whole words", () => {
    expect(
      numberWordRuns("a cap of Forty-Five Million over thirteen months, and someone tended the ironwork"),
    ).toEqual(["Forty-Five Million", "thirteen"]);
    expect(numberWordRuns("Five Hundred Thousand and No/100 Dollars")).toEqual([
      "Five Hundred Thousand and No/100",
    ]);
    expect(numberWordRuns("no figures here")).toEqual([]);
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

  it("does not take a piece of a larger figure for a sourced figure", () => {
    const filing: Message[] = [
      { role: "user", content: "a fee of U.S.$25 Million payable on 1/8 of 1% terms" },
    ];
    expect(checkFigureProvenance(["$25", "1%"], filing).missing).toEqual(["$25", "1%"]);
    expect(checkFigureProvenance(["U.S.$25 Million", "1/8 of 1%"], filing).ok).toBe(true);
  });

  it("treats an empty figure as missing", () => {
    expect(checkFigureProvenance(["  "], thread).missing).toEqual(["  "]);
  });

  it("normalizeWhitespace collapses runs and trims", () => {
    expect(normalizeWhitespace("  a \n\t b  ")).toBe("a b");
  });
});
