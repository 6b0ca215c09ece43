import { createToolPolicy, InvalidOptionError, type ToolCall } from "@context-cleaner/assembler";
import { extractFigures } from "@context-cleaner/assembler/figures";
import { DIGEST_HEADER } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { DIGEST_RENDER_DEFAULTS, renderDigest } from "./render-digest";

const rule = createToolPolicy().ruleFor("read_document");
const call: ToolCall = { id: "c2", name: "read_document", args: { file_id: "cd_9f2", offset: 58_000 } };
const source =
  "ARTICLE 8 ASSIGNMENT. Tenant shall not assign without consent, not to be unreasonably withheld; " +
  "an affiliate transfer is permitted under §8.3 to a “Qualified Transferee” (§8.2). " +
  "Exhibit B: base rent $1,250,000/yr with a 2.5% annual escalator from year 6. " +
  'The "Stabilization Date" is defined in §1.44.';

describe("renderDigest", () => {
  it("renders exactly the digest contract's format", () => {
    const page = `GROUND LEASE — 445 W 35TH\n${source}`;
    const rendered = renderDigest({
      call,
      rule,
      source: page,
      title: "Ground Lease — 445 W 35th",
      totalChars: 190_412,
      page: { index: 2, count: 4 },
      bullets: {
        points: [
          "Article 8 (Assignment): consent required, not to be unreasonably withheld; affiliate carve-out §8.3",
        ],
        amounts: ["Exhibit B rent: base $1,250,000/yr, 2.5% annual escalator from year 6"],
        definedTerms: ['"Qualified Transferee" (§8.2), "Stabilization Date" (§1.44)'],
      },
    });
    expect(rendered.text).toBe(
      [
        DIGEST_HEADER,
        "tool: read_document",
        `source: file_id=cd_9f2 "Ground Lease — 445 W 35th" · characters 58,000–58,${page.length} of 190,412 (page 2 of 4)`,
        "digest:",
        "  - Article 8 (Assignment): consent required, not to be unreasonably withheld; affiliate carve-out §8.3",
        "  - Amounts: Exhibit B rent: base $1,250,000/yr, 2.5% annual escalator from year 6",
        '  - Defined terms: "Qualified Transferee" (§8.2), "Stabilization Date" (§1.44)',
        `figures verbatim: ARTICLE 8; §8.3; “Qualified Transferee”; §8.2; Exhibit B; $1,250,000; 2.5%; "Stabilization Date"; §1.44`,
        're-read: read_document(file_id="cd_9f2", offset=58000)',
      ].join("\n"),
    );
    expect(rendered.chars).toBe(rendered.text.length);
    expect(rendered.bullets).toEqual({ kept: 3, dropped: 0, trimmed: 0 });
  });

  it("drops a title that carries a figure absent from the source, and keeps one whose figures occur", () => {
    const planted = renderDigest({
      call,
      rule,
      source,
      title: "Ground Lease: rent now $9,999,999 per §99.9",
      bullets: {},
    });
    expect(planted.text).toContain("\nsource: file_id=cd_9f2 · characters 58,000–");
    expect(planted.text).not.toContain("9,999,999");
    expect(planted.text).not.toContain("§99.9");
    const partial = renderDigest({
      call,
      rule,
      source,
      title: "Ground Lease — rent $1,250 per §8",
      bullets: {},
    });
    expect(partial.text).not.toContain("Ground Lease");
    const sourced = renderDigest({
      call,
      rule,
      source,
      title: "Exhibit B: rent $1,250,000, §8.3",
      bullets: {},
    });
    expect(sourced.text).toContain('source: file_id=cd_9f2 "Exhibit B: rent $1,250,000, §8.3" · characters');
  });

  it("extracts the figures line mechanically from the source, whatever the bullets say", () => {
    const rendered = renderDigest({ call, rule, source, bullets: {} });
    const line = rendered.text.split("\n").find((text) => text.startsWith("figures verbatim: "));
    expect(line).toBe(`figures verbatim: ${extractFigures(source).join("; ")}`);
    expect(rendered.text).toContain("  - (figures only; re-read for the full text)");
  });

  it("finds figures a hard wrap breaks across lines, as the whitespace-normalised source has them", () => {
    const wrapped =
      "The Indenture, dated as of April 29,\n2020, between the Issuer and Citibank,\nN.A. is defined in Section\n8.3 (the “Agreement\nDate”).";
    const rendered = renderDigest({ call, rule, source: wrapped, bullets: {} });
    expect(rendered.text).toContain("figures verbatim: April 29, 2020; Section 8.3; “Agreement Date”");
  });

  it("drops and counts a bullet with a figure absent from the source", () => {
    const rendered = renderDigest({
      call,
      rule,
      source,
      bullets: {
        amounts: ["base rent $1,250,000/yr", "base rent $1,300,000/yr", "escalator 3.5% from year 6"],
      },
    });
    expect(rendered.bullets).toEqual({ kept: 1, dropped: 2, trimmed: 0 });
    expect(rendered.text).not.toContain("$1,300,000");
    expect(rendered.text).not.toContain("3.5%");
  });

  it("accepts a defined term retyped with straight quotes", () => {
    const rendered = renderDigest({
      call,
      rule,
      source,
      bullets: { definedTerms: ['"Qualified Transferee"'] },
    });
    expect(rendered.bullets.dropped).toBe(0);
  });

  it("trims bullets first to meet the cap", () => {
    const bullets = {
      obligations: Array.from(
        { length: 80 },
        (_, index) => `Tenant shall comply, item ${index % 7}x${"a".repeat(index)}`,
      ),
    };
    const rendered = renderDigest(
      { call, rule, source: `${source} ${"0123456 ".repeat(50)}`, bullets },
      { digestCharCap: 1_000 },
    );
    expect(rendered.chars).toBeLessThanOrEqual(1_000);
    expect(rendered.bullets.trimmed).toBeGreaterThan(0);
    expect(rendered.text).toContain("figures verbatim: ARTICLE 8; §8.3");
  });

  it("stretches the cap to fit the figures line, up to the max, and says how many were left out", () => {
    const dense = Array.from(
      { length: 900 },
      (_, index) => `$${index + 1},${String(index).padStart(3, "0")}`,
    ).join(" and ");
    const fits = renderDigest(
      { call, rule, source: dense.slice(0, 3_000), bullets: {} },
      { digestCharCap: 1_000 },
    );
    expect(fits.chars).toBeGreaterThan(1_000);
    expect(fits.figures.omitted).toBe(0);
    const over = renderDigest({ call, rule, source: dense, bullets: { amounts: ["$1,000"] } });
    expect(over.chars).toBeLessThanOrEqual(8_000);
    expect(over.chars).toBeGreaterThan(7_800);
    expect(over.figures.omitted).toBeGreaterThan(0);
    expect(over.text).toContain(`[+${over.figures.omitted} more figures left out; re-read for all]`);
    const crowded = renderDigest({
      call,
      rule,
      source: dense,
      bullets: { amounts: [`$1,000 ${"and ".repeat(40)}`] },
    });
    expect(crowded.bullets.trimmed).toBe(1);
  });

  it("is deterministic: same input, same bytes", () => {
    const input = { call, rule, source, bullets: { amounts: ["rent $1,250,000"], points: ["ARTICLE 8"] } };
    expect(renderDigest(input).text).toBe(renderDigest(structuredClone(input)).text);
  });

  it("renders the source without offset, and quotes odd id values", () => {
    const rendered = renderDigest({
      call: { id: "c1", name: "read_file", args: { path: "docs/My Lease.txt" } },
      rule: createToolPolicy().ruleFor("read_file"),
      source: "short",
      page: { index: 1 },
      bullets: {},
    });
    expect(rendered.text).toContain('source: path="docs/My Lease.txt" · page 1\n');
    expect(rendered.text).toContain('re-read: read_file(path="docs/My Lease.txt")');
    expect(rendered.text).toContain("figures verbatim: (none)");
  });

  it("rejects caps out of range, naming the option", () => {
    expect(() => renderDigest({ call, rule, source, bullets: {} }, { digestCharCap: 10 })).toThrow(
      InvalidOptionError,
    );
    expect(() => renderDigest({ call, rule, source, bullets: {} }, { digestCharCapMax: 100 })).toThrow(
      /digestCharCapMax/,
    );
  });

  it("renders the bullets of every section in order, each under its label", () => {
    const rendered = renderDigest({
      call,
      rule,
      source: `${source} Acme Holdings, LLC is the landlord from July 21, 2020.`,
      bullets: {
        crossReferences: ["affiliate transfers: §8.3"],
        definedTerms: ['"Qualified Transferee" (§8.2)'],
        obligations: ["Tenant shall not assign without consent"],
        amounts: ["base rent $1,250,000/yr"],
        dates: ["landlord from July 21, 2020"],
        parties: ["Acme Holdings, LLC"],
        points: ["Assignment needs consent"],
      },
    });
    const lines = rendered.text.split("\n");
    expect(lines.slice(lines.indexOf("digest:") + 1, -2)).toEqual([
      "  - Assignment needs consent",
      "  - Parties: Acme Holdings, LLC",
      "  - Dates: landlord from July 21, 2020",
      "  - Amounts: base rent $1,250,000/yr",
      "  - Obligations: Tenant shall not assign without consent",
      '  - Defined terms: "Qualified Transferee" (§8.2)',
      "  - Cross-references: affiliate transfers: §8.3",
    ]);
    expect(rendered.bullets).toEqual({ kept: 7, dropped: 0, trimmed: 0 });
  });

  it("keeps a bullet of exactly 600 chars whole and cuts a longer one at a word past its half", () => {
    const bulletLine = (bullet: string) =>
      renderDigest({ call, rule, source, bullets: { points: [bullet] } })
        .text.split("\n")
        .find((line) => line.startsWith("  - "));
    expect(DIGEST_RENDER_DEFAULTS.maxBulletChars).toBe(600);
    const whole = `${"a".repeat(300)} ${"b".repeat(299)}`;
    expect(bulletLine(whole)).toBe(`  - ${whole}`);
    // The last space before the cut lies past half the limit: cut there.
    expect(bulletLine(`${"a".repeat(301)} ${"b".repeat(299)}`)).toBe(`  - ${"a".repeat(301)}…`);
    // It lies at exactly half: a word boundary that early would lose too much, so cut mid-word.
    expect(bulletLine(`${"a".repeat(300)} ${"b".repeat(300)}`)).toBe(
      `  - ${"a".repeat(300)} ${"b".repeat(298)}…`,
    );
  });

  it("keeps a title of exactly 120 chars whole and cuts a longer one like a bullet", () => {
    const sourceTitle = (title: string) =>
      renderDigest({ call, rule, source, title, bullets: {} })
        .text.split("\n")
        .find((line) => line.startsWith("source: "));
    expect(DIGEST_RENDER_DEFAULTS.maxTitleChars).toBe(120);
    const whole = `${"A".repeat(60)} ${"b".repeat(59)}`;
    expect(sourceTitle(whole)).toContain(`file_id=cd_9f2 "${whole}" · characters`);
    expect(sourceTitle(`${"A".repeat(61)} ${"b".repeat(59)}`)).toContain(`"${"A".repeat(61)}…" ·`);
    expect(sourceTitle(`${"A".repeat(60)} ${"b".repeat(60)}`)).toContain(
      `"${"A".repeat(60)} ${"b".repeat(58)}…" ·`,
    );
  });

  it("collapses whitespace in the title and turns its double quotes into single ones", () => {
    const rendered = renderDigest({
      call,
      rule,
      source,
      title: '  Ground \n Lease  of  the "north"   lot ',
      bullets: {},
    });
    expect(rendered.text).toContain(`source: file_id=cd_9f2 "Ground Lease of the 'north' lot" · characters`);
  });

  it("fits bullets to the cap to the char: a bullet that would pass it by one is trimmed", () => {
    const bullets = {
      points: ["Tenant shall not assign without consent, not to be unreasonably withheld"],
      obligations: ["an affiliate transfer is permitted to a Qualified Transferee"],
    };
    const full = renderDigest({ call, rule, source, bullets });
    expect(full.bullets).toEqual({ kept: 2, dropped: 0, trimmed: 0 });
    const exact = renderDigest({ call, rule, source, bullets }, { digestCharCap: full.chars });
    expect(exact.text).toBe(full.text);
    const tight = renderDigest({ call, rule, source, bullets }, { digestCharCap: full.chars - 1 });
    expect(tight.bullets).toEqual({ kept: 1, dropped: 0, trimmed: 1 });
    expect(tight.text).toContain(bullets.points[0]);
    expect(tight.text).not.toContain(bullets.obligations[0]);
    expect(tight.chars).toBeLessThanOrEqual(full.chars - 1);
    const single = renderDigest({ call, rule, source, bullets: { points: bullets.points } });
    expect(
      renderDigest(
        { call, rule, source, bullets: { points: bullets.points } },
        { digestCharCap: single.chars },
      ).bullets,
    ).toEqual({ kept: 1, dropped: 0, trimmed: 0 });
    const none = renderDigest(
      { call, rule, source, bullets: { points: bullets.points } },
      { digestCharCap: single.chars - 1 },
    );
    expect(none.bullets).toEqual({ kept: 0, dropped: 0, trimmed: 1 });
    expect(none.text).toContain("  - (figures only; re-read for the full text)");
    expect(none.chars).toBeLessThanOrEqual(single.chars - 1);
  });

  it("still renders when the call alone is longer than the max: every figure is left out", () => {
    const long: ToolCall = {
      id: "c3",
      name: "read_document",
      args: { file_id: "x".repeat(9_000), offset: 0 },
    };
    const rendered = renderDigest({
      call: long,
      rule,
      source,
      bullets: { points: ["Tenant may not assign"] },
    });
    const found = extractFigures(source).length;
    expect(rendered.figures).toEqual({ found, shown: 0, omitted: found });
    expect(rendered.text).toMatch(
      new RegExp(`\\nfigures verbatim: +\\[\\+${found} more figures left out; re-read for all\\]\\n`),
    );
    expect(rendered.bullets).toEqual({ kept: 0, dropped: 0, trimmed: 1 });
  });

  it("groups the digits of large offsets and totals in threes", () => {
    const far: ToolCall = { id: "c4", name: "read_document", args: { file_id: "cd_9f2", offset: 1_234_567 } };
    const rendered = renderDigest({ call: far, rule, source: "short", totalChars: 12_345_678, bullets: {} });
    expect(rendered.text).toContain(
      "\nsource: file_id=cd_9f2 · characters 1,234,567–1,234,572 of 12,345,678\n",
    );
  });

  it("renders the range alone when the total and the page are unknown, and the page bare of a count", () => {
    const bare = renderDigest({ call, rule, source: "short", bullets: {} });
    expect(bare.text).toContain("\nsource: file_id=cd_9f2 · characters 58,000–58,005\n");
    const paged = renderDigest({ call, rule, source: "short", page: { index: 3 }, bullets: {} });
    expect(paged.text).toContain("\nsource: file_id=cd_9f2 · characters 58,000–58,005 (page 3)\n");
  });

  it("names the call when it has no document id, and renders a missing id value as null like the re-read", () => {
    const noId: ToolCall = { id: "c5", name: "read_document", args: { offset: 10 } };
    expect(renderDigest({ call: noId, rule, source: "short", bullets: {} }).text).toContain(
      "\nsource: read_document · characters 10–15\n",
    );
    const untracked = renderDigest({
      call: { id: "c6", name: "fetch_page", args: { url: "https://example.com/lease" } },
      rule: { provenanceArgs: [], offsetArg: undefined },
      source: "short",
      bullets: {},
    });
    expect(untracked.text).toContain("\nsource: fetch_page\n");
    const nullId: ToolCall = { id: "c7", name: "read_document", args: { file_id: null, offset: 0 } };
    const rendered = renderDigest({ call: nullId, rule, source: "short", bullets: {} });
    expect(rendered.text).toContain("\nsource: file_id=null · characters 0–5\n");
    expect(rendered.text).toContain("re-read: read_document(file_id=null, offset=0)");
    const undefinedId: ToolCall = {
      id: "c8",
      name: "read_document",
      args: { file_id: undefined, offset: 0 },
    };
    expect(renderDigest({ call: undefinedId, rule, source: "short", bullets: {} }).text).toContain(
      "\nsource: file_id=null · characters 0–5\n",
    );
  });

  it("accepts the smallest caps and names the option and the value it rejects", () => {
    const input = { call, rule, source, bullets: {} };
    expect(renderDigest(input, { digestCharCap: 200 }).text).toContain("figures verbatim:");
    expect(renderDigest(input, { digestCharCap: 1_000, digestCharCapMax: 1_000 }).text).toContain("re-read:");
    const rejected = (options: { digestCharCap?: number; digestCharCapMax?: number }) => {
      try {
        renderDigest(input, options);
      } catch (error) {
        return error;
      }
      throw new Error("accepted");
    };
    expect(rejected({ digestCharCap: 199 })).toMatchObject({
      name: "InvalidOptionError",
      field: "digestCharCap",
      message: "digestCharCap must be an integer ≥ 200, got 199",
    });
    expect(rejected({ digestCharCap: 250.5 })).toMatchObject({ field: "digestCharCap" });
    expect(rejected({ digestCharCap: 1_000, digestCharCapMax: 999 })).toMatchObject({
      field: "digestCharCapMax",
      message: "digestCharCapMax must be an integer ≥ digestCharCap (1000), got 999",
    });
    expect(rejected({ digestCharCapMax: 5_000.5 })).toMatchObject({ field: "digestCharCapMax" });
  });
});

describe("renderDigest of a time-varying tool's output", () => {
  const command: ToolCall = { id: "c9", name: "run_command", args: { cmd: "df -h" } };
  const commandRule = createToolPolicy().ruleFor("run_command");
  const input = { call: command, rule: commandRule, source, bullets: { points: ["Disk usage by mount"] } };

  it("says in its source line that the content is as it was at the time of the call", () => {
    const lines = renderDigest({ ...input, asOfCall: true }).text.split("\n");
    expect(lines[2]).toBe("source: run_command · as it was at the time of the call");
    expect(lines.at(-1)).toMatch(/^re-read: run_command\(/);
  });

  it("says nothing of the time without asOfCall", () => {
    expect(renderDigest(input).text).not.toContain("at the time of the call");
  });
});
