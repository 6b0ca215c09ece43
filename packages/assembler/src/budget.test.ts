import { describe, expect, it } from "vitest";
import {
  assistantText,
  digestFor,
  digestMap,
  toolExchange,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { BUDGET_DEFAULTS, capToolResult, effectiveToolChars } from "./budget";
import type { Message } from "./types";

const pageA = "a".repeat(50_000);
const pageB = "b".repeat(30_000);

/** Two reads, then enough later turns that both lie outside the recency wall. */
function thread(): Message[] {
  return [
    userMessage("read both"),
    ...toolExchange("c1", "read_document", { file_id: "f", offset: 0 }, pageA),
    ...toolExchange("c2", "read_document", { file_id: "f", offset: 50_000 }, pageB),
    assistantText("Read."),
    assistantText("Summarized."),
    assistantText("Filed."),
    userMessage("next task"),
  ];
}

describe("effectiveToolChars", () => {
  it("counts raw tool chars without digests (user and assistant text excluded)", () => {
    expect(effectiveToolChars(thread(), null)).toEqual({
      effectiveChars: 80_000,
      rawChars: 80_000,
      refundedChars: 0,
      refundActive: true,
    });
  });

  it("counts digest chars for hash-matched rows only", () => {
    const digests = digestMap({
      c1: digestFor(pageA, "d".repeat(2_000)),
      c2: digestFor("other bytes", "e".repeat(1_000)),
    });
    expect(effectiveToolChars(thread(), digests)).toEqual({
      effectiveChars: 2_000 + 30_000,
      rawChars: 80_000,
      refundedChars: 48_000,
      refundActive: true,
    });
  });

  it("with shown, counts a digest only for a result the view holds condensed: a deferred one counts raw", () => {
    const digests = digestMap({
      c1: digestFor(pageA, "d".repeat(2_000)),
      c2: digestFor(pageB, "e".repeat(1_000)),
    });
    expect(effectiveToolChars(thread(), digests).effectiveChars).toBe(3_000);
    expect(effectiveToolChars(thread(), digests, { shown: ["c2"] }).effectiveChars).toBe(50_000 + 1_000);
    expect(effectiveToolChars(thread(), digests, { shown: [] }).effectiveChars).toBe(80_000);
  });

  it("counts raw chars for a failed result, which the view never replaces by a digest", () => {
    const failed = `Error: upstream timeout ${"x".repeat(20_000)}`;
    const messages = [
      userMessage("read"),
      ...toolExchange("f1", "read_document", { file_id: "g", offset: 0 }, failed, "error"),
      assistantText("Read."),
      assistantText("Summarized."),
      assistantText("Filed."),
      userMessage("next task"),
    ];
    const digests = digestMap({ f1: digestFor(failed, "d".repeat(500)) });
    expect(effectiveToolChars(messages, digests).effectiveChars).toBe(failed.length);
  });

  it("honours a recencyKeepExchanges other than the default", () => {
    const digests = digestMap({ c2: digestFor(pageB, "e".repeat(1_000)) });
    expect(effectiveToolChars(thread(), digests).effectiveChars).toBe(50_000 + 1_000);
    // Four exchanges reach back to c2: the view keeps it raw, so the budget counts it raw.
    expect(effectiveToolChars(thread(), digests, { recencyKeepExchanges: 4 }).effectiveChars).toBe(80_000);
    expect(effectiveToolChars(thread(), digests, { recencyKeepExchanges: 0 }).effectiveChars).toBe(51_000);
  });

  it("counts raw chars for a result the view keeps raw (inside the recency wall)", () => {
    const digests = digestMap({ c1: digestFor(pageA, "d".repeat(2_000)) });
    const recent = thread().slice(0, 5);
    expect(effectiveToolChars(recent, digests).effectiveChars).toBe(80_000);
  });

  it("turns the refund off with CONTEXT_CLEANER_DISABLED=1", () => {
    const digests = digestMap({ c1: digestFor(pageA, "d".repeat(2_000)) });
    const saved = process.env.CONTEXT_CLEANER_DISABLED;
    process.env.CONTEXT_CLEANER_DISABLED = "1";
    try {
      expect(effectiveToolChars(thread(), digests)).toMatchObject({
        effectiveChars: 80_000,
        refundActive: false,
      });
    } finally {
      if (saved === undefined) delete process.env.CONTEXT_CLEANER_DISABLED;
      else process.env.CONTEXT_CLEANER_DISABLED = saved;
    }
  });

  it("never counts a digest longer than its original", () => {
    const digests = digestMap({ c2: { ...digestFor(pageB, "x"), digestChars: 40_000 } });
    expect(effectiveToolChars(thread(), digests).effectiveChars).toBe(80_000);
  });

  it("resumes raw accounting above the raw ceiling", () => {
    const digests = digestMap({ c1: digestFor(pageA, "d".repeat(2_000)) });
    expect(effectiveToolChars(thread(), digests, { rawCeilingChars: 80_000 }).refundActive).toBe(true);
    expect(effectiveToolChars(thread(), digests, { rawCeilingChars: 79_999 })).toEqual({
      effectiveChars: 80_000,
      rawChars: 80_000,
      refundedChars: 0,
      refundActive: false,
    });
  });

  it("uses a 2,000,000-char ceiling by default", () => {
    expect(BUDGET_DEFAULTS.rawCeilingChars).toBe(2_000_000);
    const big = [...toolExchange("c1", "read_document", { file_id: "f" }, "z".repeat(2_000_001))];
    const digests = digestMap({ c1: digestFor(big[1]?.content as string, "d") });
    expect(effectiveToolChars(big, digests).refundActive).toBe(false);
  });

  it("counts raw when disabled", () => {
    const digests = digestMap({ c1: digestFor(pageA, "d".repeat(2_000)) });
    expect(effectiveToolChars(thread(), digests, { disabled: true })).toMatchObject({
      effectiveChars: 80_000,
      refundActive: false,
    });
  });
});

describe("capToolResult", () => {
  it("passes a result under the per-result cap through", () => {
    const content = "x".repeat(60_000);
    expect(capToolResult(content, { usedChars: 0 })).toEqual({
      content,
      capped: false,
      condensed: false,
      originalChars: 60_000,
      keptChars: 60_000,
    });
  });

  it("cuts a result to 60,000 chars and says how to re-read the rest", () => {
    const content = "x".repeat(70_000);
    const result = capToolResult(content, { usedChars: 100_000 });
    expect(result).toMatchObject({ capped: true, originalChars: 70_000, keptChars: 60_000 });
    expect(result.content.startsWith("x".repeat(60_000))).toBe(true);
    expect(result.content.slice(60_000, 60_001)).not.toBe("x");
    const notice = result.content.slice(60_000);
    expect(notice).toContain("60,000 of 70,000");
    expect(notice).toContain("because results are capped per call");
    expect(notice).toMatch(/re-read/i);
  });

  it("cuts every new result to 2,000 chars once the 600,000 budget is spent", () => {
    const content = "y".repeat(5_000);
    expect(capToolResult(content, { usedChars: 599_999 }).capped).toBe(false);
    const result = capToolResult(content, { usedChars: 600_000 });
    expect(result).toMatchObject({ capped: true, keptChars: 2_000 });
    expect(result.content.startsWith("y".repeat(2_000))).toBe(true);
    expect(result.content.charAt(2_000)).not.toBe("y");
    const notice = result.content.slice(2_000);
    expect(notice).toMatch(/budget/);
    expect(notice).toMatch(/re-read/i);
    expect(notice).not.toMatch(/new chat|new conversation|start over|start a new/i);
  });

  it("never splits a surrogate pair at the cut: the pair goes whole to the rest", () => {
    const content = `${"x".repeat(59_999)}😀${"y".repeat(10_000)}`;
    const result = capToolResult(content, { usedChars: 0 });
    expect(result).toMatchObject({ capped: true, keptChars: 59_999 });
    expect(result.content.startsWith("x".repeat(59_999))).toBe(true);
    expect(result.content.charAt(59_999)).toBe("\n");
    expect(result.content).toContain("59,999 of 70,001");
    expect(result.content).toContain("from character 59,999");
    // A pair just before the cut stays whole in the kept part.
    const before = capToolResult(`${"x".repeat(59_998)}😀${"y".repeat(10)}`, { usedChars: 0 });
    expect(before.keptChars).toBe(60_000);
    expect(before.content.slice(59_998, 60_000)).toBe("😀");
  });

  it("keeps pairs whole at both ends of the surrogate ranges", () => {
    const options = { usedChars: 0, perResultCapChars: 10 };
    for (const pair of ["\uD800\uDC00", "\uDBFF\uDFFF", "\uD800\uDFFF", "\uDBFF\uDC00"]) {
      const result = capToolResult(`${"x".repeat(9)}${pair}${"y".repeat(10)}`, options);
      expect(result.keptChars).toBe(9);
      expect(result.content.startsWith(`${"x".repeat(9)}\n`)).toBe(true);
    }
  });

  it("cuts at the limit where the chars there are no pair: lone halves, or a low half then a high one", () => {
    const options = { usedChars: 0, perResultCapChars: 10 };
    for (const around of [
      "\uD83Dy",
      "\uD83D\uFFFD",
      "x\uDE00",
      "\uDE00\uD83D",
      "\uDC00\uDC00",
      "\uD800\uD800",
      "xy",
    ]) {
      const content = `${"x".repeat(9)}${around}${"y".repeat(10)}`;
      const result = capToolResult(content, options);
      expect(result.keptChars).toBe(10);
      expect(result.content.startsWith(content.slice(0, 10))).toBe(true);
    }
  });

  it("honours custom caps", () => {
    const result = capToolResult("z".repeat(300), {
      usedChars: 10,
      perResultCapChars: 100,
      conversationBudgetChars: 10,
      overBudgetResultChars: 50,
    });
    expect(result.keptChars).toBe(50);
  });
});

/** A contract page of about `chars` chars: headings, figures, and prose between them. */
function contractPage(chars = 20_000): string {
  const prose =
    "The Borrower shall deliver such further instruments as the Administrative Agent may reasonably request. ";
  const parts = [
    "ARTICLE VI — NEGATIVE COVENANTS",
    "6.1 Indebtedness. The Borrower shall not incur Debt above $40,000,000 in aggregate.",
    prose.repeat(40),
    "6.2 Financial Covenants. The Total Leverage Ratio shall not exceed 4.50 to 1.00 as of March 31, 2026.",
    prose.repeat(40),
    'Section 6.3 Liens. No Lien other than a "Permitted Lien" under Schedule 6.3 within thirty (30) days.',
  ];
  let page = parts.join("\n");
  while (page.length < chars) page += `\n${prose.repeat(10)}`;
  return page;
}

const PAGE_FIGURES = [
  "ARTICLE VI",
  "$40,000,000",
  "4.50 to 1.00",
  "March 31, 2026",
  "Section 6.3",
  '"Permitted Lien"',
  "Schedule 6.3",
  "thirty (30) days",
];

describe("capToolResult, condensing at arrival", () => {
  const spent = { usedChars: 600_000, overBudget: "condense" } as const;

  it("condenses a result over the budget to its headings and every figure, under a header saying so", () => {
    const page = contractPage();
    const result = capToolResult(page, spent);
    expect(result).toMatchObject({ capped: true, condensed: true, originalChars: page.length, keptChars: 0 });
    const lines = result.content.split("\n");
    expect(lines[0]).toMatch(
      /^\[Condensed at arrival by context-cleaner: the conversation's tool budget is spent/,
    );
    expect(lines[0]).toContain(`The original (${page.length.toLocaleString("en-US")} chars) is unchanged`);
    expect(lines[0]).toMatch(/re-readable/);
    expect(lines[1]).toBe(
      "headings: ARTICLE VI — NEGATIVE COVENANTS; 6.1 Indebtedness; 6.2 Financial Covenants; Section 6.3 Liens",
    );
    expect(lines[2]).toBe(`figures verbatim: ${PAGE_FIGURES.join("; ")}`);
    expect(lines[3]).toBe("re-read: the same tool with the same args");
    expect(lines).toHaveLength(4);
    expect(result.content.length).toBeLessThanOrEqual(BUDGET_DEFAULTS.condensedResultChars);
  });

  it("names read_original(tool_call_id=…) only when given the call's id, under the tool's name", () => {
    const page = contractPage();
    expect(capToolResult(page, spent).content).not.toContain("read_original");
    const handled = capToolResult(page, { ...spent, toolCallId: "call_7" }).content;
    expect(handled.split("\n").at(-1)).toBe(
      're-read: the same tool with the same args or read_original(tool_call_id="call_7")',
    );
    const renamed = capToolResult(page, {
      ...spent,
      toolCallId: "call_7",
      readOriginalToolName: "raw_result",
    });
    expect(renamed.content.split("\n").at(-1)).toBe(
      're-read: the same tool with the same args or raw_result(tool_call_id="call_7")',
    );
  });

  it("is deterministic: the same result gives the same bytes", () => {
    const page = contractPage();
    expect(capToolResult(page, spent).content).toBe(capToolResult(`${page}`, spent).content);
  });

  it("leaves results under the budget as the cut mode does: whole, or cut to the per-result cap", () => {
    const page = contractPage();
    expect(capToolResult(page, { ...spent, usedChars: 599_999 })).toMatchObject({
      content: page,
      capped: false,
      condensed: false,
    });
    const long = contractPage(70_000);
    const perResult = capToolResult(long, { ...spent, usedChars: 0 });
    expect(perResult).toMatchObject({ capped: true, condensed: false, keptChars: 60_000 });
    expect(perResult.content.startsWith(long.slice(0, 60_000))).toBe(true);
  });

  it("cuts as before a result with no heading and no figure, or whose condensation is not shorter", () => {
    const plain = "z".repeat(5_000);
    expect(capToolResult(plain, spent)).toMatchObject({ condensed: false, keptChars: 2_000 });
    const dense = Array.from({ length: 300 }, (_, index) => `$${index + 1}.00`).join(" ");
    expect(dense.length).toBeGreaterThan(2_000);
    expect(capToolResult(dense, spent)).toMatchObject({ condensed: false, keptChars: 2_000 });
  });

  it("stretches for the figures up to 8,000 chars, then says how many it left out, the first ones shown", () => {
    const amounts = Array.from({ length: 2_000 }, (_, index) => `$${(index + 1).toLocaleString("en-US")}.00`);
    const page = `FEES AND CHARGES\n${amounts.map((amount) => `A fee of ${amount} is due.`).join("\n")}`;
    const result = capToolResult(page, spent);
    expect(result.condensed).toBe(true);
    expect(result.content.length).toBeGreaterThan(BUDGET_DEFAULTS.condensedResultChars);
    expect(result.content.length).toBeLessThanOrEqual(BUDGET_DEFAULTS.condensedResultCharsMax);
    const figuresLine = result.content
      .split("\n")
      .find((line) => line.startsWith("figures verbatim:")) as string;
    const shown = figuresLine
      .replace(/^figures verbatim: /, "")
      .replace(/ \[\+.*$/, "")
      .split("; ");
    expect(shown).toEqual(amounts.slice(0, shown.length));
    expect(figuresLine).toMatch(
      new RegExp(`\\[\\+${amounts.length - shown.length} more figures left out; re-read for all\\]$`),
    );
  });

  it("fits every figure when they take less than the stretched cap, headings giving way first", () => {
    const amounts = Array.from(
      { length: 550 },
      (_, index) => `$${(index + 1_001).toLocaleString("en-US")}.25`,
    );
    const headings = Array.from({ length: 550 }, (_, index) => `## Fees and Charges ${index + 1}`);
    const page = amounts.map((amount, index) => `${headings[index]}\nA fee of ${amount} is due.`).join("\n");
    const result = capToolResult(page, spent);
    expect(result.content.length).toBeGreaterThan(BUDGET_DEFAULTS.condensedResultChars);
    expect(result.content.length).toBeLessThanOrEqual(BUDGET_DEFAULTS.condensedResultCharsMax);
    expect(result.content).toContain(`figures verbatim: ${amounts.join("; ")}\n`);
    expect(result.content).not.toContain("headings:");
  });

  it("honours its caps", () => {
    const result = capToolResult(contractPage(), {
      ...spent,
      condensedResultChars: 450,
      condensedResultCharsMax: 450,
    });
    expect(result.condensed).toBe(true);
    expect(result.content.length).toBeLessThanOrEqual(450);
    expect(result.content).toMatch(/more figures left out/);
  });

  it("condenses past the raw ceiling, where the refund stops, whatever the budget counts", () => {
    const page = contractPage();
    const atCeiling = capToolResult(page, { ...spent, usedChars: 0, rawChars: 2_000_000 });
    expect(atCeiling.capped).toBe(false);
    const past = capToolResult(page, { ...spent, usedChars: 0, rawChars: 2_000_001 });
    expect(past.condensed).toBe(true);
    expect(past.content).toMatch(
      /^\[Condensed at arrival by context-cleaner: the conversation's raw tool output is past its ceiling/,
    );
    const cut = capToolResult(page, { usedChars: 0, rawChars: 101, rawCeilingChars: 100, overBudget: "cut" });
    expect(cut).toMatchObject({ condensed: false, keptChars: 2_000 });
    expect(cut.content).toContain("because the conversation's raw tool output is past its ceiling");
  });

  it("cuts when the condensation's caps cannot hold its header and re-read line", () => {
    const result = capToolResult(contractPage(), {
      ...spent,
      condensedResultChars: 100,
      condensedResultCharsMax: 100,
    });
    expect(result).toMatchObject({ condensed: false, keptChars: 2_000 });
  });

  it("condenses by default (overBudget: condense), and cuts when asked to", () => {
    const page = contractPage();
    const condensed = capToolResult(page, { usedChars: 600_000 });
    expect(condensed).toMatchObject({ condensed: true, keptChars: 0 });
    expect(condensed.content).toContain(`figures verbatim: ${PAGE_FIGURES.join("; ")}`);
    expect(capToolResult(page, { usedChars: 600_000, overBudget: "cut" })).toMatchObject({
      condensed: false,
      keptChars: 2_000,
    });
  });
});
