import { createToolPolicy, InvalidOptionError } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { describe, expect, it } from "vitest";
import { carriesFurniture, digestBullets, endsMidSentence } from "#test/repo/eval/digest-quality";
import { checkBullets } from "../render/check-bullets";
import { renderDigest } from "../render/render-digest";
import { createExtractiveDigester, EXTRACTIVE_MODEL_ID, extractBullets } from "./extractive-digester";

const lease = [
  "ARTICLE 8",
  "ASSIGNMENT AND SUBLETTING",
  'As used herein, "Qualified Transferee" means an entity with a net worth of at least $50,000,000.',
  "Tenant shall not assign this Lease without Landlord's consent, which shall not be unreasonably withheld.",
  "The weather in the area is generally mild and pleasant for most of the year.",
  "Base rent is $1,250,000 per year, increasing by 2.5% annually from year 6.",
  "The Commencement Date is July 21, 2020, as confirmed in writing.",
  "This Lease is between Acme Holdings, LLC and Northwind Partners L.P. in all respects.",
  "Notices are governed by Section 14.2 and the procedures in Exhibit C hereto.",
].join("\n");

const RULE = "-".repeat(80);
const FOOTER = ["- 12 -", "Northwind Credit Agreement", "Execution Version", "", RULE, ""];

/** A page in the format of a filing converted to text: hard wraps, furniture mid-sentence, flattened tables. */
const filingPage = [
  "ing the Closing Date, the Borrower shall deliver the certificates described in",
  "Section 4.1(c).",
  "",
  "ARTICLE 2",
  "THE CREDITS",
  "",
  "2.1 Commitments. Subject to the terms and conditions set forth herein, each",
  "Lender agrees to make Term Loans to the Borrower on the Closing Date in an",
  "aggregate principal amount not exceeding its Commitment, as set forth opposite",
  "its name on Schedule 2.01 (the “Commitments”). Amounts repaid or prepaid in",
  "respect of Term Loans may not be reborrowed.",
  "2.2 Repayment of Loans. The Borrower shall repay the Term Loans in consecutive",
  "quarterly installments of $2,500,000.00 each, commencing on June 30,",
  "2027, with the balance due on the Maturity Date; provided that the final",
  ...FOOTER,
  "installment shall be in an amount equal to the aggregate principal amount of",
  "all Term Loans then outstanding, together with accrued interest thereon.",
  "(a)       “Applicable Margin” means 3.125% per annum for Term SOFR Loans and",
  "2.125% per annum for Base Rate Loans, subject to adjustment under §2.8.",
  "(b)The Borrower shall pay to the Administrative Agent, for the account of each",
  "Lender, a commitment fee of 0.375% per annum on the daily unused Commitment of",
  "such Lender, payable quarterly in arrears on the last Business Day of each",
  "March, June, September and December, and on the Maturity Date, in each case in",
  "accordance with the procedures set out in Exhibit B and in the Fee Letter",
  "dated as of March 14, 2024 between the Borrower and Harborview Bank, N.A., and",
  "no such fee shall accrue on the Commitment of a Defaulting Lender so long as",
  "it remains a Defaulting Lender.",
  "[image]",
  "",
  "Page 13 of 80",
  RULE,
  "",
  "SCHEDULE 2.01",
  "COMMITMENTS AND APPLICABLE PERCENTAGES",
  "",
  "Lender                         Commitment          Applicable Percentage",
  "Harborview Bank, N.A.          $87,500,000.00      33.333333333%",
  "Meridian Capital Bank, N.A.    $52,500,000.00      20.000000000%",
  "Northwind Trust Company        $122,500,000.00     46.666666667%",
  "",
  "Lease Year 1 ..................... $1,250,000.00 ............ $104,166.67",
  "Lease Year 2 ..................... $1,281,250.00 ............ $106,770.83",
  "",
  "The Borrower’s Consolidated Total Leverage Ratio shall not exceed 4.25:1.00 as",
  "of the last day of any Measurement Period ending on or after",
].join("\n");

const TABLE_ROWS = [
  ["Harborview Bank, N.A.", "$87,500,000.00", "33.333333333%"],
  ["Meridian Capital Bank, N.A.", "$52,500,000.00", "20.000000000%"],
  ["Northwind Trust Company", "$122,500,000.00", "46.666666667%"],
  ["Lease Year 1", "$1,250,000.00", "$104,166.67"],
  ["Lease Year 2", "$1,281,250.00", "$106,770.83"],
];

function renderedBullets(page: string, budget = 2_400): string[] {
  const rendered = renderDigest({
    call: { id: "c1", name: "read_document", args: { file_id: "cd_c01a", offset: 58_000 } },
    rule: createToolPolicy().ruleFor("read_document"),
    source: page,
    bullets: extractBullets(page, budget),
  });
  return digestBullets(rendered.text);
}

describe("extractive digester on a page in filing format", () => {
  const bullets = renderedBullets(filingPage);

  it("selects whole sentences and clauses: none ends or starts mid-sentence, none is cut mid-word", () => {
    expect(bullets.length).toBeGreaterThan(5);
    expect(bullets.filter(endsMidSentence)).toEqual([]);
    // The page opens and closes mid-sentence: neither fragment is a bullet.
    expect(bullets.join("\n")).not.toContain("ing the Closing Date");
    expect(bullets.join("\n")).not.toContain("ending on or after");
  });

  it("joins a sentence across the page break and drops the furniture", () => {
    expect(bullets).toContain(
      "The Borrower shall repay the Term Loans in consecutive quarterly installments of $2,500,000.00 each, commencing on June 30, 2027, with the balance due on the Maturity Date; …",
    );
    expect(bullets.filter(carriesFurniture)).toEqual([]);
    for (const furniture of ["Execution Version", "Page 13", "[image]", "- 12 -"]) {
      expect(bullets.join("\n")).not.toContain(furniture);
    }
  });

  it("keeps every figure of a table row beside its label", () => {
    const rowBullets = bullets.filter((bullet) => bullet.includes(" | "));
    expect(rowBullets.length).toBeGreaterThan(0);
    for (const row of TABLE_ROWS) {
      const figures = row.slice(1);
      const holders = bullets.filter((bullet) => figures.some((figure) => bullet.includes(figure)));
      for (const holder of holders) {
        if (!holder.includes(" | ")) continue;
        expect(holder.startsWith(`${row[0]} | `)).toBe(true);
        for (const figure of figures) expect(holder).toContain(figure);
      }
    }
    expect(rowBullets).toContain(
      "Harborview Bank, N.A. | Commitment: $87,500,000.00 | Applicable Percentage: 33.333333333%",
    );
  });

  it("keeps a grid a grid: every row of a table, in order and one after another, none merged with another", () => {
    const rows = bullets.filter((bullet) => bullet.includes(" | "));
    const lenders = rows.filter((bullet) => bullet.includes("Commitment: "));
    expect(lenders.map((bullet) => bullet.split(" | ")[0])).toEqual([
      "Harborview Bank, N.A.",
      "Meridian Capital Bank, N.A.",
      "Northwind Trust Company",
    ]);
    const at = bullets.indexOf(lenders[0] as string);
    expect(bullets.slice(at, at + 3)).toEqual(lenders);
  });

  it("outlines the headings: the article with its title line, the run-in sections, the schedule", () => {
    expect(bullets.slice(0, 2)).toEqual([
      "ARTICLE 2 THE CREDITS: 2.1 Commitments; 2.2 Repayment of Loans",
      "SCHEDULE 2.01 COMMITMENTS AND APPLICABLE PERCENTAGES",
    ]);
  });

  it("lists long decimals and wrapped dates on the figures line", () => {
    const rendered = renderDigest({
      call: { id: "c1", name: "read_document", args: { file_id: "cd_c01a", offset: 58_000 } },
      rule: createToolPolicy().ruleFor("read_document"),
      source: filingPage,
      bullets: extractBullets(filingPage, 2_400),
    });
    const line = rendered.text.split("\n").find((text) => text.startsWith("figures verbatim: ")) ?? "";
    for (const figure of ["33.333333333%", "46.666666667%", "June 30, 2027", "March 14, 2024", "§2.8"]) {
      expect(line).toContain(figure);
    }
    expect(extractFigures(filingPage)).not.toContain("June 30, 2027");
  });
});

describe("extractive digester", () => {
  it("selects headings and sentences that define, oblige, state amounts, dates, parties and references", () => {
    const bullets = extractBullets(lease, 2_400);
    expect(bullets.points).toEqual(["ARTICLE 8 ASSIGNMENT AND SUBLETTING"]);
    expect(bullets.definedTerms?.[0]).toContain('"Qualified Transferee" means');
    expect(bullets.obligations?.[0]).toContain("Tenant shall not assign");
    expect(bullets.amounts?.[0]).toContain("$1,250,000");
    expect(bullets.dates?.[0]).toContain("July 21, 2020");
    expect(bullets.parties?.[0]).toContain("Acme Holdings, LLC");
    expect(bullets.crossReferences?.[0]).toContain("Section 14.2");
    expect(JSON.stringify(bullets)).not.toContain("weather");
  });

  it("stays within the bullet budget, taking kinds round-robin", () => {
    const long = Array.from(
      { length: 200 },
      (_, index) => `Tenant shall perform covenant number ${index} promptly.`,
    ).join(" ");
    const bullets = extractBullets(`${long}\nBase rent is $1,250,000 per year under this lease.`, 600);
    const chars = Object.values(bullets)
      .flat()
      .reduce((total, bullet) => total + (bullet as string).length + 24, 0);
    expect(chars).toBeLessThanOrEqual(600);
    expect(bullets.amounts).toHaveLength(1);
  });

  it("never invents a figure: every bullet passes the figure check against its page", () => {
    const checked = checkBullets(extractBullets(lease, 2_400), lease);
    expect(checked.dropped).toBe(0);
  });

  it("is deterministic and digests every page in request order at zero cost", async () => {
    const digester = createExtractiveDigester();
    const request = {
      toolName: "read_document",
      sourceLabel: "file_id=cd_9f2",
      pages: [
        { toolCallId: "c1", content: lease, provenanceArgs: { file_id: "cd_9f2", offset: 0 }, reread: "r1" },
        { toolCallId: "c2", content: "", provenanceArgs: { file_id: "cd_9f2", offset: 100 }, reread: "r2" },
      ],
    };
    const first = await digester.digest(request);
    expect(first.model).toBe(EXTRACTIVE_MODEL_ID);
    expect(first.costUsd).toBe(0);
    expect(first.pages.map((page) => page.toolCallId)).toEqual(["c1", "c2"]);
    expect(first.pages[1]?.bullets).toEqual({});
    expect(JSON.stringify(await digester.digest(request))).toBe(JSON.stringify(first));
  });

  it("gives a figure no selected sentence carries a line with its section and the words of its sentence", () => {
    // One sentence too long for a bullet and without a clause boundary to trim it at.
    const long =
      "The Buyer will deliver to the Escrow Agent an earnest money deposit in the amount of $500,000 " +
      "and thereafter the Buyer will deliver to the Escrow Agent an additional earnest money deposit in " +
      "the amount of $750,000 within 10 days after the end of the inspection period and the Escrow Agent " +
      "will hold both amounts in a segregated account until the Closing Date.";
    const page = ["ARTICLE 3", "PURCHASE PRICE", "", long].join("\n");
    const bullets = extractBullets(page, 2_400);
    expect(bullets.amounts).toEqual([
      "ARTICLE 3 PURCHASE PRICE: deposit in the amount of $500,000 — …",
      "ARTICLE 3 PURCHASE PRICE: deposit in the amount of $750,000 — …",
      "ARTICLE 3 PURCHASE PRICE: amount of $750,000 within 10 days — …",
    ]);
    const checked = checkBullets(bullets, page);
    expect(checked.dropped).toBe(0);
  });

  it("keeps a table's rows whole even when two rows hold the same figures", () => {
    const page = [
      "Pricing Level       Consolidated Leverage Ratio       Applicable Rate",
      "Level I             less than 1.00:1.00               1.250%",
      "Level II            less than 2.00:1.00               1.250%",
      "Level III           2.00:1.00 or more                 1.750%",
    ].join("\n");
    const rows = extractBullets(page, 2_400).amounts ?? [];
    expect(rows).toEqual([
      "Level I | Consolidated Leverage Ratio: less than 1.00:1.00 | Applicable Rate: 1.250%",
      "Level II | Consolidated Leverage Ratio: less than 2.00:1.00 | Applicable Rate: 1.250%",
      "Level III | Consolidated Leverage Ratio: 2.00:1.00 or more | Applicable Rate: 1.750%",
    ]);
  });

  it("gives defined terms their values where the page states them, each on its own line", () => {
    const page = [
      "ARTICLE 1",
      "DEFINITIONS",
      "",
      "“Term” means 128 months, commencing on the Commencement Date and ending on the last day of the",
      "one hundred twenty-eighth full calendar month thereafter.",
      "",
      "“Rentable Area” means 519,680 rentable square feet.",
      "",
      "“Acquired Assets” shall have the meaning specified in Section 2.1.",
      "",
      "“Business Day” means any day other than a Saturday, Sunday or a day on which banks in New York are closed.",
      "",
      "This Lease is dated as of July 21, 2020 (the “Effective Date”), by and between Acme Holdings, LLC",
      "(“Landlord”) and Northwind Partners L.P. (“Tenant”). Tenant shall pay a one-time fee of $10,000,000",
      "(the “Signing Fee”) on the Effective Date.",
      "",
      "“Premises” means the space on the third floor of the Building shown on",
    ].join("\n");
    const bullets = extractBullets(page, 2_400);
    expect(bullets.definedTerms).toEqual([
      "“Term”: 128 months, …",
      "“Rentable Area”: 519,680 rentable square feet",
      "“Acquired Assets”: the meaning specified in Section 2.1",
      "“Business Day”: any day other than a Saturday, Sunday or a day on which banks in New York are closed",
      "“Effective Date”: July 21, 2020",
      "“Landlord”: Acme Holdings, LLC",
      "“Tenant”: Northwind Partners L.P.",
      "“Signing Fee”: $10,000,000",
      "“Premises”: the space on the third floor of the Building shown on — …",
    ]);
    expect(checkBullets(bullets, page).dropped).toBe(0);
  });

  it("digests a table of contents as an outline of number and title, within a small share of the budget", () => {
    const entries = Array.from({ length: 60 }, (_, index) => {
      const article = Math.floor(index / 6) + 1;
      return [
        `${article}.${(index % 6) + 1}`,
        "",
        `Covenant Heading Number ${index + 1}`,
        "",
        `     ${index + 2}`,
        "",
      ];
    });
    const page = [
      "TABLE OF CONTENTS",
      "",
      "         Page",
      "",
      "ARTICLE 1 ORGANIZATIONAL MATTERS",
      "",
      "     1",
      "",
      ...entries.slice(0, 30).flat(),
      "1.31",
      "",
      "Intentionally Omitted.",
      "",
      ...entries.slice(30).flat(),
      "This Agreement is made by Acme Holdings, LLC, which shall pay $10,000,000 on the Closing Date.",
    ].join("\n");
    const bullets = extractBullets(page, 2_400);
    const outline = bullets.points ?? [];
    expect(outline[0]).toMatch(
      /^TABLE OF CONTENTS: ARTICLE 1 ORGANIZATIONAL MATTERS; 1\.1 Covenant Heading Number 1; 1\.2 /,
    );
    expect(outline.join("\n")).not.toMatch(/Number \d+ \d/);
    const chars = outline.reduce((total, point) => total + point.length + 24, 0);
    expect(chars).toBeLessThanOrEqual(2_400 * 0.2);
    // No entry comes back as a heading or a table row, past a short entry that reads as a sentence too.
    const rest = [...Object.values(bullets).flat()].filter((bullet) => !outline.includes(bullet as string));
    expect(rest.join("\n")).not.toMatch(
      /^Covenant Heading Number \d+$|Covenant Heading Number \d+ \||^\d+\.\d+$/m,
    );
    expect(bullets.amounts?.join("\n")).toContain("$10,000,000");
  });

  it("digests a table of contents wrapped into running text as the same outline, page numbers left out", () => {
    const page = [
      "TABLE OF CONTENTS",
      "",
      "Page",
      "ARTICLE I. DEFINITIONS 1 Section 1.01 Definitions 1 Section 1.02 Other",
      "Definitional Provisions 9 ARTICLE II. CONVEYANCE OF RECEIVABLES 12 Section",
      "2.01 Conveyance of Receivables 12 Section 2.02 Custody of Receivable Files 14",
      "",
      "This Sale Agreement is made by Acme Holdings, LLC, which shall pay $10,000,000 on the Closing Date.",
    ].join("\n");
    expect(extractBullets(page, 2_400).points).toEqual([
      "TABLE OF CONTENTS: ARTICLE I. DEFINITIONS; 1.01 Definitions; 1.02 Other Definitional Provisions; ARTICLE II. CONVEYANCE OF RECEIVABLES; 2.01 Conveyance of Receivables; 2.02 Custody of Receivable Files",
    ]);
  });

  it("rejects a bad budget, naming the option", () => {
    expect(() => createExtractiveDigester({ bulletBudgetChars: 0 })).toThrow(InvalidOptionError);
  });
});
