import { InvalidOptionError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { checkBullets } from "../render/check-bullets";
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

describe("extractive digester", () => {
  it("selects headings and sentences that define, oblige, state amounts, dates, parties and references", () => {
    const bullets = extractBullets(lease, 2_400);
    expect(bullets.points).toEqual(["ARTICLE 8", "ASSIGNMENT AND SUBLETTING"]);
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

  it("rejects a bad budget, naming the option", () => {
    expect(() => createExtractiveDigester({ bulletBudgetChars: 0 })).toThrow(InvalidOptionError);
  });
});
