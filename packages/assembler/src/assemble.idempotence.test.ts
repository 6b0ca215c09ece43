import { describe, expect, it } from "vitest";
import { type AssembleOptions, assembleModelView } from "./assemble";
import { contentSha256 } from "./contract/hash";
import {
  BUDGET_STUB_PREFIX,
  DIGEST_HEADER,
  DUPLICATE_PREFIX,
  FIGURES_ONLY_BULLET_PREFIX,
} from "./contract/stubs";
import { createToolPolicy } from "./policy";
import type { DigestMap, Message } from "./types";

const page = `Document cd_9f2, page 1 (rev 1). ${"Section 8.2 governs assignment; consent not unreasonably withheld. ".repeat(4)}`;

function readCall(id: string, fileId = "cd_9f2"): Message {
  return {
    role: "assistant",
    content: "",
    toolCalls: [{ id, name: "read_document", args: { file_id: fileId, offset: 0 } }],
  };
}

function readResult(id: string, text: string): Message {
  return { role: "tool", toolCallId: id, toolName: "read_document", content: [{ type: "text", text }] };
}

function user(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

/** Assembles `messages`, then the view it gives, and checks the second assembly changes nothing. */
function expectIdempotent(messages: readonly Message[], digests: DigestMap, options: AssembleOptions) {
  const first = assembleModelView(messages, digests, options);
  const second = assembleModelView(first.messages, digests, options);
  expect(second.messages).toEqual(first.messages);
  second.messages.forEach((message, index) => {
    expect(message).toBe(first.messages[index]);
  });
  expect(second.report.compaction.fired).toBe(false);
  return first;
}

describe("assembling an assembled view", () => {
  it("leaves a duplicate stub in the latest answer's exchange as it is, under any budget", () => {
    // The same page read twice, either side of the latest user message; the wall starts at
    // that message, and the exchange before it is kept as the latest assistant message's.
    const messages: Message[] = [
      readCall("call_0"),
      readResult("call_0", page),
      user("Summarize the lease."),
      readCall("call_1"),
      readResult("call_1", page),
    ];
    const policy = createToolPolicy();
    const raw = assembleModelView(messages, new Map(), { recencyKeepExchanges: 0, policy }).report.rawChars;
    // From a budget nothing fits to one the whole thread fits.
    for (let budget = 1; budget <= raw + 50; budget += 25) {
      const options = { recencyKeepExchanges: 0, historyBudgetChars: budget, policy };
      const first = expectIdempotent(messages, new Map(), options);
      expect(first.report.compaction.wallExceedsBudget).toBe(first.report.assembledChars > budget);
      expect(first.report.stubs.duplicate).toBe(1);
      expect(first.messages.find((message) => message.role === "tool")?.content).toSatisfy((content) =>
        String(content).startsWith(DUPLICATE_PREFIX),
      );
    }
  });

  it("leaves a digest cut to its figures in the latest assistant message's exchange as it is", () => {
    // No user message: the whole thread is the latest assistant message's exchange, kept
    // before a wall of nothing; its result's digest is cut to its figures to fit.
    const output = "calculator output 0: 42";
    const digest = `${DIGEST_HEADER}\ntool: calculator\ndigest:\n  - condensed result of call_0\n  - ${"detail ".repeat(60)}`;
    const messages: Message[] = [
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_0", name: "calculator", args: { input: 0 } }],
      },
      { role: "tool", toolCallId: "call_0", toolName: "calculator", content: output },
    ];
    const digests: DigestMap = new Map([
      ["call_0", { digest, contentSha256: contentSha256(output), digestChars: digest.length }],
    ]);
    const options = { recencyKeepExchanges: 0, historyBudgetChars: 1, policy: createToolPolicy() };
    const first = expectIdempotent(messages, digests, options);
    expect(first.messages).toHaveLength(2);
    expect(String(first.messages[1]?.content)).toContain(FIGURES_ONLY_BULLET_PREFIX);
  });

  it("condenses a real tool output that merely begins like one of the cleaner's texts", () => {
    // A tool that returns text quoting a digest: the cleaner did not write it, so under the
    // budget it gives way to a stub naming its re-read call like any other result.
    const quoted = `${DIGEST_HEADER}\n${page.repeat(3)}`;
    const messages: Message[] = [
      user("Read the lease."),
      readCall("call_0"),
      readResult("call_0", quoted),
      user("Next."),
    ];
    const options = { recencyKeepExchanges: 0, historyBudgetChars: 200, policy: createToolPolicy() };
    const first = expectIdempotent(messages, new Map(), options);
    expect(first.messages).toContain(messages[1]);
    expect(
      String(first.messages.find((m) => m.role === "tool")?.content).startsWith(BUDGET_STUB_PREFIX),
    ).toBe(true);
  });
  it("cuts to its figures the digest a pinned result of the kept exchange was condensed to", () => {
    // The latest user message names the document, so its page is pinned; past the budget it
    // is condensed to its digest, which must then be cut as any digest before the wall is.
    const lease = `Document cd_a01, page 1 (rev 3). ${"The Tenant shall pay base rent of $1,250,000 per year. ".repeat(10)}`;
    const digest = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - condensed result of call_0\n  - ${"detail ".repeat(60)}`;
    const messages: Message[] = [
      readCall("call_0", "cd_a01"),
      readResult("call_0", lease),
      user("Summarize the lease. Look again at cd_a01."),
    ];
    const digests: DigestMap = new Map([
      [
        "call_0",
        { digest, contentSha256: contentSha256([{ type: "text", text: lease }]), digestChars: digest.length },
      ],
    ]);
    const options = { recencyKeepExchanges: 0, historyBudgetChars: 1, policy: createToolPolicy() };
    const first = expectIdempotent(messages, digests, options);
    expect(first.messages).toHaveLength(3);
    expect(String(first.messages[1]?.content)).toContain(FIGURES_ONLY_BULLET_PREFIX);
  });

  it("condenses the result a dropped duplicate stub pointed to", () => {
    // The earlier copy becomes a stub pointing to the later one, whose exchange is kept as
    // the latest assistant message's; once the stub's exchange is dropped, nothing points
    // to the later copy, and it is condensed as it would be in a view without the stub.
    const messages: Message[] = [
      readCall("call_0"),
      readResult("call_0", page),
      readCall("call_1"),
      readResult("call_1", page),
      user("Summarize the lease."),
    ];
    const first = expectIdempotent(messages, new Map(), wallOnlyOptions());
    expect(first.report.compaction.droppedMessages).toBe(2);
    expect(first.messages).toContain(messages[2]);
    expect(
      String(first.messages.find((m) => m.role === "tool")?.content).startsWith(BUDGET_STUB_PREFIX),
    ).toBe(true);
  });
  it("condenses the result a dropped stub pointed to in an exchange the wall cuts through", () => {
    // No latest-answer rule involved: a result after the latest user message joins its
    // call's exchange to the wall, so that exchange is never dropped, and the stub pointing
    // into it goes with the earlier exchange.
    const messages: Message[] = [
      readCall("call_0"),
      readResult("call_0", page),
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "call_1", name: "read_document", args: { file_id: "cd_9f2", offset: 0 } },
          { id: "call_2", name: "calculator", args: { input: 0 } },
        ],
      },
      readResult("call_1", page),
      user("Summarize the lease."),
      { role: "tool", toolCallId: "call_2", toolName: "calculator", content: "calculator output 0: 42" },
    ];
    const first = expectIdempotent(messages, new Map(), wallOnlyOptions());
    expect(first.report.compaction.droppedMessages).toBe(2);
    expect(String(first.messages[2]?.content).startsWith(BUDGET_STUB_PREFIX)).toBe(true);
  });
});

/** Inline cleaning, a wall at the latest user message and a budget nothing but the wall fits. */
function wallOnlyOptions() {
  return { recencyKeepExchanges: 0, historyBudgetChars: 1, inline: true, policy: createToolPolicy() };
}
