import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { adversarialFigureInputs } from "#test/assembler/fixtures/adversarial-figures";
import { condenseAtArrival, headingsOf } from "./budget-condense";
import { extractFigures, normalizeWhitespace } from "./contract/figures";

const OPTIONS = {
  reason: "the conversation's tool budget is spent",
  wholeChars: 2_000,
  capChars: 4_000,
  capMaxChars: 8_000,
};

describe("headingsOf", () => {
  it.each([
    ["ARTICLE 6", "ARTICLE 6"],
    ["ARTICLE VI — NEGATIVE COVENANTS", "ARTICLE VI — NEGATIVE COVENANTS"],
    ["Article 8: Assignment and Subletting", "Article 8: Assignment and Subletting"],
    ["Section 6.1 Indebtedness. The Borrower shall not incur any Debt.", "Section 6.1 Indebtedness"],
    [
      "6.2 Outside Completion Date. The Tenant’s Proportionate Share of Operating",
      "6.2 Outside Completion Date",
    ],
    ["12. Governing Law", "12. Governing Law"],
    ["§ 4.2 Rent", "§ 4.2 Rent"],
    ["EXHIBIT B", "EXHIBIT B"],
    ["Exhibit B - Form of Note", "Exhibit B - Form of Note"],
    ["## Payment Terms", "Payment Terms"],
    ["   NEGATIVE   COVENANTS  ", "NEGATIVE COVENANTS"],
    ["REPRESENTATIONS AND WARRANTIES", "REPRESENTATIONS AND WARRANTIES"],
  ])("takes %j for a heading", (line, heading) => {
    expect(headingsOf(`some prose first\n${line}\nand prose after.`)).toEqual([heading]);
  });

  it.each([
    "Annex A.",
    "Section 6.2 shall be governed by the laws of the State of New York,",
    "Section 6.2. The Tenant shall keep the Premises in good order",
    "2.4. For the avoidance of doubt, the limitations set forth",
    "30 Business Days after notice.",
    "- 17 -",
    "--------------------------------------------------------------------------------",
    "Ground Lease",
    "The Tenant shall pay the Base Rent.",
    "$1,250,000 USD",
    "A",
    `${"NOTICE ".repeat(20)}`,
  ])("does not take %j for a heading", (line) => {
    expect(headingsOf(line)).toEqual([]);
  });

  it("finds a run-in heading at the start of a long unwrapped paragraph", () => {
    const paragraph = `6.2 Outside Completion Date. ${"The Tenant shall complete the Improvements. ".repeat(200)}`;
    expect(headingsOf(paragraph)).toEqual(["6.2 Outside Completion Date"]);
  });

  it("lists headings once each, in order", () => {
    expect(headingsOf("ARTICLE 2\ntext\nARTICLE 1\nARTICLE 2\nNEGATIVE COVENANTS")).toEqual([
      "ARTICLE 2",
      "ARTICLE 1",
      "NEGATIVE COVENANTS",
    ]);
  });
});

describe("condenseAtArrival", () => {
  it("shows as many headings as fit beside the figures and counts the rest", () => {
    const headings = Array.from({ length: 400 }, (_, index) => `## Fees and Charges ${index + 1}`);
    const condensed = condenseAtArrival(
      `${headings.join("\nsome text\n")}\nA fee of $5,000 is due.`,
      OPTIONS,
    );
    const line = condensed.text.split("\n")[1] as string;
    expect(condensed.headings).toEqual({ found: 400, shown: expect.any(Number) });
    expect(condensed.headings.shown).toBeGreaterThan(0);
    expect(condensed.headings.shown).toBeLessThan(400);
    expect(
      line.startsWith(
        `headings: ${headings
          .slice(0, 3)
          .map((heading) => heading.slice(3))
          .join("; ")}`,
      ),
    ).toBe(true);
    expect(line.endsWith(` [+${400 - condensed.headings.shown} more]`)).toBe(true);
    expect(condensed.text).toContain("\nfigures verbatim: $5,000\n");
    expect(condensed.text.length).toBeLessThanOrEqual(OPTIONS.capChars);
  });

  it("says (none) when the result holds no figure", () => {
    const condensed = condenseAtArrival("ARTICLE ONE\nplain words only", OPTIONS);
    expect(condensed.text).toContain("\nfigures verbatim: (none)\n");
    expect(condensed.figures).toEqual({ found: 0, shown: 0, omitted: 0 });
  });

  // Linearity is measured by `npm run bench:figures` (the same inputs), not timed here.
  it.each(adversarialFigureInputs(200_000))(
    "condenses a 200k-char adversarial input, bounded (%s)",
    (_label, run) => {
      const condensed = condenseAtArrival(`${run}\nand a fee of $1,250,000 due`, OPTIONS);
      expect(condensed.text.length).toBeLessThanOrEqual(OPTIONS.capMaxChars);
      expect(condensed.figures.found).toBeGreaterThan(0);
    },
  );

  it("property: bounded, and every figure it lists occurs in the result", () => {
    const piece = fc.oneof(
      fc.constantFrom(
        "$1,250,000",
        "4.50 to 1.00",
        "March 31, 2026",
        "Section 6.1",
        '"Permitted Lien"',
        "ARTICLE VI",
        "NEGATIVE COVENANTS",
        "6.2 Outside Completion Date.",
        "## Fees",
        "\n",
        " ",
        "the Borrower shall",
      ),
      fc.integer({ min: 0, max: 100_000 }).map((value) => `$${value}`),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 400 }),
        fc.integer({ min: 450, max: 3_000 }),
        (pieces, cap) => {
          const content = pieces.join("");
          const condensed = condenseAtArrival(content, { ...OPTIONS, capChars: cap, capMaxChars: cap * 2 });
          expect(condensed.text.length).toBeLessThanOrEqual(cap * 2);
          const figures = extractFigures(normalizeWhitespace(content));
          expect(condensed.figures.found).toBe(figures.length);
          for (const figure of figures.slice(0, condensed.figures.shown)) {
            expect(condensed.text).toContain(figure);
          }
        },
      ),
    );
  });
});
