import { describe, expect, it } from "vitest";
import { checkBullets, comparisonForm, inventedFigures } from "./check-bullets";

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
});
