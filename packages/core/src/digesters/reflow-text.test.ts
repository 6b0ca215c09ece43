import { describe, expect, it } from "vitest";
import { isTitleCase, splitRunInTitle } from "./reflow-lines";
import { type ReflowedBlock, reflowText } from "./reflow-text";

const RULE = "-".repeat(80);

function paragraphs(blocks: readonly ReflowedBlock[]): string[] {
  return blocks.flatMap((block) => (block.kind === "paragraph" ? [block.text] : []));
}

describe("reflowText", () => {
  it("joins hard-wrapped lines into one paragraph", () => {
    const page = [
      "Tenant shall pay to Landlord, without demand, deduction or offset, the Base",
      "Rent set forth in Exhibit B, in equal monthly installments in advance on the",
      "first day of each calendar month during the Term.",
    ].join("\n");
    expect(reflowText(page)).toEqual([
      {
        kind: "paragraph",
        text: "Tenant shall pay to Landlord, without demand, deduction or offset, the Base Rent set forth in Exhibit B, in equal monthly installments in advance on the first day of each calendar month during the Term.",
      },
    ]);
  });

  it("joins a sentence across a page break and drops the footer, number and rule", () => {
    const page = [
      "The Borrower shall repay the Term Loans in consecutive quarterly",
      "",
      "- 12 -",
      "Senior Secured Credit Agreement",
      "",
      RULE,
      "",
      "Borrower installments of $2,500,000.00 each, commencing on June 30, 2027.",
      "",
      "- 13 -",
      "Senior Secured Credit Agreement",
      "",
      RULE,
      "",
      "Each Lender shall fund its Pro Rata Share.",
    ].join("\n");
    expect(paragraphs(reflowText(page))).toEqual([
      "The Borrower shall repay the Term Loans in consecutive quarterly Borrower installments of $2,500,000.00 each, commencing on June 30, 2027.",
      "Each Lender shall fund its Pro Rata Share.",
    ]);
  });

  it("ends a paragraph at a blank line unless the sentence plainly runs on in lowercase", () => {
    const page = "The Term begins on the Commencement Date.\n\nRent is due monthly and\n\nin advance.";
    expect(paragraphs(reflowText(page))).toEqual([
      "The Term begins on the Commencement Date.",
      "Rent is due monthly and in advance.",
    ]);
  });

  it("starts a new paragraph at an enumerator after a closed clause, not after an open one", () => {
    const page = [
      "The conditions precedent are the following:",
      "(a)   the Agent shall have received this Agreement;",
      "(b) the Borrower shall have paid the fees described in",
      "(c) of the Fee Letter.",
    ].join("\n");
    expect(paragraphs(reflowText(page))).toEqual([
      "The conditions precedent are the following:",
      "(a) the Agent shall have received this Agreement;",
      "(b) the Borrower shall have paid the fees described in (c) of the Fee Letter.",
    ]);
  });

  it("gives an enumerator glued to its clause its space back", () => {
    expect(
      paragraphs(reflowText("The terms are these.\n(b)For the purposes of this Lease, rent is due.")),
    ).toEqual(["The terms are these.", "(b) For the purposes of this Lease, rent is due."]);
  });

  it("takes an ARTICLE line with the title on the next line as one heading", () => {
    const blocks = reflowText(
      "ARTICLE 8\n\nASSIGNMENT AND SUBLETTING\n\nTenant shall not assign this Lease.",
    );
    expect(blocks[0]).toEqual({ kind: "heading", level: 1, text: "ARTICLE 8 ASSIGNMENT AND SUBLETTING" });
    expect(reflowText("ARTICLE IV. REPRESENTATIONS\nThe Seller represents as follows.")[0]).toEqual({
      kind: "heading",
      level: 1,
      text: "ARTICLE IV. REPRESENTATIONS",
    });
  });

  it("does not take a wrapped cross-reference at the start of a line for a heading", () => {
    const page = "Except as provided in\nSection 8.3 Affiliate Transfers, no assignment is permitted.";
    expect(reflowText(page)).toEqual([
      {
        kind: "paragraph",
        text: "Except as provided in Section 8.3 Affiliate Transfers, no assignment is permitted.",
      },
    ]);
  });

  it("splits run-in section titles off their paragraphs as level-2 headings", () => {
    const page = [
      "The Tenant accepts the Premises.",
      "8.3 Affiliate Transfers. Tenant may assign this Lease to an Affiliate without",
      "consent.",
      "Section 8.4 Qualified Transferee. Landlord shall consent to a Qualified Transferee.",
    ].join("\n");
    expect(reflowText(page)).toEqual([
      { kind: "paragraph", text: "The Tenant accepts the Premises." },
      { kind: "heading", level: 2, text: "8.3 Affiliate Transfers" },
      { kind: "paragraph", text: "Tenant may assign this Lease to an Affiliate without consent." },
      { kind: "heading", level: 2, text: "Section 8.4 Qualified Transferee" },
      { kind: "paragraph", text: "Landlord shall consent to a Qualified Transferee." },
    ]);
  });

  it("keeps table rows whole with their column headers: cells split at runs of spaces and dot leaders, label first", () => {
    const page = [
      "Lender                         Commitment          Pro Rata Share",
      "",
      "Harborview Bank, N.A.          $87,500,000.00      33.333333333%",
      "Meridian Capital LLC ......... $52,500,000.00 .... 20.000000000%",
      "",
      "The Commitments are several.",
      "Lease Year 1 ..................... $1,250,000.00 ............ $104,166.67",
    ].join("\n");
    const header = ["Lender", "Commitment", "Pro Rata Share"];
    expect(reflowText(page)).toEqual([
      { kind: "table-row", header, cells: ["Harborview Bank, N.A.", "$87,500,000.00", "33.333333333%"] },
      { kind: "table-row", header, cells: ["Meridian Capital LLC", "$52,500,000.00", "20.000000000%"] },
      { kind: "paragraph", text: "The Commitments are several." },
      { kind: "table-row", cells: ["Lease Year 1", "$1,250,000.00", "$104,166.67"] },
    ]);
  });

  it("reads a section number set off by a former tab stop as a run-in title, not a table row", () => {
    const page = [
      "7.4    Admissions and Withdrawals. No Person shall be admitted to the",
      "Company as a Member except in accordance with Section 7.5.",
    ].join("\n");
    expect(reflowText(page)).toEqual([
      { kind: "heading", level: 2, text: "7.4 Admissions and Withdrawals" },
      {
        kind: "paragraph",
        text: "No Person shall be admitted to the Company as a Member except in accordance with Section 7.5.",
      },
    ]);
  });

  it("pairs each label with its figure when a two-column list was re-wrapped so rows spill across lines", () => {
    const page = [
      "Payment Date          Reserve Amount",
      "",
      "Closing Date   $12,500,000.00  May 2027    11,940,210.55  June 2027",
      "11,372,118.40  July 2027   10,795,664.01  August",
      "2027    10,210,003.12",
    ].join("\n");
    const header = ["Payment Date", "Reserve Amount"];
    expect(reflowText(page)).toEqual([
      { kind: "table-row", header, cells: ["Closing Date", "$12,500,000.00"] },
      { kind: "table-row", header, cells: ["May 2027", "11,940,210.55"] },
      { kind: "table-row", header, cells: ["June 2027", "11,372,118.40"] },
      { kind: "table-row", header, cells: ["July 2027", "10,795,664.01"] },
      { kind: "table-row", header, cells: ["August 2027", "10,210,003.12"] },
    ]);
  });

  it("drops the wrapped tail of a header before a spilled list's first label", () => {
    const page = [
      "Payment Date  Reserve",
      "Amount  Closing Date   $12,500,000.00  May 2027    11,940,210.55  June 2027",
      "11,372,118.40  July 2027   10,795,664.01",
    ].join("\n");
    expect(reflowText(page).filter((block) => block.kind === "table-row")).toEqual([
      { kind: "table-row", cells: ["Closing Date", "$12,500,000.00"] },
      { kind: "table-row", cells: ["May 2027", "11,940,210.55"] },
      { kind: "table-row", cells: ["June 2027", "11,372,118.40"] },
      { kind: "table-row", cells: ["July 2027", "10,795,664.01"] },
    ]);
  });

  it("leaves rows of a label and several figures as they are", () => {
    const page = [
      "Lease Year 1 ..................... $1,250,000.00 ............ $104,166.67",
      "Lease Year 2 ..................... $1,281,250.00 ............ $106,770.83",
    ].join("\n");
    expect(reflowText(page)).toEqual([
      { kind: "table-row", cells: ["Lease Year 1", "$1,250,000.00", "$104,166.67"] },
      { kind: "table-row", cells: ["Lease Year 2", "$1,281,250.00", "$106,770.83"] },
    ]);
  });

  it("takes no prose line for a header: a header's cells are as many as the row's, none a figure", () => {
    const page = [
      "The schedule below lists   the Commitments of each Lender as of the Closing Date.",
      "Harborview Bank, N.A.          $87,500,000.00      33.333333333%",
    ].join("\n");
    expect(reflowText(page)[1]).toEqual({
      kind: "table-row",
      cells: ["Harborview Bank, N.A.", "$87,500,000.00", "33.333333333%"],
    });
  });

  it("splits a table whose cells a converter glued together into its rows, the glued header over them", () => {
    const page = [
      "The Borrower shall not permit Cash Burn to exceed the amount set forth",
      "immediately below for the corresponding measuring period:",
      "",
      "Test PeriodMaximum Net LossThree months ending March 31,",
      "2027($4,250,000)Six months ending June 30, 2027($7,100,000)Nine months",
      "ending September 30, 2027($9,800,000)",
      "",
    ].join("\n");
    const header = ["Test Period", "Maximum Net Loss"];
    expect(reflowText(page)).toEqual([
      {
        kind: "paragraph",
        text: "The Borrower shall not permit Cash Burn to exceed the amount set forth immediately below for the corresponding measuring period:",
      },
      { kind: "table-row", header, cells: ["Three months ending March 31, 2027", "($4,250,000)"] },
      { kind: "table-row", header, cells: ["Six months ending June 30, 2027", "($7,100,000)"] },
      { kind: "table-row", header, cells: ["Nine months ending September 30, 2027", "($9,800,000)"] },
    ]);
  });

  it("joins one-cell-per-line figures to the short label lines above them", () => {
    const page = ["Field Schedule:", "", "Barataria", "Mississippi Canyon 521", "22.500%", "15.739%"].join(
      "\n",
    );
    expect(reflowText(page)).toEqual([
      { kind: "paragraph", text: "Field Schedule:" },
      { kind: "table-row", cells: ["Barataria", "Mississippi Canyon 521", "22.500%", "15.739%"] },
    ]);
  });

  it("drops image placeholders glued to text and invisible marks", () => {
    const blocks = reflowText(
      "image_01a.jpg [image_01a.jpg]EXHIBIT D\n\u200eThe Seller\u200e delivers the Oil.",
    );
    expect(blocks).toEqual([
      { kind: "heading", level: 1, text: "EXHIBIT D" },
      { kind: "paragraph", text: "The Seller delivers the Oil." },
    ]);
  });
});

describe("splitRunInTitle", () => {
  it.each([
    ["4.8 Compliance with Laws; Permits. The Company has complied.", "4.8 Compliance with Laws; Permits"],
    ["1. POSITION AND DUTIES. (a) The Executive serves.", "1. POSITION AND DUTIES"],
    ["(b) VACATION TIME. The Executive is entitled to leave.", "(b) VACATION TIME"],
    ["g.Conditions Precedent. Bank’s obligation is conditional.", "g. Conditions Precedent"],
  ])("finds the title of %j", (paragraph, title) => {
    expect(splitRunInTitle(paragraph)?.title).toBe(title);
  });

  it.each([
    ["2.6 shall survive the termination of this Agreement."],
    ["(a) the Borrower shall deliver the Financial Statements."],
  ])("finds no title in %j", (paragraph) => {
    expect(splitRunInTitle(paragraph)).toBeUndefined();
  });
});

describe("isTitleCase", () => {
  it("accepts capitalised words with small words between, and rejects prose", () => {
    expect(isTitleCase("Conditions Precedent to Initial Credit Extension")).toBe(true);
    expect(isTitleCase("Producer’s Dedications")).toBe(true);
    expect(isTitleCase("shall survive the termination")).toBe(false);
  });
});
