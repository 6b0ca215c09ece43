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
