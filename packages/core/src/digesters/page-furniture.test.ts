import { describe, expect, it } from "vitest";
import { isFurnitureLine, markFurniture, withoutPlaceholders } from "./page-furniture";

describe("isFurnitureLine", () => {
  it.each([
    ["a bare page number", " 12"],
    ["a dashed page number", "-12-"],
    ["a spaced dashed page number", "- 12 -"],
    ["a roman page number", "- iv -"],
    ["a glued roman page number", "-ii-"],
    ["a page label", "Page 12 of 80"],
    ["a short page label", "Page 7"],
    ["a dashed rule", "-".repeat(80)],
    ["an underscore rule", "_".repeat(40)],
    ["an equals rule", "=========="],
    ["a star rule", "* * * * *"],
    ["an image placeholder", "[image]"],
    ["an image file placeholder", "image_01a.jpg [image_01a.jpg]"],
    ["a page tag", "<PAGE>"],
    ["a document-management id", "#2572901v4"],
    ["a document-management number", "233773760 v5"],
    ["a signature-page caption", "[Signature Page to Ground Lease]"],
    ["a blank-page note", "[Remainder of page intentionally left blank]"],
  ])("drops %s", (_label, line) => {
    expect(isFurnitureLine(line)).toBe(true);
  });

  it.each([
    ["a heading", "ARTICLE 8"],
    ["an exhibit heading", "EXHIBIT B"],
    ["a prose line naming a page", "the Page 12 attachment shall be delivered to the Agent by the Borrower"],
    ["a figure", "$1,250,000.00"],
    ["a percentage", "22.500%"],
    ["a table row", "Harborview Bank, N.A.      $87,500,000.00     33.333333333%"],
    ["a blank line", ""],
  ])("keeps %s", (_label, line) => {
    expect(isFurnitureLine(line)).toBe(false);
  });
});

describe("withoutPlaceholders", () => {
  it("removes a placeholder glued to a heading and keeps the spacing of the rest", () => {
    expect(withoutPlaceholders("image_01a.jpg [image_01a.jpg]EXHIBIT D").trim()).toBe("EXHIBIT D");
    expect(withoutPlaceholders("Closing Date   $5.00")).toBe("Closing Date   $5.00");
  });
});

describe("markFurniture", () => {
  it("marks a running footer that repeats beside page numbers and rules, and only there", () => {
    const page = [
      "the Tenant shall pay the Base Rent in advance on the first day of each",
      "- 4 -",
      "Third Amended and Restated",
      "Ground Lease Agreement",
      "",
      "-".repeat(80),
      "",
      "month during the Term, without demand, deduction or offset whatsoever.",
      "The Ground Lease Agreement is the whole agreement of the parties.",
      "- 5 -",
      "Third Amended and Restated",
      "Ground Lease Agreement",
      "",
      "-".repeat(80),
      "Third Amended and Restated",
    ];
    const marked = markFurniture(page);
    expect(page.filter((_, index) => !marked[index] && page[index] !== "")).toEqual([
      page[0],
      page[7],
      page[8],
    ]);
  });

  it("marks lettered page numbers only when they run in a sequence", () => {
    const page = ["“Fitch” means Fitch Ratings, Inc.", " Appendix A-11", "text", " Appendix A-12"];
    expect(markFurniture(page)).toEqual([false, true, false, true]);
    expect(markFurniture(["Exhibit B-2", "Form of Notice of Borrowing"])).toEqual([false, false]);
  });
});
