import { describe, expect, it } from "vitest";
import { type AssembleOptions, assembleModelView } from "../assemble";
import { contentSha256 } from "../contract/hash";
import { DIGEST_HEADER } from "../contract/stubs";
import type { DigestEntry, DigestMap, Message } from "../types";
import type { CacheContext } from "./cache-policy";

const BUDGET = 100_000;

function page(file: string, offset: number): string {
  const head = `ARTICLE ${offset / 20_000 + 1}\nDocument ${file} from ${offset}: rent $${(offset + 1_250).toLocaleString("en-US")}; §${offset / 20_000 + 4}.2 applies. `;
  return (head + "Clause text continues. ".repeat(900)).slice(0, 20_000);
}

function reading(id: string, file: string, offset: number): Message[] {
  return [
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "read_document", args: { file_id: file, offset } }],
    },
    { role: "tool", toolCallId: id, toolName: "read_document", content: page(file, offset) },
  ];
}

/** An earlier turn that read a schedule, then a turn reading the lease `pages` pages in. */
function thread(pages: number): Message[] {
  return [
    { role: "user", content: "Read the rent schedule." },
    ...reading("q0", "schedule_2", 20_000),
    { role: "assistant", content: "Read it." },
    { role: "user", content: "Now read the whole lease." },
    ...Array.from({ length: pages }, (_, at) => reading(`p${at}`, "lease_7", at * 20_000)).flat(),
  ];
}

/** A worker's row for a result of `messages`. */
function rowFor(messages: readonly Message[], toolCallId: string): DigestEntry {
  const result = messages.find((message) => message.role === "tool" && message.toolCallId === toolCallId);
  if (result?.role !== "tool") throw new Error(`no result ${toolCallId}`);
  const digest = `${DIGEST_HEADER}\nworker digest of ${toolCallId}: rent and clauses`;
  return { digest, contentSha256: contentSha256(result.content), digestChars: digest.length };
}

/** Plays the turn's calls from `pages` pages on, each with the previous call's ledger, as an integration does. */
function play(fromPages: number, toPages: number, midTurnDigests?: (call: number) => DigestMap | undefined) {
  const views: ReturnType<typeof assembleModelView>[] = [];
  let previous: ReturnType<typeof assembleModelView> | undefined;
  for (let pages = fromPages; pages <= toPages; pages++) {
    const rows = midTurnDigests?.(pages);
    const cache: CacheContext = {
      turnStart: false,
      idleMs: 60_000,
      expectedCalls: 0,
      shown: previous?.report.ledger.condensedIds ?? [],
      ...(previous ? { sent: previous.report.ledger.sent } : {}),
      ...(rows ? { midTurnDigests: rows } : {}),
    };
    const options: AssembleOptions = { historyBudgetChars: BUDGET, cache };
    previous = assembleModelView(thread(pages), null, options);
    views.push(previous);
  }
  return views;
}

describe("rows that arrive mid-turn", () => {
  it("condense a raw result only through a watermark batch, and never change what an earlier call sent", () => {
    const full = thread(12);
    // Rows the worker wrote after the first call: for p5, shown raw then, and the earlier turn's q0.
    const arrived: DigestMap = new Map([
      ["p5", rowFor(full, "p5")],
      ["q0", rowFor(full, "q0")],
    ]);
    const views = play(6, 12, (pages) => (pages > 6 ? arrived : undefined));
    const landed = views.map((view) => view.report.ledger.batch.status === "applied");
    const next = landed.indexOf(true, 1);
    expect(landed[0]).toBe(true);
    // Some calls after the rows arrived, before the view passes the high water again.
    expect(next).toBeGreaterThan(2);
    // Until then each call appends to the one before: p5 and q0 stay raw, though their rows are in.
    for (let call = 1; call < next; call++) {
      const before = views[call - 1] as (typeof views)[number];
      expect((views[call] as (typeof views)[number]).messages.slice(0, before.messages.length)).toEqual(
        before.messages,
      );
    }
    const first = views[0] as (typeof views)[number];
    const last = views[next] as (typeof views)[number];
    // The call past the high water lands its batch: p5 as the worker's row, the later pages
    // condensed here; the earlier condensations keep their text and q0 stays raw.
    const at = (view: typeof last, id: string) =>
      view.messages.find((message) => message.role === "tool" && message.toolCallId === id)?.content;
    expect(at(last, "p5")).toBe(arrived.get("p5")?.digest);
    expect(at(last, "q0")).toBe(page("schedule_2", 20_000));
    expect(String(at(last, "p6")).startsWith(DIGEST_HEADER)).toBe(true);
    expect(at(last, "p6")).not.toContain("worker digest");
    for (const id of first.report.ledger.condensedIds) expect(at(last, id)).toBe(at(first, id));
    const kinds = new Map(last.report.ledger.entries.map((entry) => [entry.toolCallId, entry.kind]));
    expect(kinds.get("p5")).toBe("digest");
    expect(kinds.get("p6")).toBe("condensed");
  });

  it("never rewrite a result the view already shows condensed (the turn's own rows win, the integration leaves shown ids out)", () => {
    const full = thread(7);
    // A row for p0, which the first call's batch condensed: given at the turn's start as the
    // extractive form would not be, it wins over a different mid-turn row for the same id.
    const start: DigestMap = new Map([["p0", rowFor(full, "p0")]]);
    const other: DigestEntry = {
      ...rowFor(full, "p0"),
      digest: `${DIGEST_HEADER}\nanother text`,
      digestChars: 30,
    };
    const first = assembleModelView(thread(6), start, {
      historyBudgetChars: BUDGET,
      cache: { turnStart: false, idleMs: 60_000, expectedCalls: 0, shown: [] },
    });
    const second = assembleModelView(thread(7), start, {
      historyBudgetChars: BUDGET,
      cache: {
        turnStart: false,
        idleMs: 60_000,
        expectedCalls: 0,
        shown: first.report.ledger.condensedIds,
        sent: first.report.ledger.sent,
        midTurnDigests: new Map([["p0", other]]),
      },
    });
    expect(second.messages.slice(0, first.messages.length)).toEqual(first.messages);
  });

  it("refuse a value that is not a Map", () => {
    expect(() =>
      assembleModelView(thread(2), null, {
        cache: { turnStart: false, midTurnDigests: {} as DigestMap },
      }),
    ).toThrow(/midTurnDigests must be a Map/);
  });
});
