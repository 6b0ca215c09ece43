import type Anthropic from "@anthropic-ai/sdk";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import type { ModelMessage } from "ai";
import { describe, expect, it } from "vitest";
import {
  anthropicPairingProblems,
  programmaticRunProblems,
} from "#test/assembler/fixtures/anthropic-pairing";
import {
  aiSdkEvents,
  anthropicEvents,
  langChainEvents,
  type PairingExtras,
  type PairingSpec,
  pairingProblems,
  renderAiSdkPairing,
  renderAnthropicPairing,
  renderLangChainPairing,
} from "#test/assembler/fixtures/pairing-thread";
import { digestsFor, pageText, type StepSpec } from "#test/assembler/fixtures/provider-thread";
import type { AssembleOptions } from "../assemble";
import type { Message } from "../types";
import { aiSdkToNeutral, assembleAiSdkPrompt } from "./ai-sdk/prompt-adapter";
import { anthropicToNeutral, assembleAnthropicView } from "./anthropic/anthropic-adapter";
import { assembleLangChainView, fromLangChain } from "./langchain/langchain-adapter";

const read = (file: string, page: number) => ({
  tool: "read_document",
  args: { file_id: file, offset: page * 1_200 },
  result: pageText(file, page * 1_200),
  error: false,
  blocks: false,
});

/** Two earlier turns of paged reads, the latest turn mid-loop: history the backstop cuts into. */
function specWith(extras: Partial<PairingExtras>): PairingSpec {
  const exchange = (file: string, page: number): StepSpec => ({
    kind: "exchange",
    text: "Let me read that.",
    calls: [read(file, page)],
    note: null,
  });
  return {
    steps: [
      { kind: "user", text: "Review the lease.", blocks: false },
      exchange("lease_77", 0),
      exchange("lease_77", 1),
      { kind: "answer", text: "Done." },
      { kind: "user", text: "Now the NDA.", blocks: false },
      exchange("cd_9f2", 0),
      exchange("cd_9f2", 1),
      { kind: "answer", text: "Done." },
      { kind: "user", text: "Compare them.", blocks: false },
      exchange("lease_77", 0),
    ],
    extras: [{ thinking: false, server: "none", approval: false, programmatic: false, ...extras }],
  };
}

/** Budgets from far below the thread's size up to it, each with a wall of 0 and 1 exchanges, digests or none, long or short snippets. */
function* tightOptions(neutral: readonly Message[]): Generator<AssembleOptions & { digests: boolean }> {
  const total = JSON.stringify(neutral).length;
  for (let budget = 150; budget < total; budget = Math.ceil(budget * 1.15)) {
    for (const recencyKeepExchanges of [0, 1]) {
      for (const digests of [false, true]) {
        // Short snippets make dropping a small message pay, so a cut can fall between any two units.
        for (const snippetChars of [300, 20])
          yield { historyBudgetChars: budget, recencyKeepExchanges, snippetChars, digests };
      }
    }
  }
}

/** Runs `check` over every tight option; returns how many views the backstop cut. */
function sweep(
  neutral: readonly Message[],
  check: (options: AssembleOptions, digests: ReturnType<typeof digestsFor> | null) => boolean,
): number {
  let compacted = 0;
  for (const { digests, ...options } of tightOptions(neutral)) {
    if (check(options, digests ? digestsFor(neutral, () => true) : null)) compacted++;
  }
  return compacted;
}

describe("pairing through the Anthropic adapter", () => {
  it("keeps thinking blocks byte-identical in their message up to the view's first change, and leaves out every one after it", () => {
    const thread = renderAnthropicPairing(specWith({ thinking: true }));
    const snapshot = JSON.stringify(thread);
    const isThinking = (block: { type: string }) => block.type.endsWith("thinking");
    const thinkingBlocks = new Set(
      thread.flatMap((message) => (Array.isArray(message.content) ? message.content.filter(isThinking) : [])),
    );
    expect(thinkingBlocks.size).toBe(10);
    /** The blocks of a message the prefix check compares, thinking and breakpoints aside. */
    const visible = (content: readonly Anthropic.ContentBlockParam[]) =>
      content.filter((block) => !isThinking(block)).map((block) => ({ ...block, cache_control: undefined }));
    let stripped = 0;
    const compacted = sweep(anthropicToNeutral(thread), (options, digests) => {
      const { messages, report } = assembleAnthropicView(thread, digests, options);
      expect(anthropicPairingProblems(messages)).toEqual([]);
      let thinkingGone = false;
      for (const message of messages) {
        if (message.role !== "assistant" || typeof message.content === "string") continue;
        const source = thread.find(
          (input) =>
            input.role === "assistant" &&
            Array.isArray(input.content) &&
            JSON.stringify(visible(input.content)) ===
              JSON.stringify(visible(message.content as Anthropic.ContentBlockParam[])),
        );
        // An assistant message is the input's (or a copy carrying a breakpoint), with all its
        // thinking blocks as the very objects, or without any of them; once one went, every
        // later one did.
        expect(source).toBeDefined();
        const sourceThinking = (source as { content: Anthropic.ContentBlockParam[] }).content.filter(
          isThinking,
        );
        const sentThinking = message.content.filter(isThinking);
        if (sentThinking.length === 0 && sourceThinking.length > 0) {
          thinkingGone = true;
          stripped++;
          continue;
        }
        // The latest assistant message of a tool loop under way goes as it came even then
        // (a cache-unaware view can change history mid-loop; the report says so).
        if (thinkingGone) {
          expect(message).toBe(messages.findLast((each) => each.role === "assistant"));
          expect(report.ledger.thinking.latestInvalidated).toBe(true);
        }
        expect(sentThinking).toHaveLength(sourceThinking.length);
        sentThinking.forEach((block, at) => {
          expect(block).toBe(sourceThinking[at]);
        });
        expect(message.content).toHaveLength((source as Anthropic.MessageParam).content.length);
      }
      return report.compaction.fired;
    });
    expect(compacted).toBeGreaterThan(10);
    expect(stripped).toBeGreaterThan(10);
    expect(JSON.stringify(thread)).toBe(snapshot);
  });

  /** A thread whose turn ended on the latest assistant message, a new user message after it; and one mid-loop. */
  function latestAssistantThreads(): [Anthropic.MessageParam[], Anthropic.MessageParam][] {
    const midLoop = renderAnthropicPairing(specWith({ thinking: true }));
    const latest: Anthropic.MessageParam = {
      role: "assistant",
      content: [
        { type: "thinking", thinking: "Both leases allow assignment.", signature: "sig-latest-EqQBCgIYAh" },
        { type: "text", text: "Both allow assignment with consent." },
      ],
    };
    const ended = [...midLoop.slice(0, -2), latest, { role: "user", content: "And the rent?" } as const];
    return [
      [ended, latest],
      [midLoop, midLoop.at(-2) as Anthropic.MessageParam],
    ];
  }

  it("never drops the latest assistant message, whatever the budget and the wall, and sends it as it came mid-loop", () => {
    for (const [thread, latest] of latestAssistantThreads()) {
      expect(latest.role).toBe("assistant");
      const midLoop = thread.at(-1)?.role !== "user" || typeof thread.at(-1)?.content !== "string";
      const text = JSON.stringify(
        (latest.content as Anthropic.ContentBlockParam[]).filter((block) => block.type === "text"),
      );
      const compacted = sweep(anthropicToNeutral(thread), (options, digests) => {
        const view = assembleAnthropicView(thread, digests, { ...options, cacheBreakpoints: false });
        if (midLoop) expect(view.messages).toContain(latest);
        else
          expect(
            view.messages.some(
              (message) =>
                message === latest ||
                (message.role === "assistant" && JSON.stringify(message.content) === text),
            ),
          ).toBe(true);
        return view.report.compaction.fired;
      });
      expect(compacted).toBeGreaterThan(10);
    }
  });

  it("never puts a cache breakpoint on the latest assistant message: the message before it takes the prefix's", () => {
    const [[thread, latest]] = latestAssistantThreads() as [
      [Anthropic.MessageParam[], Anthropic.MessageParam],
    ];
    const { messages, cacheBreakpoints } = assembleAnthropicView(thread, null);
    expect(messages).toContain(latest);
    const at = thread.indexOf(latest);
    expect(cacheBreakpoints).toEqual([
      { message: at - 1, block: 0, kind: "prefix" },
      { message: thread.length - 1, block: 0, kind: "end" },
    ]);
    // A request that ends on the latest assistant message (a prefill, a paused turn's
    // continuation) sends it as it came; the end breakpoint goes on the user message before
    // it, so each continuation reads that message from the cache, the prefix's before it.
    const paused = thread.slice(0, at + 1);
    const prefill = assembleAnthropicView(paused, null);
    expect(prefill.messages.at(-1)).toBe(latest);
    expect(paused[at - 1]?.role).toBe("user");
    expect(prefill.cacheBreakpoints).toEqual([
      { message: at - 2, block: 0, kind: "prefix" },
      { message: at - 1, block: 0, kind: "end" },
    ]);
    expect(prefill.messages[at - 1]?.content).toEqual([
      { type: "text", text: paused[at - 1]?.content, cache_control: { type: "ephemeral" } },
    ]);
  });

  it("keeps a server_tool_use and its web_search_tool_result together, in one message or over a paused turn's two", () => {
    for (const server of ["same", "split"] as const) {
      const thread = renderAnthropicPairing(specWith({ server, thinking: server === "split" }));
      const compacted = sweep(anthropicToNeutral(thread), (options, digests) => {
        const { messages, report } = assembleAnthropicView(thread, digests, options);
        expect(pairingProblems(messages.map(anthropicEvents))).toEqual([]);
        expect(anthropicPairingProblems(messages)).toEqual([]);
        return report.compaction.fired;
      });
      expect(compacted).toBeGreaterThan(10);
    }
  });
});

/**
 * A code-execution run calling a client tool programmatically, page by page, each call in
 * an assistant message of its own carrying `caller`; the run's result comes after the last
 * page unless `underWay`.
 */
function programmaticRun(serverId: string, pages: number, underWay = false): Anthropic.MessageParam[] {
  const caller = { type: "code_execution_20250825" as const, tool_id: serverId };
  const call = (page: number): Anthropic.ToolUseBlockParam => ({
    type: "tool_use",
    id: `${serverId}_page_${page}`,
    name: "read_document",
    input: { file_id: "lease_77", offset: page * 1_200 },
    caller,
  });
  const result = (page: number): Anthropic.MessageParam => ({
    role: "user",
    content: [
      {
        type: "tool_result",
        tool_use_id: `${serverId}_page_${page}`,
        content: pageText("lease_77", page * 1_200, 2_000),
      },
    ],
  });
  const run: Anthropic.MessageParam[] = [
    {
      role: "assistant",
      content: [
        { type: "server_tool_use", id: serverId, name: "code_execution", input: { code: "sum(rents)" } },
        call(0),
      ],
    },
    result(0),
  ];
  for (let page = 1; page < pages; page++)
    run.push({ role: "assistant", content: [call(page)] }, result(page));
  if (!underWay)
    run.push({
      role: "assistant",
      content: [
        {
          type: "code_execution_tool_result",
          tool_use_id: serverId,
          content: { type: "code_execution_result", stdout: "3", stderr: "", return_code: 0, content: [] },
        },
        { type: "text", text: "The rents sum to 3." },
      ],
    });
  return run;
}

describe("pairing of programmatic tool calls", () => {
  it("carries a tool_use's caller into its neutral call", () => {
    const neutral = anthropicToNeutral([
      { role: "user", content: "Sum the rents." },
      ...programmaticRun("srvtoolu_1", 2),
    ]);
    const calls = neutral.flatMap((message) =>
      message.role === "assistant" ? (message.toolCalls ?? []) : [],
    );
    expect(calls.map((call) => [call.id, call.issuedBy])).toEqual([
      ["srvtoolu_1_page_0", "srvtoolu_1"],
      ["srvtoolu_1_page_1", "srvtoolu_1"],
    ]);
    // A direct call names no caller.
    const direct = anthropicToNeutral([
      {
        role: "assistant",
        content: [{ type: "tool_use", id: "c1", name: "read", input: {}, caller: { type: "direct" } }],
      },
    ]);
    expect(direct[0]).toEqual({
      role: "assistant",
      content: [],
      toolCalls: [{ id: "c1", name: "read", args: {} }],
    });
  });

  it("keeps a code-execution run whole: the server call, the calls it issues over several messages, their results and its result", () => {
    const history = renderAnthropicPairing(specWith({}));
    const threads: [string, Anthropic.MessageParam[], boolean][] = [
      [
        "the run alone",
        [
          { role: "user", content: "Sum the rents." },
          ...programmaticRun("srvtoolu_1", 2),
          { role: "user", content: "Thanks." },
        ],
        true,
      ],
      [
        "the run before later turns",
        [{ role: "user", content: "Sum the rents." }, ...programmaticRun("srvtoolu_1", 3), ...history],
        true,
      ],
      [
        "a run under way",
        [...history, { role: "user", content: "Sum the rents." }, ...programmaticRun("srvtoolu_1", 3, true)],
        false,
      ],
    ];
    for (const [name, thread, ended] of threads) {
      const compacted = sweep(anthropicToNeutral(thread), (options, digests) => {
        const { messages, report } = assembleAnthropicView(thread, digests, options);
        expect(programmaticRunProblems(thread, messages), name).toEqual([]);
        expect(anthropicPairingProblems(messages), name).toEqual([]);
        if (ended) expect(pairingProblems(messages.map(anthropicEvents)), name).toEqual([]);
        return report.compaction.fired;
      });
      expect(compacted, name).toBeGreaterThan(10);
    }
  });
});

describe("pairing through the AI SDK adapter", () => {
  it("keeps a tool-approval request and response with their call, whatever the backstop cuts", () => {
    const thread = renderAiSdkPairing(specWith({ approval: true }));
    const compacted = sweep(aiSdkToNeutral(thread), (options, digests) => {
      const { messages, report } = assembleAiSdkPrompt(thread, digests, options);
      expect(pairingProblems(messages.map(aiSdkEvents))).toEqual([]);
      return report.compaction.fired;
    });
    expect(compacted).toBeGreaterThan(10);
  });

  it("keeps a provider-executed call and its result together, in one message or over two", () => {
    for (const server of ["same", "split"] as const) {
      const thread = renderAiSdkPairing(specWith({ server }));
      const compacted = sweep(aiSdkToNeutral(thread), (options, digests) => {
        const { messages, report } = assembleAiSdkPrompt(thread, digests, options);
        expect(pairingProblems(messages.map(aiSdkEvents))).toEqual([]);
        return report.compaction.fired;
      });
      expect(compacted).toBeGreaterThan(10);
    }
  });

  it("keeps reasoning parts and their signatures as the very parts passed in", () => {
    const thread = renderAiSdkPairing(specWith({ thinking: true, server: "same" }));
    const reasoning = new Set(
      thread.flatMap((message) =>
        Array.isArray(message.content) ? message.content.filter((part) => part.type === "reasoning") : [],
      ),
    );
    expect(reasoning.size).toBe(10);
    const compacted = sweep(aiSdkToNeutral(thread), (options, digests) => {
      const { messages, report } = assembleAiSdkPrompt(thread, digests, options);
      for (const message of messages) {
        if (message.role !== "assistant" || thread.includes(message)) continue;
        // Sent without its reasoning parts (the view changed history before it): every other part is the very one passed in.
        const source = thread.find(
          (input) =>
            Array.isArray(input.content) &&
            Array.isArray(message.content) &&
            input.content
              .filter((part) => part.type !== "reasoning")
              .every((part, at) => part === message.content[at]),
        );
        expect(source).toBeDefined();
        expect((message.content as { type: string }[]).some((part) => part.type === "reasoning")).toBe(false);
      }
      return report.compaction.droppedMessages > 0;
    });
    // The sweep must have cut into the assistant messages' exchanges for the check to mean anything.
    expect(compacted).toBeGreaterThan(10);
  });

  it("keeps a provider-executed approval response with the call before it in the language-model prompt", () => {
    // The language-model prompt has no approval requests: the response follows the call's message.
    const thread: ModelMessage[] = renderAiSdkPairing(specWith({ server: "same" })).flatMap(
      (message): ModelMessage[] => {
        if (message.role !== "assistant" || typeof message.content === "string") return [message];
        const server = message.content.find(
          (part) => part.type === "tool-call" && part.providerExecuted === true,
        );
        if (server?.type !== "tool-call") return [message];
        const response: ModelMessage = {
          role: "tool",
          content: [
            {
              type: "tool-approval-response",
              approvalId: `mcpr_${server.toolCallId}`,
              approved: true,
              providerExecuted: true,
            },
          ],
        };
        return [message, response];
      },
    );
    const byApproval = new Map<string, ModelMessage>();
    thread.forEach((message, at) => {
      if (
        message.role === "tool" &&
        typeof message.content !== "string" &&
        message.content[0]?.type === "tool-approval-response"
      )
        byApproval.set(message.content[0].approvalId, thread[at - 1] as ModelMessage);
    });
    expect(byApproval.size).toBe(5);
    const compacted = sweep(aiSdkToNeutral(thread), (options, digests) => {
      const { messages, report } = assembleAiSdkPrompt(thread, digests, options);
      for (const message of messages) {
        if (message.role !== "tool" || typeof message.content === "string") continue;
        for (const part of message.content) {
          if (part.type === "tool-approval-response")
            expect(messages).toContain(byApproval.get(part.approvalId));
        }
      }
      return report.compaction.fired;
    });
    expect(compacted).toBeGreaterThan(10);
  });
});

describe("pairing through the LangChain adapter", () => {
  it("keeps server tool blocks with their caller and thinking blocks in their message", () => {
    for (const server of ["same", "split"] as const) {
      const thread = renderLangChainPairing(specWith({ server, thinking: true }));
      const compacted = sweep(fromLangChain(thread), (options, digests) => {
        const { messages, report } = assembleLangChainView<BaseMessage>(thread, digests, options);
        expect(pairingProblems(messages.map(langChainEvents))).toEqual([]);
        for (const message of messages) {
          if (message.getType() !== "ai" || thread.includes(message)) continue;
          // Sent without its thinking (the view changed history before it), its tool calls and other blocks as they were.
          const blocks = message.content as { type: string }[];
          expect(blocks.some((block) => block.type.endsWith("thinking"))).toBe(false);
          expect(
            thread.some(
              (input) =>
                input.id === message.id &&
                (input as AIMessage).tool_calls?.length === (message as AIMessage).tool_calls?.length,
            ),
          ).toBe(true);
        }
        expect(messages).toContain(thread.at(-2));
        return report.compaction.fired;
      });
      expect(compacted).toBeGreaterThan(10);
    }
  });
});
