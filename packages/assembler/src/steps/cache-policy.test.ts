import { describe, expect, it } from "vitest";
import {
  digestFor,
  documentPage,
  resultIndex,
  systemMessage,
  toolExchange,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { type AssembleOptions, assembleModelView } from "../assemble";
import { messageChars } from "../contract/message-chars";
import { DIGEST_HEADER } from "../contract/stubs";
import { InvalidOptionError } from "../errors";
import type { DigestEntry, DigestMap, Message } from "../types";
import { CACHE_DEFAULTS, CACHE_TARIFFS, expectedCallsOf, payingSuffix, resolveCache } from "./cache-policy";

const PAGE = 6_000;

function page(id: string, index: number): [Message, Message] {
  return toolExchange(
    id,
    "read_document",
    { file_id: "lease", offset: index * PAGE },
    documentPage("lease", index, PAGE),
  );
}

function digestOf(message: Message): DigestEntry {
  return digestFor(
    message.content,
    `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - page facts of ${String(message.content).slice(0, 24)}`,
  );
}

/** Turn 1 reads `pages` pages; turn 2 opens with a user message (the turn's first call). */
function twoTurns(pages: number): Message[] {
  return [
    systemMessage(),
    userMessage("Read the lease."),
    ...Array.from({ length: pages }, (_, index) => page(`p${index}`, index)).flat(),
    userMessage("Now list the rent terms."),
  ];
}

/** A digest row for every tool result before `end`. */
function digestsFor(messages: readonly Message[], end = messages.length): DigestMap {
  const rows = new Map<string, DigestEntry>();
  messages.slice(0, end).forEach((message) => {
    if (message.role === "tool") rows.set(message.toolCallId, digestOf(message));
  });
  return rows;
}

const keepOne: AssembleOptions = { recencyKeepExchanges: 1 };

describe("options.cache validation", () => {
  it.each([
    [{ turnStart: "yes" }, "cache.turnStart"],
    [{ turnStart: true, idleMs: -1 }, "cache.idleMs"],
    [{ turnStart: true, idleMs: Number.NaN }, "cache.idleMs"],
    [{ turnStart: true, lifetimeMs: 0 }, "cache.lifetimeMs"],
    [{ turnStart: true, expectedCalls: -2 }, "cache.expectedCalls"],
    [{ turnStart: true, provider: "gemini" }, "cache.provider"],
    [{ turnStart: true, shown: "c1" }, "cache.shown"],
    [{ turnStart: true, shown: [1] }, "cache.shown"],
    ["on", "cache"],
  ])("rejects %j naming %s", (cache, field) => {
    const call = () => assembleModelView(twoTurns(1), null, { cache: cache as never });
    expect(call).toThrow(InvalidOptionError);
    expect(call).toThrow(expect.objectContaining({ field }));
  });

  it("rejects a low-water ratio outside (0, 1]", () => {
    for (const lowWaterRatio of [0, 1.5, Number.NaN]) {
      expect(() => assembleModelView(twoTurns(1), null, { lowWaterRatio })).toThrow(
        expect.objectContaining({ field: "lowWaterRatio" }),
      );
    }
  });

  it("fills in the documented defaults", () => {
    const resolved = resolveCache({ turnStart: true, idleMs: CACHE_DEFAULTS.lifetimeMs - 1 });
    expect(resolved).toMatchObject({
      cold: false,
      shown: undefined,
      expectedCalls: undefined,
      prices: { read: CACHE_TARIFFS["anthropic-5m"].read, write: CACHE_TARIFFS["anthropic-5m"].write },
    });
    expect(resolveCache({ turnStart: true })?.cold).toBe(true);
    expect(resolveCache({ turnStart: true, idleMs: CACHE_DEFAULTS.lifetimeMs })?.cold).toBe(true);
    expect(resolveCache(false)).toBeUndefined();
  });
});

describe("the tariff", () => {
  it("prices the gate with the tariff the runtime declares, its lifetime by default", () => {
    for (const tariff of Object.keys(CACHE_TARIFFS) as (keyof typeof CACHE_TARIFFS)[]) {
      const { read, write, lifetimeMs } = CACHE_TARIFFS[tariff];
      expect(resolveCache({ turnStart: true, idleMs: lifetimeMs - 1, tariff })).toMatchObject({
        cold: false,
        prices: { read, write },
      });
      expect(resolveCache({ turnStart: true, idleMs: lifetimeMs, tariff })?.cold).toBe(true);
    }
  });

  it("reads a 1-hour Anthropic lifetime as the 1-hour tariff (writes at 2×)", () => {
    expect(resolveCache({ turnStart: true, idleMs: 0, lifetimeMs: 3_600_000 })?.prices).toEqual({
      read: 0.1,
      write: 2,
    });
    expect(resolveCache({ turnStart: true, idleMs: 0, provider: "openai" })?.prices).toEqual({
      read: 0.5,
      write: 1,
    });
  });

  it("a batch that pays at 1.25× does not at 2×", () => {
    // Saving 1,000 chars over 12 calls at 0.1 = 1,200; rewriting 1,000 chars: 1,150 at 1.25×, 1,900 at 2×.
    const candidates = [{ index: 10, saved: 1_000 }];
    const fiveMinutes = resolveCache({ turnStart: true, idleMs: 1_000, shown: [], tariff: "anthropic-5m" });
    const hour = resolveCache({ turnStart: true, idleMs: 1_000, shown: [], tariff: "anthropic-1h" });
    if (!fiveMinutes || !hour) throw new Error("fixture");
    expect(payingSuffix(candidates, () => 2_000, fiveMinutes)).toBe(0);
    expect(payingSuffix(candidates, () => 2_000, hour)).toBe(1);
  });

  it("rejects a tariff it does not know, naming the field", () => {
    expect(() => resolveCache({ turnStart: true, tariff: "anthropic-1d" as never })).toThrow(
      expect.objectContaining({ field: "cache.tariff" }),
    );
  });
});

describe("the cost gate", () => {
  const warm = resolveCache({ turnStart: true, idleMs: 1_000, shown: [] });
  if (!warm) throw new Error("fixture");

  it("lands the part whose saving over the expected calls beats the rewrite of what follows it", () => {
    // Saving 1,000 chars over 12 calls at 0.1 = 1,200; rewriting 1,000 chars at 1.15 = 1,150.
    const candidates = [
      { index: 0, saved: 100 },
      { index: 10, saved: 1_000 },
    ];
    const after = { 0: 100_000 + 1_000, 10: 2_000 } as Record<number, number>;
    expect(payingSuffix(candidates, (index) => after[index] as number, warm)).toBe(1);
    // Rewriting 1,100 chars costs 1,265: nothing pays.
    expect(payingSuffix(candidates, (index) => (after[index] as number) + 100, warm)).toBe(2);
  });

  it("counts, when the runtime does not say, the thread's own model calls per turn, at least the default", () => {
    const turn = (calls: number) => [
      userMessage("Go on."),
      ...Array.from({ length: calls }, (_, index) => page(`c${calls}_${index}`, index)).flat(),
    ];
    const thread = [systemMessage(), ...turn(20), ...turn(30), userMessage("Thanks.")];
    expect(expectedCallsOf(thread, thread.length - 1)).toBe(25);
    expect(expectedCallsOf(thread, 1 + 41)).toBe(20);
    const short = twoTurns(6);
    expect(expectedCallsOf(short, short.length - 1)).toBe(CACHE_DEFAULTS.expectedCalls);
    expect(expectedCallsOf(short, 2)).toBe(CACHE_DEFAULTS.expectedCalls);
  });

  it("lands nothing when no call is expected", () => {
    const none = resolveCache({ turnStart: true, idleMs: 1_000, shown: [], expectedCalls: 0 });
    expect(payingSuffix([{ index: 0, saved: 1_000 }], () => 1_000, none as never)).toBe(1);
  });
});

describe("cache-aware batches", () => {
  const thread = twoTurns(6);
  const digests = digestsFor(thread);

  it("lands everything without a cache context, and says the view is cache-unaware", () => {
    const { report } = assembleModelView(thread, digests, keepOne);
    expect(report.ledger.batch).toMatchObject({ status: "applied", reason: "cache-unaware", results: 5 });
    expect(report.ledger.condensedIds).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(report.ledger.entries[0]).toMatchObject({ toolCallId: "p0", kind: "digest", charsBefore: PAGE });
  });

  it("lands the whole batch on a cold turn start, and on a first call without history", () => {
    const cold = assembleModelView(thread, digests, { ...keepOne, cache: { turnStart: true, shown: [] } });
    expect(cold.report.ledger.batch).toMatchObject({ status: "applied", reason: "cold", results: 5 });
    const fresh = assembleModelView(thread, digests, { ...keepOne, cache: { turnStart: true, idleMs: 1 } });
    expect(fresh.report.ledger.batch).toMatchObject({ status: "applied", reason: "no-history", results: 5 });
    expect(fresh.messages).toEqual(cold.messages);
  });

  it("defers a warm batch that would not pay for the rewrite, and counts it in the ledger", () => {
    const { messages, report } = assembleModelView(thread, digests, {
      ...keepOne,
      cache: { turnStart: true, idleMs: 1_000, shown: [], expectedCalls: 1 },
    });
    expect(report.ledger.batch).toMatchObject({ status: "deferred", reason: "would-not-pay", results: 5 });
    expect(report.ledger.condensedIds).toEqual([]);
    expect(messages).toEqual(thread);
    expect(report.ledger.prefixKeptMessages).toBe(thread.length);
  });

  it("lands a warm batch that pays, and reports the prefix it keeps and the chars it invalidates", () => {
    const { messages, report } = assembleModelView(thread, digests, {
      ...keepOne,
      cache: { turnStart: true, idleMs: 1_000, shown: [] },
    });
    expect(report.ledger.batch).toMatchObject({ status: "applied", reason: "pays" });
    const first = resultIndex(thread, report.ledger.condensedIds[0] as string);
    expect(report.ledger.prefixKeptMessages).toBe(first);
    const tail = messages.slice(first).reduce((sum, message) => sum + String(message.content).length, 0);
    expect(report.ledger.invalidatedChars).toBeGreaterThanOrEqual(tail);
  });

  it("counts a batch's saving over the thread's own calls per turn when the runtime gives no expected calls", () => {
    // One digested page, then 30 small calls and the wall's page, all in one turn:
    // rewriting what follows the page does not pay over the default 12 calls, and pays
    // over the 32 calls of the thread's one turn.
    const busy: Message[] = [
      systemMessage(),
      userMessage("Read the lease and check the register."),
      ...page("p0", 0),
      ...Array.from({ length: 30 }, (_, index) =>
        toolExchange(`s${index}`, "search", { q: `${index}` }, "ok"),
      ).flat(),
      ...page("p1", 1),
      userMessage("Now list the rent terms."),
    ];
    const rows = digestsFor(busy, resultIndex(busy, "p0") + 1);
    const warm = { turnStart: true, idleMs: 1_000, shown: [] };
    const defaulted = assembleModelView(busy, rows, {
      ...keepOne,
      cache: { ...warm, expectedCalls: CACHE_DEFAULTS.expectedCalls },
    });
    expect(defaulted.report.ledger.batch).toMatchObject({ status: "deferred", reason: "would-not-pay" });
    const learned = assembleModelView(busy, rows, { ...keepOne, cache: warm });
    expect(learned.report.ledger.batch).toMatchObject({ status: "applied", reason: "pays", results: 1 });
    expect(learned.messages).toEqual(
      assembleModelView(busy, rows, { ...keepOne, cache: { ...warm, expectedCalls: 32 } }).messages,
    );
    // The same calls over three turns count fewer than 11 per turn, so the default's 12: not enough to pay.
    const threeTurns = [
      ...busy.slice(0, 20),
      userMessage("And the register."),
      ...busy.slice(20, 40),
      userMessage("Go on."),
      ...busy.slice(40),
    ];
    expect(expectedCallsOf(threeTurns, threeTurns.length - 1)).toBe(CACHE_DEFAULTS.expectedCalls);
    const spread = assembleModelView(threeTurns, rows, { ...keepOne, cache: warm });
    expect(spread.report.ledger.batch).toMatchObject({ status: "deferred", reason: "would-not-pay" });
  });

  it("lands a warm batch that does not pay only as far as the view must to stay within the budget", () => {
    const chars = (messages: readonly Message[]) =>
      messages.reduce((sum, message) => sum + messageChars(message), 0);
    const total = chars(thread);
    const cache = { turnStart: true, idleMs: 1_000, shown: [], expectedCalls: 0 };
    // Past the low-water mark (75 % of the budget) but within the budget: nothing lands,
    // and the backstop does not cut.
    const within = assembleModelView(thread, digests, { ...keepOne, historyBudgetChars: total + 1, cache });
    expect(within.report.ledger.batch).toMatchObject({ status: "deferred", reason: "would-not-pay" });
    expect(within.report.compaction.fired).toBe(false);
    expect(within.messages).toEqual(thread);
    // Over the budget by less than one page's saving: the latest candidate alone lands.
    const over = assembleModelView(thread, digests, { ...keepOne, historyBudgetChars: total - 1_000, cache });
    expect(over.report.ledger.batch).toMatchObject({ status: "applied", reason: "pays", results: 1 });
    expect(over.report.ledger.condensedIds).toEqual(["p4"]);
    expect(over.report.compaction.fired).toBe(false);
  });

  it("never lands a batch mid-turn: the view keeps what the previous call showed", () => {
    const grown = [...thread, ...page("q1", 20)];
    const { messages, report } = assembleModelView(grown, digests, {
      ...keepOne,
      cache: { turnStart: false, idleMs: 1_000, shown: ["p0"] },
    });
    expect(report.ledger.batch).toMatchObject({ status: "deferred", reason: "mid-turn", results: 4 });
    expect(report.ledger.condensedIds).toEqual(["p0"]);
    expect(messages[3]?.content).toBe(digests.get("p0")?.digest);
    expect(messages.slice(4)).toEqual(grown.slice(4));
  });

  it("reports nothing new when every digest is shown already", () => {
    const { report } = assembleModelView(thread, digests, {
      ...keepOne,
      cache: { turnStart: true, idleMs: 1_000, shown: ["p0", "p1", "p2", "p3", "p4"] },
    });
    expect(report.ledger.batch).toMatchObject({ status: "none", reason: "nothing-new", results: 0 });
    expect(report.ledger.prefixKeptMessages).toBe(thread.length);
    expect(report.ledger.invalidatedChars).toBe(0);
  });
});

describe("sticky condensations", () => {
  it("keeps a shown result condensed when the window now names it (a keep-rule would keep it raw)", () => {
    const thread = [
      ...twoTurns(4),
      toolExchange("s", "search", { q: "lease" }, "id: p0 mentions the rent")[0],
    ] as Message[];
    const mentioning: Message[] = [
      ...thread.slice(0, -1),
      { role: "assistant", content: "Per p0, the rent is set.", toolCalls: [] } as Message,
    ];
    const digests = digestsFor(thread);
    const unaware = assembleModelView(mentioning, digests, keepOne);
    expect(unaware.report.ledger.condensedIds).not.toContain("p0");
    const sticky = assembleModelView(mentioning, digests, {
      ...keepOne,
      cache: { turnStart: false, idleMs: 1_000, shown: ["p0", "p1"] },
    });
    expect(sticky.report.ledger.condensedIds).toEqual(["p0", "p1"]);
  });

  it("keeps an older copy condensed as it was when the document is re-read, rather than making it a duplicate stub", () => {
    const first = page("a", 0);
    const turn1 = [systemMessage(), userMessage("Read page 1."), ...first, ...page("b", 1), ...page("c", 2)];
    const reread: Message[] = [
      ...turn1,
      userMessage("Read page 1 again."),
      ...page("a2", 0),
      userMessage("Go on."),
    ];
    const digests = digestsFor(turn1);
    const unaware = assembleModelView(reread, digests, keepOne);
    expect(unaware.report.ledger.entries.find((entry) => entry.toolCallId === "a")?.kind).toBe("duplicate");
    const aware = assembleModelView(reread, digests, {
      ...keepOne,
      cache: { turnStart: true, idleMs: 1_000, shown: ["a"] },
    });
    expect(aware.report.ledger.entries.find((entry) => entry.toolCallId === "a")?.kind).toBe("digest");
    expect(aware.messages[resultIndex(reread, "a")]?.content).toBe(digests.get("a")?.digest);
  });

  it("decides inline stubs from evidence before the latest user message only", () => {
    const thread: Message[] = [
      systemMessage(),
      userMessage("Read page 1."),
      ...page("a", 0),
      ...page("b", 1),
      ...page("c", 2),
      userMessage("And again."),
      ...page("a2", 0),
    ];
    const unaware = assembleModelView(thread, null, { recencyKeepExchanges: 0 });
    expect(unaware.report.ledger.condensedIds).toEqual(["a"]);
    const aware = assembleModelView(thread, null, {
      recencyKeepExchanges: 0,
      cache: { turnStart: false, idleMs: 1_000, shown: [] },
    });
    expect(aware.report.ledger.condensedIds).toEqual([]);
    const nextTurn = assembleModelView([...thread, userMessage("Thanks.")], null, {
      recencyKeepExchanges: 0,
      cache: { turnStart: true, shown: [] },
    });
    expect(nextTurn.report.ledger.entries).toEqual([
      expect.objectContaining({ toolCallId: "a", kind: "duplicate", charsBefore: PAGE }),
    ]);
  });
});

describe("the ledger", () => {
  it("lists what the backstop condensed or dropped, and passes on cleaning's condensations only", () => {
    const thread = twoTurns(8);
    const digests = digestsFor(thread, resultIndex(thread, "p2") + 1);
    const { report } = assembleModelView(thread, digests, {
      ...keepOne,
      historyBudgetChars: 20_000,
      cache: { turnStart: true, shown: [] },
    });
    expect(report.compaction.fired).toBe(true);
    const kinds = new Map(report.ledger.entries.map((entry) => [entry.toolCallId, entry]));
    expect([...kinds.values()].some((entry) => entry.kind === "backstop")).toBe(true);
    for (const entry of report.ledger.entries) {
      expect(entry.charsAfter).toBeLessThan(entry.charsBefore);
      expect(report.ledger.condensedIds.includes(entry.toolCallId)).toBe(
        entry.kind !== "backstop" || digests.has(entry.toolCallId),
      );
    }
    expect(report.ledger.condensedIds).toEqual(["p0", "p1", "p2"]);
  });
});
