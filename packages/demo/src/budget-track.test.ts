import { BUDGET_DEFAULTS, type DigestMap, type Message } from "@context-cleaner/assembler";
import { contentSha256 } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { BudgetTrack } from "./budget-track";

const PAGE = 50_000;
const page = (index: number) => `page ${index} `.padEnd(PAGE, "x");

function read(index: number): Message[] {
  const id = `call_${index}`;
  return [
    {
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "read_document", args: { file_id: `d${index}`, offset: 0 } }],
    },
    { role: "tool", toolCallId: id, toolName: "read_document", content: page(index) },
  ];
}

/** Ten 50,000-char reads in turn 1, then the user's next message. */
const turnOne: Message[] = [
  { role: "system", content: "s" },
  { role: "user", content: "read them" },
  ...Array.from({ length: 10 }, (_, index) => read(index)).flat(),
  { role: "user", content: "now the rest" },
];

/** A digest of 1,000 chars for each of the first seven reads (outside the recency wall). */
const digests: DigestMap = new Map(
  Array.from({ length: 7 }, (_, index) => [
    `call_${index}`,
    { digest: "d".repeat(1_000), digestChars: 1_000, contentSha256: contentSha256(page(index)) },
  ]),
);

function play(track: BudgetTrack, turnTwoDigests: DigestMap, shown?: readonly string[]) {
  const events = [];
  for (const message of turnOne) track.append(message, new Map());
  for (let index = 10; index < 14; index++) {
    for (const message of read(index)) {
      const event = track.append(message, turnTwoDigests, shown);
      if (event) events.push(event);
    }
  }
  return events;
}

describe("BudgetTrack", () => {
  it("blind accounting cuts every result once 600,000 raw tool chars are spent", () => {
    const track = new BudgetTrack("blind");
    const events = play(track, digests);
    // 500,000 after turn one: results 11 and 12 fit, 13 and 14 arrive with 600,000 spent.
    expect(events.map((event) => event.budgetCut)).toEqual([false, false, true, true]);
    const last = track.messages.at(-1) as Message;
    expect(String(last.content).startsWith(page(13).slice(0, BUDGET_DEFAULTS.overBudgetResultChars))).toBe(
      true,
    );
    expect(String(last.content)).toContain("the conversation's tool budget is spent");
    expect(track.rawChars()).toBeLessThan(610_000);
  });

  it("effective accounting counts digest chars for digested results, so nothing is cut", () => {
    const track = new BudgetTrack("effective");
    const events = play(track, digests);
    expect(events.every((event) => !event.budgetCut)).toBe(true);
    expect(track.rawChars()).toBe(14 * PAGE);
    // 7 digests of 1,000 chars, 7 raw results (3 in the recency wall, 4 of turn two).
    expect(track.usedChars(digests)).toBe(7 * 1_000 + 7 * PAGE);
  });

  it("effective accounting counts raw the digested results the view did not show condensed (a deferred batch)", () => {
    const track = new BudgetTrack("effective");
    // The view showed only the first condensed: the other six rows wait for their batch.
    const events = play(track, digests, ["call_0"]);
    // Only call_0 counts its digest; the cut result counts what the checkpoint holds of it.
    expect(track.usedChars(digests, ["call_0"])).toBe(track.rawChars() - (PAGE - 1_000));
    // 451,000 counted after turn one; results 11 to 13 fit, 14 arrives with 601,000 counted and is cut.
    expect(events.map((event) => event.budgetCut)).toEqual([false, false, false, true]);
  });

  it("effective accounting without digests is blind accounting", () => {
    const blind = play(new BudgetTrack("blind"), new Map());
    const effective = play(new BudgetTrack("effective"), new Map());
    expect(effective).toEqual(blind);
  });

  it("condenses a result over the budget at arrival by default, keeping its figures", () => {
    const track = new BudgetTrack("blind");
    const dense = (index: number) =>
      `ARTICLE ${index}\nThe Borrower shall not incur Debt above $${index},250,000.00 after March 31, 2026.\n`.padEnd(
        PAGE,
        "x",
      );
    for (const message of turnOne) track.append(message, new Map());
    const events = [];
    for (let index = 10; index < 14; index++) {
      const [call, result] = read(index) as [Message, Message & { role: "tool" }];
      track.append(call, new Map());
      events.push(track.append({ ...result, content: dense(index) }, new Map()));
    }
    expect(events.map((event) => event?.condensed)).toEqual([false, false, true, true]);
    expect(events.map((event) => event?.budgetCut)).toEqual([false, false, true, true]);
    const last = String((track.messages.at(-1) as Message).content);
    expect(last).toMatch(
      /^\[Condensed at arrival by context-cleaner: the conversation's tool budget is spent/,
    );
    expect(last).toContain("figures verbatim: ARTICLE 13; $13,250,000.00; March 31, 2026");
    expect(events.at(-1)?.removedChars).toBe(PAGE);
  });

  it("cuts a result over the budget under overBudget: cut", () => {
    const track = new BudgetTrack("blind", "cut");
    for (const message of [...turnOne, ...read(10), ...read(11)]) track.append(message, new Map());
    const [call, result] = read(12) as [Message, Message];
    track.append(call, new Map());
    const event = track.append({ ...result, content: `ARTICLE 2 $2,250,000.00 ${page(12)}` }, new Map());
    expect(event).toMatchObject({ budgetCut: true, condensed: false, removedChars: PAGE + 24 - 2_000 });
  });

  it("no accounting records every result whole", () => {
    const track = new BudgetTrack("none");
    expect(play(track, new Map())).toEqual([]);
    expect(track.rawChars()).toBe(14 * PAGE);
  });
});
