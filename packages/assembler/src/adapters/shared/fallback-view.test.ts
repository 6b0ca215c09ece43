import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { LanguageModelMiddleware } from "ai";
import { describe, expect, it } from "vitest";
import type { AssembleOptions } from "../../assemble";
import { contextCleanerMiddleware } from "../ai-sdk/middleware";
import { contextCleanerPreModelHook } from "../langchain/pre-model-hook";

const PAGES = 20;
const PAGE_CHARS = 60_000;
const BUDGET = 320_000;

function pageText(at: number): string {
  return (`Page ${at}: rent $${at},000. ` + "Clause text continues. ".repeat(3_000)).slice(0, PAGE_CHARS);
}

/** An AI SDK prompt of 1.2M chars: twenty page reads, then the user's next request. */
function prompt() {
  const messages: unknown[] = [{ role: "user", content: [{ type: "text", text: "Read the lease." }] }];
  for (let at = 0; at < PAGES; at++) {
    messages.push(
      {
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: `p${at}`,
            toolName: "read_document",
            input: { file_id: "lease", offset: at * PAGE_CHARS },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `p${at}`,
            toolName: "read_document",
            output: { type: "text", value: pageText(at) },
          },
        ],
      },
    );
  }
  messages.push({ role: "user", content: [{ type: "text", text: "Now summarise it." }] });
  return messages as Parameters<
    NonNullable<LanguageModelMiddleware["transformParams"]>
  >[0]["params"]["prompt"];
}

function charsOf(value: unknown): number {
  return JSON.stringify(value).length;
}

async function sent(config: Parameters<typeof contextCleanerMiddleware>[0]): Promise<number> {
  const middleware = contextCleanerMiddleware({ onError: () => {}, ...config });
  const params = await middleware.transformParams?.({
    params: { prompt: prompt() },
    type: "generate-text",
    model: {} as never,
  } as never);
  return charsOf(params?.prompt);
}

describe("an assembly error sends what the kill switch sends, never the raw thread", () => {
  it("AI SDK: a JSON store's ISO time is read, and a bad cache option or a throwing onReport sends the backstop's view", async () => {
    const raw = charsOf(prompt());
    expect(raw).toBeGreaterThan(1_200_000);
    const control = await sent({ options: { historyBudgetChars: BUDGET } });
    expect(control).toBeLessThan(BUDGET * 1.2);
    const at = new Date(Date.now() - 60_000);
    // The time as a JSON store gives it back: read as the Date it was.
    expect(
      await sent({
        options: { historyBudgetChars: BUDGET },
        lastCall: { at: at.toISOString(), condensedIds: [] },
      }),
    ).toBe(await sent({ options: { historyBudgetChars: BUDGET }, lastCall: { at, condensedIds: [] } }));
    const bad: AssembleOptions["cache"][] = [
      { turnStart: true, lifetimeMs: 0 },
      { turnStart: true, idleMs: -5_000 },
    ];
    for (const cache of bad) {
      const errors: unknown[] = [];
      const chars = await sent({
        options: { historyBudgetChars: BUDGET, cache },
        onError: (error) => errors.push(error),
      });
      expect(errors).toHaveLength(1);
      expect(chars).toBeLessThan(BUDGET * 1.2);
    }
    const throwing = await sent({
      options: {
        historyBudgetChars: BUDGET,
        onReport: () => {
          throw new Error("metrics sink down");
        },
      },
    });
    expect(throwing).toBe(control);
  });

  it("LangGraph pre-model hook: a bad cache option sends the backstop's view", async () => {
    const messages = [new HumanMessage("Read the lease.")];
    for (let at = 0; at < PAGES; at++) {
      messages.push(
        new AIMessage({
          content: "",
          tool_calls: [
            { id: `p${at}`, name: "read_document", args: { file_id: "lease", offset: at * PAGE_CHARS } },
          ],
        }) as never,
        new ToolMessage({ content: pageText(at), tool_call_id: `p${at}`, name: "read_document" }) as never,
      );
    }
    messages.push(new HumanMessage("Now summarise it."));
    const errors: unknown[] = [];
    const hook = contextCleanerPreModelHook({
      loadDigests: async () => null,
      options: { historyBudgetChars: BUDGET, cache: { turnStart: true, lifetimeMs: 0 } },
      onError: (error) => {
        errors.push(error);
      },
    });
    const { llmInputMessages } = await hook({ messages }, { configurable: { thread_id: "t-1" } });
    expect(errors).toHaveLength(1);
    const chars = llmInputMessages.reduce((sum, message) => sum + String(message.content).length, 0);
    expect(chars).toBeLessThan(BUDGET * 1.2);
  });
});
