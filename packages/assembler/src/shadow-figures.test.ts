import { describe, expect, it } from "vitest";
import { loadFixtures } from "#test/repo/fixtures/load-fixtures";
import { assembleModelView } from "./assemble";
import { contentText } from "./content";
import { extractFigures } from "./contract/figures";
import { validateOrgPolicy } from "./org-policy";
import { keptFiguresOf, SHADOW_FIGURE_SCAN_CHARS, SHADOW_KEPT_FIGURES_LIMIT } from "./shadow-figures";
import type { Message } from "./types";

const result = (toolCallId: string, content: string): Message => ({
  role: "tool",
  toolCallId,
  toolName: "read_document",
  content,
});

/** An extractor that records every text it reads. */
function observed() {
  const read: string[] = [];
  return {
    read,
    extract: (text: string) => {
      read.push(text);
      return extractFigures(text);
    },
  };
}

/** The definition, read the long way: every figure of the view sent, then each cut result's. */
function reference(cleaned: readonly Message[], sent: readonly Message[], cut: ReadonlySet<string>) {
  const shown = new Set<string>();
  for (const message of sent) {
    for (const figure of extractFigures(contentText(message.content))) shown.add(figure);
    if (message.role === "assistant" && message.toolCalls && message.toolCalls.length > 0) {
      for (const figure of extractFigures(JSON.stringify(message.toolCalls.map((each) => each.args)))) {
        shown.add(figure);
      }
    }
  }
  const kept: { figure: string; toolCallId: string }[] = [];
  const seen = new Set<string>();
  for (const message of cleaned) {
    if (message.role !== "tool" || !cut.has(message.toolCallId)) continue;
    for (const figure of extractFigures(contentText(message.content))) {
      if (seen.has(figure)) continue;
      seen.add(figure);
      if (!shown.has(figure)) kept.push({ figure, toolCallId: message.toolCallId });
    }
  }
  return kept;
}

const copies = (messages: readonly Message[]): Message[] => JSON.parse(JSON.stringify(messages));

/** Five cut results of 6,000 chars, each with two figures of its own, and a view sent without them. */
function fiveResults() {
  const cleaned = Array.from({ length: 5 }, (_, index) => {
    const head = `Rent of $${index + 1},000,000 is due under Section ${index + 1}.2. `;
    return result(`r${index}`, head + "x".repeat(6_000 - head.length));
  });
  const sent: Message[] = [{ role: "user", content: "What is the rent?" }];
  return {
    cleaned,
    sent,
    cut: new Set(cleaned.map((message) => (message as { toolCallId: string }).toolCallId)),
  };
}

/** The chars of the cut results (as `cleaned` shows them) an extractor was given. */
const charsOf = (read: readonly string[], cleaned: readonly Message[], cut: ReadonlySet<string>) => {
  const texts = new Set(
    cleaned
      .filter((message) => message.role === "tool" && cut.has(message.toolCallId))
      .map((message) => contentText(message.content)),
  );
  return read.filter((text) => texts.has(text)).reduce((sum, text) => sum + text.length, 0);
};

describe("keptFiguresOf: the bound on what one call reads", () => {
  it("reads cut results in thread order until the next would pass maxScanChars, and says the count is a lower bound", () => {
    const { cleaned, sent, cut } = fiveResults();
    const { read, extract } = observed();
    const kept = keptFiguresOf(cleaned, sent, cut, { maxScanChars: 15_000, extract });
    expect(charsOf(read, cleaned, cut)).toBe(12_000);
    expect(kept).toEqual({
      keptFigures: reference(cleaned.slice(0, 2), sent, cut),
      keptFigureCount: 4,
      keptFiguresComplete: false,
    });
    expect(reference(cleaned, sent, cut)).toHaveLength(10);
  });

  it("reads every result when they fit, exactly at the bound", () => {
    const { cleaned, sent, cut } = fiveResults();
    const { read, extract } = observed();
    const kept = keptFiguresOf(cleaned, sent, cut, { maxScanChars: 30_000, extract });
    expect(charsOf(read, cleaned, cut)).toBe(30_000);
    expect(kept).toMatchObject({ keptFigureCount: 10, keptFiguresComplete: true });
  });

  it("answers the same whether the results were read before or not", () => {
    const { cleaned, sent, cut } = fiveResults();
    const first = keptFiguresOf(cleaned, sent, cut, { maxScanChars: 12_000 });
    const { read, extract } = observed();
    const again = keptFiguresOf(cleaned, sent, cut, { maxScanChars: 12_000, extract });
    expect(read).toEqual([]);
    expect(again).toEqual(first);
    expect(again).toMatchObject({ keptFigureCount: 4, keptFiguresComplete: false });
    expect(keptFiguresOf(copies(cleaned), copies(sent), cut, { maxScanChars: 12_000 })).toEqual(first);
  });

  it("reads nothing past a first result longer than the bound", () => {
    const { cleaned, sent, cut } = fiveResults();
    const { read, extract } = observed();
    expect(keptFiguresOf(cleaned, sent, cut, { maxScanChars: 5_999, extract })).toEqual({
      keptFigures: [],
      keptFigureCount: 0,
      keptFiguresComplete: false,
    });
    expect(read).toEqual([]);
  });

  it.each(loadFixtures().map((fixture) => [fixture.name, fixture] as const))(
    "finds what reading every figure of both views finds, unbounded, and a prefix of it bounded: %s",
    (_, fixture) => {
      const on = assembleModelView(copies(fixture.messages), null, { disabled: false });
      const off = assembleModelView(copies(fixture.messages), null, { disabled: true });
      const cut = new Set(
        off.report.ledger.entries
          .filter((entry) => entry.kind === "backstop")
          .map((entry) => entry.toolCallId),
      );
      expect(cut.size).toBeGreaterThan(0);
      const expected = reference(on.messages, off.messages, cut);
      expect(
        keptFiguresOf(copies(on.messages), copies(off.messages), cut, {
          maxScanChars: Number.POSITIVE_INFINITY,
        }),
      ).toEqual({
        keptFigures: expected.slice(0, SHADOW_KEPT_FIGURES_LIMIT),
        keptFigureCount: expected.length,
        keptFiguresComplete: true,
      });
      // Over 200,000 chars of cut results: the default bound stops the first call short.
      const { read, extract } = observed();
      const bounded = keptFiguresOf(copies(on.messages), copies(off.messages), cut, { extract });
      expect(charsOf(read, on.messages, cut)).toBeLessThanOrEqual(SHADOW_FIGURE_SCAN_CHARS);
      expect(bounded.keptFiguresComplete).toBe(false);
      expect(bounded.keptFigureCount).toBeLessThan(expected.length);
      expect(bounded.keptFigureCount).toBeGreaterThanOrEqual(SHADOW_KEPT_FIGURES_LIMIT);
      expect(bounded.keptFigures).toEqual(expected.slice(0, SHADOW_KEPT_FIGURES_LIMIT));
    },
  );

  it("a shadow report of a long thread's first call says its count is a lower bound", () => {
    const [fixture] = loadFixtures();
    const messages = copies(fixture?.messages ?? []);
    const shadow = assembleModelView(messages, null, {
      disabled: false,
      orgPolicy: validateOrgPolicy({ mode: "shadow" }),
    });
    expect(shadow.report.shadow).toMatchObject({ keptFiguresComplete: false });
    expect(shadow.report.shadow?.keptFigures).toHaveLength(SHADOW_KEPT_FIGURES_LIMIT);
  });
});
