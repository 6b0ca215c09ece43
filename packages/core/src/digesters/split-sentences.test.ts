import { describe, expect, it } from "vitest";
import { endsSentence, splitSentences, trimAtClause } from "./split-sentences";

describe("splitSentences", () => {
  it("splits at sentence ends before a capital, a quote, a bracket, § or a digit", () => {
    expect(
      splitSentences(
        "Rent is due monthly. “Base Rent” means $1,250,000. (See Exhibit B.) §8.3 governs. 30 days apply.",
      ),
    ).toEqual([
      "Rent is due monthly.",
      "“Base Rent” means $1,250,000.",
      "(See Exhibit B.)",
      "§8.3 governs.",
      "30 days apply.",
    ]);
  });

  it("does not split after abbreviations, initials or dotted names", () => {
    const text =
      "Harborview Holdings, Inc. and Citibank, N.A. act under the laws of the U.S. and J. P. Smith signs, e.g. Section 4.1 applies. The end.";
    expect(splitSentences(text)).toEqual([
      "Harborview Holdings, Inc. and Citibank, N.A. act under the laws of the U.S. and J. P. Smith signs, e.g. Section 4.1 applies.",
      "The end.",
    ]);
  });

  it("splits after a lettered reference that closes a sentence", () => {
    expect(splitSentences("The rent is set out in Exhibit B. The Tenant pays it.")).toEqual([
      "The rent is set out in Exhibit B.",
      "The Tenant pays it.",
    ]);
  });

  it("splits an inline enumeration into its clauses, dropping the joining and/or", () => {
    expect(
      splitSentences(
        "Borrower shall deliver the following: (a) the Notes; (b) the Fee Letter; and (c) the Guaranty.",
      ),
    ).toEqual([
      "Borrower shall deliver the following:",
      "(a) the Notes;",
      "(b) the Fee Letter;",
      "(c) the Guaranty.",
    ]);
  });

  it("splits a closing quote after the stop", () => {
    expect(splitSentences("the term “Lease Year.” The first Lease Year begins.")).toEqual([
      "the term “Lease Year.”",
      "The first Lease Year begins.",
    ]);
  });
});

describe("endsSentence", () => {
  it("accepts closing punctuation with a closing quote or bracket after it", () => {
    expect(["Done.", "follows:", "clause;", "“Term.”", "(see below.)"].every(endsSentence)).toBe(true);
    expect(["the Base", "$1,250,000", "payable,"].some(endsSentence)).toBe(false);
  });
});

describe("trimAtClause", () => {
  const long =
    "The Borrower shall repay the Term Loans in consecutive quarterly installments of $2,500,000.00 each; " +
    "provided that the final installment shall be in an amount equal to the aggregate principal amount of all " +
    "Term Loans outstanding on the Maturity Date, together with all accrued and unpaid interest thereon.";

  it("returns a sentence within the limit as it is", () => {
    expect(trimAtClause("Rent is due monthly.", 280)).toBe("Rent is due monthly.");
  });

  it("cuts a long sentence at its last clause boundary within the limit, preferring a semicolon", () => {
    expect(trimAtClause(long, 200)).toBe(
      "The Borrower shall repay the Term Loans in consecutive quarterly installments of $2,500,000.00 each; …",
    );
  });

  it("never cuts inside a date, a party name or brackets", () => {
    const dated =
      "The Tenant shall deliver the notice to Harborview Holdings, LLC (the “Landlord”, which expression includes its successors, assigns and mortgagees) no later than May 14, 2027, and the Landlord shall respond within thirty days after receipt thereof.";
    const trimmed = trimAtClause(dated, 200) as string;
    expect(trimmed).toBe(
      "The Tenant shall deliver the notice to Harborview Holdings, LLC (the “Landlord”, which expression includes its successors, assigns and mortgagees) no later than May 14, 2027, …",
    );
  });

  it("gives up rather than cut mid-clause when no boundary leaves enough text", () => {
    const run = `The ${"very ".repeat(80)}long clause ends here.`;
    expect(trimAtClause(run, 200)).toBeUndefined();
  });
});
