import { describe, expect, it } from "vitest";
import {
  checkBullets,
  comparisonForm,
  inventedFigures,
  pairingUnits,
  pairsUnstated,
  sourceFigureFinder,
} from "./check-bullets";

const source =
  "The base rent is $1,250,000 per year, with an escalator of 12.5% from year 6; see §8.3 and Section 14.";

describe("checkBullets", () => {
  it("drops bullets whose figures occur in the source only as part of a larger figure", () => {
    const checked = checkBullets(
      { points: ["Base rent $1,250/yr", "escalator 2.5%", "see §8", "Section 1 applies"] },
      source,
    );
    expect(checked).toEqual({ bullets: {}, kept: 0, dropped: 4 });
  });

  it("keeps the bullets of every section, each in its own section", () => {
    const bullets = {
      points: ["Tenant may not assign"],
      parties: ["Acme Holdings, LLC is landlord"],
      dates: ["escalator from year 6"],
      amounts: ["rent $1,250,000 per year"],
      obligations: ["Tenant pays the escalator"],
      definedTerms: ["base rent"],
      crossReferences: ["see §8.3 and Section 14"],
    };
    const checked = checkBullets(bullets, `${source} Acme Holdings, LLC is landlord.`);
    expect(checked).toEqual({ bullets, kept: 7, dropped: 0 });
  });

  it("collapses whitespace, and removes empty and repeated bullets without counting them as dropped", () => {
    const checked = checkBullets(
      {
        points: ["  Tenant   may\n not assign  ", "", "   ", "Tenant may not assign"],
        obligations: ["Tenant may not\tassign", "Tenant pays rent"],
      },
      source,
    );
    expect(checked).toEqual({
      bullets: { points: ["Tenant may not assign"], obligations: ["Tenant pays rent"] },
      kept: 2,
      dropped: 0,
    });
  });

  it("ignores items that are not strings and sections that are not lists", () => {
    const bullets = { points: [42, null, "Tenant pays rent"], parties: "Acme" } as unknown as Parameters<
      typeof checkBullets
    >[0];
    expect(checkBullets(bullets, source)).toEqual({
      bullets: { points: ["Tenant pays rent"] },
      kept: 1,
      dropped: 0,
    });
  });

  it("compares case-blind, across hard wraps and quote styles", () => {
    const wrapped = "ARTICLE 8 governs. Closing on July 21,\n\n   2020. The “Lender’s Agent” acts.";
    const checked = checkBullets(
      {
        points: ["Article 8 governs"],
        dates: ["Closing on July 21, 2020"],
        definedTerms: ['"Lender\'s Agent"'],
      },
      wrapped,
    );
    expect(checked.kept).toBe(3);
    expect(checked.dropped).toBe(0);
    const retyped = checkBullets({ definedTerms: ["“Lender’s Agent”"] }, 'The "Lender\'s Agent" acts.');
    expect(retyped.kept).toBe(1);
  });

  it("keeps bullets whose figures occur whole, next to punctuation", () => {
    const checked = checkBullets(
      { points: ["Base rent $1,250,000/yr", "escalator 12.5% from year 6", "see §8.3 and Section 14."] },
      source,
    );
    expect(checked.dropped).toBe(0);
    expect(checked.kept).toBe(3);
  });
});

describe("inventedFigures", () => {
  it("matches whole figures: a digit, a decimal or thousands part, a letter or % continues one", () => {
    const normalized = comparisonForm("Rent $5m; fee 2.5% of 1,000; Section 1A; the 10th day; 2,500 units.");
    expect(inventedFigures("Rent $5", normalized)).toEqual(["$5"]);
    expect(inventedFigures("Section 1 applies", normalized)).toEqual(["Section 1"]);
    expect(inventedFigures("fee 5%", normalized)).toEqual(["5%"]);
    expect(inventedFigures("fee 2.5% of 1,000", normalized)).toEqual([]);
    expect(inventedFigures("the 10th day", normalized)).toEqual([]);
    expect(inventedFigures("2,500 units", normalized)).toEqual([]);
    expect(inventedFigures("500 units", normalized)).toEqual(["500"]);
  });

  it("names each invented figure once", () => {
    // `7 days` is a duration figure and `7` its numeric token: each named once though `7` occurs twice.
    expect(inventedFigures("7 days, then 7 more", comparisonForm("within 10 days"))).toEqual(["7 days", "7"]);
  });

  it("checks single-digit numbers too", () => {
    const normalized = comparisonForm("Notice is due within 10 days.");
    expect(inventedFigures("within 7 more", normalized)).toEqual(["7"]);
    expect(inventedFigures("within 7 days", normalized)).toEqual(["7 days", "7"]);
    expect(inventedFigures("within 10 days", normalized)).toEqual([]);
  });

  it("treats a figure starting or ending with a letter as part of an adjacent word or number", () => {
    expect(inventedFigures("Section 1 applies", comparisonForm("see subsection 1 hereof"))).toEqual([
      "Section 1",
    ]);
    expect(inventedFigures("see Exhibit B", comparisonForm("see Exhibit B2 attached"))).toEqual([
      "Exhibit B",
    ]);
    expect(inventedFigures("see Exhibit B", comparisonForm("see Exhibit BC attached"))).toEqual([
      "Exhibit B",
    ]);
    expect(inventedFigures("see Exhibit B", comparisonForm("see Exhibit B, attached"))).toEqual([]);
  });

  it("continues a number only through a . or , between digits, not through a space", () => {
    expect(inventedFigures("a 5% rebate", comparisonForm("Tier 2 5% rebate"))).toEqual([]);
    expect(inventedFigures("a 5% rebate", comparisonForm("Tier 2.5% rebate"))).toEqual(["5%", "5"]);
    expect(inventedFigures("a 5% rebate", comparisonForm("Tier 2.5% rebate"))).toEqual(["5%", "5"]);
  });

  it("treats a figure ending in a digit as part of a following % sign", () => {
    expect(inventedFigures("Rent $2.5", comparisonForm("Rent $2.5% of sales"))).toEqual(["$2.5"]);
  });

  it("finds a figure at the very end of the source", () => {
    expect(inventedFigures("rent is $5", comparisonForm("the rent is $5"))).toEqual([]);
    expect(inventedFigures("see Exhibit B", comparisonForm("see Exhibit B"))).toEqual([]);
  });

  it("takes a figure ending in % followed by a digit as whole (a flattened table row)", () => {
    expect(inventedFigures("escalator 2.5%", comparisonForm("escalators 2.5%3.0%"))).toEqual([]);
  });
});

describe("inventedFigures with the shared figure grammar", () => {
  it("takes a piece of a larger figure in the source for an invented figure", () => {
    const occurs = sourceFigureFinder(
      "The Licensee shall pay a fee of U.S.$25 Million, and 1/8 of 1% thereafter.",
    );
    expect(inventedFigures("a fee of $25", occurs)).toEqual(["$25"]);
    expect(inventedFigures("rate of 1%", occurs)).toEqual(["1%"]);
    expect(inventedFigures("a fee of U.S.$25 Million", occurs)).toEqual([]);
    expect(inventedFigures("a fee of U.S.$25 million", occurs)).toEqual([]);
  });

  it("accepts the numerals of an amount stated in words", () => {
    const occurs = sourceFigureFinder("a one-time fee of Ten Million Dollars ($10,000,000) per compound");
    expect(inventedFigures("fee $10,000,000 per compound", occurs)).toEqual([]);
    expect(inventedFigures("fee $10,000 per compound", occurs)).toEqual(["$10,000", "10,000"]);
  });

  it("checkBullets drops a bullet that cuts the scale off an amount", () => {
    const source = "Milestones: the Licensee shall pay U.S.$25 Million on approval.";
    const checked = checkBullets(
      { amounts: ["Milestone $25 on approval", "Milestone U.S.$25 Million"] },
      source,
    );
    expect(checked.bullets.amounts).toEqual(["Milestone U.S.$25 Million"]);
    expect(checked.dropped).toBe(1);
  });
});

describe("the pairing check", () => {
  const royalty = [
    "Royalties. The Licensee shall pay a royalty of 5% on Net Sales up to U.S.$750 Million.",
    "On Net Sales above that amount and up to $1.25 Billion the royalty is 6.5%.",
    "",
    "Tier              Threshold           Rate",
    "Tier 3            above $1.25 Billion 8%",
  ].join("\n");

  it("drops a bullet pairing figures no sentence, row or line of the source pairs", () => {
    const checked = checkBullets(
      {
        amounts: [
          "royalty 6.5% on Net Sales up to U.S.$750 Million",
          "royalty of 5% on Net Sales up to U.S.$750 Million",
          "6.5% up to $1.25 Billion",
          "Tier 3 above $1.25 Billion 8%",
          "5% and 8% are the royalty rates",
        ],
      },
      royalty,
    );
    expect(checked.bullets.amounts).toEqual([
      "royalty of 5% on Net Sales up to U.S.$750 Million",
      "6.5% up to $1.25 Billion",
      "Tier 3 above $1.25 Billion 8%",
    ]);
    expect(checked.dropped).toBe(2);
  });

  it("leaves a bullet with one numeric figure to the figure check alone", () => {
    expect(pairsUnstated("a royalty of 6.5%", pairingUnits(royalty))).toBe(false);
    expect(pairsUnstated("6.5% and 5%", pairingUnits(royalty))).toBe(true);
  });
});

describe("comparisonForm", () => {
  it("straightens curly quotes, collapses whitespace, trims and lower-cases", () => {
    expect(comparisonForm("  ARTICLE 8:\n\t“Lender’s Agent”  ‚x‛ „y‟ ")).toBe(
      'article 8: "lender\'s agent" \'x\' "y"',
    );
  });
});

describe("the figure check reads digits of every script and number words", () => {
  const cap = "The Borrower may not incur Debt above $40,000,000 in aggregate.";

  it.each([
    ["full-width digits", "Debt cap $４５,０００,０００"],
    ["full-width digits, sign and commas", "Debt cap ＄４５，０００，０００"],
    ["Arabic-Indic digits", "Debt cap $٤٥,٠٠٠,٠٠٠"],
    ["Devanagari digits", "Debt cap $४५,०००,०००"],
  ])("drops an amount invented in %s", (_label, bullet) => {
    expect(checkBullets({ amounts: [bullet] }, cap)).toEqual({ bullets: {}, kept: 0, dropped: 1 });
  });

  it("keeps an amount the source states, retyped in other digits, as written", () => {
    const amounts = [
      "Debt cap $４０,０００,０００",
      "Debt cap ＄４０，０００，０００",
      "Debt cap $٤٠,٠٠٠,٠٠٠",
    ];
    expect(checkBullets({ amounts }, cap)).toEqual({ bullets: { amounts }, kept: 3, dropped: 0 });
  });

  it("pairs figures retyped in other digits as the numbers they are", () => {
    const source = "The cap is $40,000,000.\nThe term ends on July 1, 2030.";
    const checked = checkBullets({ amounts: ["cap $４０,０００,０００ until July １, ２０３０"] }, source);
    expect(checked).toEqual({ bullets: {}, kept: 0, dropped: 1 });
    expect(pairsUnstated("cap $４０,０００,０００ until July １, ２０３０", pairingUnits(source))).toBe(true);
    expect(pairsUnstated("cap $４０,０００,０００ in full", pairingUnits(source))).toBe(false);
  });

  it("compares a source written in other digits in ASCII too", () => {
    expect(inventedFigures("a fee of $45", sourceFigureFinder("a fee of $٤٥ due"))).toEqual([]);
    expect(inventedFigures("a fee of $40", sourceFigureFinder("a fee of $٤٥ due"))).toEqual(["$40", "40"]);
  });

  it("drops number words the source does not state, with or without a unit", () => {
    const source = "The Tenant may renew within twelve (12) months; the cap is $45,000,000.";
    const occurs = sourceFigureFinder(source);
    expect(inventedFigures("the cap is forty-five million", occurs)).toEqual(["forty-five million"]);
    expect(inventedFigures("renewal within thirteen months", occurs)).toEqual(["thirteen"]);
    expect(inventedFigures("renewal within twelve months", occurs)).toEqual([]);
    expect(
      checkBullets({ points: ["renewal within thirteen months", "renewal within Twelve months"] }, source),
    ).toEqual({ bullets: { points: ["renewal within Twelve months"] }, kept: 1, dropped: 1 });
  });

  it("takes number words as whole words, and accepts those an amount in words states", () => {
    const occurs = sourceFigureFinder(
      "a fee of Forty-Five Million Dollars ($45,000,000) within seventeen days",
    );
    expect(inventedFigures("a fee of forty-five million", occurs)).toEqual([]);
    expect(inventedFigures("within seven days", occurs)).toEqual(["seven"]);
  });
});
