import { describe, expect, it } from "vitest";
import { assembleModelView } from "../assemble";
import { DIGEST_HEADER } from "../contract/stubs";
import type { AssistantMessage, Message } from "../types";
import { innerWallOf, resolveWatermark, WATERMARK_DEFAULTS } from "./watermark";

const BUDGET = 100_000;

function page(file: string, offset: number): string {
  const head = `ARTICLE ${offset / 20_000 + 1}\nDocument ${file} from ${offset}: rent $${(offset + 1_250).toLocaleString("en-US")}; §${offset / 20_000 + 4}.2 applies. `;
  return (head + "Clause text continues. ".repeat(900)).slice(0, 20_000);
}

function reading(id: string, file: string, offset: number, thinking = false): Message[] {
  const call: AssistantMessage = {
    role: "assistant",
    content: thinking ? [{ type: "thinking", thinking: "", signature: `sig-${id}` }] : "",
    toolCalls: [{ id, name: "read_document", args: { file_id: file, offset } }],
  };
  return [call, { role: "tool", toolCallId: id, toolName: "read_document", content: page(file, offset) }];
}

/** One turn reading `pages` pages of 20,000 chars. */
function longTurn(pages: number, thinking = false): Message[] {
  return [
    { role: "user", content: "Read the whole lease." },
    ...Array.from({ length: pages }, (_, at) => reading(`p${at}`, "lease_7", at * 20_000, thinking)).flat(),
  ];
}

const MID_TURN = { turnStart: false, idleMs: 60_000 } as const;

describe("relief inside a long turn", () => {
  it("lands the results of the turn before its latest exchange in one batch once the view passes the budget", () => {
    const thread = longTurn(6);
    const { messages: view, report } = assembleModelView(thread, null, {
      historyBudgetChars: BUDGET,
      // Counted over no later call, only the high water lands a batch.
      cache: { ...MID_TURN, shown: [], expectedCalls: 0 },
    });
    expect(report.ledger.batch).toMatchObject({ status: "applied", reason: "watermark", results: 5 });
    expect(report.ledger.condensedIds).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(report.assembledChars).toBeLessThan(BUDGET);
    for (let at = 0; at < 5; at++) {
      const text = view[2 + 2 * at]?.content as string;
      expect(text.startsWith(DIGEST_HEADER)).toBe(true);
      // Every figure verbatim, the heading, and the call that reads it again.
      expect(text).toContain(`$${(at * 20_000 + 1_250).toLocaleString("en-US")}`);
      expect(text).toContain(`§${at + 4}.2`);
      expect(text).toContain(`ARTICLE ${at + 1}`);
      expect(text).toContain(`re-read: read_document(file_id="lease_7", offset=${at * 20_000})`);
    }
    // The latest exchange is never touched.
    expect(view.at(-1)).toBe(thread.at(-1));
    expect(view.at(-2)).toBe(thread.at(-2));
  });

  it("lands a batch within the budget only where it pays at the tariff, and never while thinking would be lost", () => {
    const small = longTurn(4);
    const paying = assembleModelView(small, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
    });
    expect(paying.report.ledger.batch).toMatchObject({ status: "applied", reason: "watermark", results: 3 });
    // Counted over no later call, no saving pays for the rewrite.
    const never = assembleModelView(small, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [], expectedCalls: 0 },
    });
    expect(never.report.ledger.batch.status).not.toBe("applied");
    // With thinking on the latest assistant message, only the high water lands a batch (dropping it).
    const thinking = assembleModelView(longTurn(4, true), null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
      watermark: { dropLatestThinking: true },
    });
    expect(thinking.report.ledger.batch.status).not.toBe("applied");
  });

  it("keeps what a batch condensed on the turn's later calls, which append to it", () => {
    const options = { historyBudgetChars: BUDGET } as const;
    const thread = longTurn(6);
    const first = assembleModelView(thread, null, {
      ...options,
      cache: { ...MID_TURN, shown: [], expectedCalls: 0 },
    });
    expect(first.report.ledger.batch).toMatchObject({ status: "applied", reason: "watermark" });
    const grown = [...thread, ...reading("p6", "lease_7", 120_000)];
    const next = assembleModelView(grown, null, {
      ...options,
      cache: {
        ...MID_TURN,
        expectedCalls: 0,
        shown: first.report.ledger.condensedIds,
        sent: first.report.ledger.sent,
      },
    });
    // The view appends: the earlier condensations stay, word for word; no new batch yet.
    expect(next.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(next.report.ledger.batch.status).not.toBe("applied");
    expect(next.report.ledger.condensedIds).toEqual(first.report.ledger.condensedIds);
  });

  it("lands no batch while the latest assistant message carries thinking, unless the provider may drop it", () => {
    const thread = longTurn(6, true);
    const kept = assembleModelView(thread, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
    });
    // Nothing before the latest assistant message changes; the result after it is new (below).
    expect(kept.report.ledger.batch).toMatchObject({
      status: "applied",
      reason: "arrival",
      deferredResults: 5,
    });
    kept.messages.slice(0, -1).forEach((message, at) => {
      expect(message).toBe(thread[at]);
    });
    expect(kept.report.ledger.thinking).toMatchObject({ removedBlocks: 0, latestInvalidated: false });
    const dropped = assembleModelView(thread, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
      watermark: { dropLatestThinking: true },
    });
    expect(dropped.report.ledger.batch).toMatchObject({ status: "applied", reason: "watermark" });
    // The thinking after the change leaves the view; the latest goes as it came, for the provider to drop.
    expect(dropped.report.ledger.thinking).toMatchObject({ removedBlocks: 4, latestInvalidated: true });
    expect(dropped.messages.at(-2)).toBe(thread.at(-2));
  });

  it("condenses a result arriving past the budget while thinking holds the batch back, and keeps it so on later calls", () => {
    const thread = longTurn(6, true);
    const first = assembleModelView(thread, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
    });
    expect(first.report.ledger.batch).toMatchObject({
      status: "applied",
      reason: "arrival",
      results: 1,
      deferredResults: 5,
    });
    expect(first.report.ledger.condensedIds).toEqual(["p5"]);
    const arrived = first.messages.at(-1)?.content as string;
    expect(arrived.startsWith(DIGEST_HEADER)).toBe(true);
    expect(arrived).toContain("$101,250");
    expect(arrived).toContain("§9.2");
    expect(arrived).toContain('re-read: read_document(file_id="lease_7", offset=100000)');
    expect(first.report.ledger.thinking).toMatchObject({ removedBlocks: 0, latestInvalidated: false });

    // The next call sends what this one sent, word for word, and condenses its own arrival.
    const grown = [...thread, ...reading("p6", "lease_7", 120_000, true)];
    const next = assembleModelView(grown, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: first.report.ledger.condensedIds, sent: first.report.ledger.sent },
    });
    expect(next.messages.slice(0, first.messages.length)).toEqual(first.messages);
    expect(next.report.ledger.condensedIds).toEqual(["p5", "p6"]);
    expect(next.report.ledger.thinking).toMatchObject({
      removedBlocks: 0,
      changedAt: undefined,
      latestInvalidated: false,
    });

    // A call the agent makes again, to read what arrived condensed, gets its result whole.
    const again = [...thread, ...reading("p7", "lease_7", 100_000, true)];
    const reread = assembleModelView(again, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: first.report.ledger.condensedIds, sent: first.report.ledger.sent },
    });
    expect(reread.messages.at(-1)).toBe(again.at(-1));
    expect(reread.report.ledger.condensedIds).toEqual(["p5"]);
  });

  it("reports the chars a batch held back by thinking would save, when nothing arrives to condense", () => {
    // Past the budget, the latest call reads again a page it read before: it arrives whole.
    const thread = [...longTurn(6, true), ...reading("again", "lease_7", 0, true)];
    const { report } = assembleModelView(thread, null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
    });
    expect(report.ledger.condensedIds).toEqual([]);
    expect(report.ledger.batch).toMatchObject({ status: "deferred", reason: "thinking", results: 6 });
    // Of what waits, as for any deferred batch: six 20,000-char pages, each condensed to a few hundred chars.
    expect(report.ledger.batch.charsSaved).toBeGreaterThan(6 * 15_000);
  });

  it("masks a tool that is not idempotent only when read_original can return its output", () => {
    const log = `$ npm test\n${"PASS src/a.test.ts\n".repeat(2_000)}FAIL src/b.test.ts: expected 3 to be 4\nexit code: 1\n`;
    const shell = (id: string): Message[] => [
      { role: "assistant", content: "", toolCalls: [{ id, name: "bash", args: { command: "npm test" } }] },
      { role: "tool", toolCallId: id, toolName: "bash", content: log },
    ];
    const thread: Message[] = [
      { role: "user", content: "Fix the tests." },
      ...shell("s1"),
      ...shell("s2"),
      ...shell("s3"),
    ];
    const options = { historyBudgetChars: 60_000, cache: { ...MID_TURN, shown: [] } };
    const raw = assembleModelView(thread, null, options);
    expect(raw.report.ledger.condensedIds).toEqual([]);
    const { messages: view, report } = assembleModelView(thread, null, { ...options, readOriginal: true });
    expect(report.ledger.condensedIds).toEqual(["s1", "s2"]);
    const masked = view[2]?.content as string;
    expect(masked).toContain('read_original(tool_call_id="s1")');
    expect(masked).toContain('command: bash(command="npm test")');
    expect(masked).toContain("exit status: 1");
    expect(masked).toContain("FAIL src/b.test.ts: expected 3 to be 4");
    expect(masked.length).toBeLessThan(2_000);
  });

  it("finds the latest exchanges of the turn, and checks its options", () => {
    const thread = longTurn(3);
    expect(innerWallOf(thread, 0, 1)).toBe(5);
    expect(innerWallOf(thread, 0, 2)).toBe(3);
    expect(innerWallOf(thread, 0, 9)).toBe(0);
    expect(resolveWatermark(undefined)).toEqual({
      keepExchanges: WATERMARK_DEFAULTS.keepExchanges,
      startRatio: WATERMARK_DEFAULTS.startRatio,
      dropLatestThinking: false,
    });
    expect(() => resolveWatermark({ startRatio: 0 })).toThrow(
      expect.objectContaining({ field: "watermark.startRatio" }),
    );
    expect(resolveWatermark(false)).toBeUndefined();
    expect(() => resolveWatermark({ keepExchanges: 0 })).toThrow(
      expect.objectContaining({ field: "watermark.keepExchanges" }),
    );
    expect(() => resolveWatermark({ dropLatestThinking: "yes" as never })).toThrow(
      expect.objectContaining({ field: "watermark.dropLatestThinking" }),
    );
    const off = assembleModelView(longTurn(6), null, {
      historyBudgetChars: BUDGET,
      cache: { ...MID_TURN, shown: [] },
      watermark: false,
    });
    expect(off.report.ledger.batch.reason).not.toBe("watermark");
  });
});
