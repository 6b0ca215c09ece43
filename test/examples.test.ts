/**
 * Runs each integration example of examples/ against fakes: the real framework or SDK
 * client, a scripted model (or an injected fetch) and digest rows a worker would write.
 * Each test checks that what reached the model is the condensed view.
 */
import Anthropic from "@anthropic-ai/sdk";
import type { DigestMap, Message } from "@context-cleaner/assembler";
import { contentSha256 } from "@context-cleaner/assembler/internal";
import type { ThreadTurnEnded } from "@context-cleaner/assembler/langchain";
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import OpenAI from "openai";
import { describe, expect, it } from "vitest";
import { answer } from "../examples/ai-sdk";
import { reply as anthropicReply } from "../examples/anthropic-client";
import { buildAgent } from "../examples/langchain-agent";
import { buildReactAgent } from "../examples/langgraph-prebuilt";
import { reply as openAIReply } from "../examples/openai-client";
import { recordToolResult } from "../examples/runtime-caps";
import {
  readDocument as aiReadDocument,
  earlierTurn,
  pageDigests,
  readerModel,
} from "../packages/assembler/test/fixtures/ai-sdk-reader-model";
import {
  digestsForThread,
  digestText,
  readDocument,
  readRequest,
  resultOf,
  ScriptedReaderModel,
} from "../packages/assembler/test/fixtures/scripted-agent";

const THREAD = { configurable: { thread_id: "example-thread", org_id: "org-example" } };

/** The org each of the thread's checkpoints names in its metadata, oldest first. */
async function checkpointOrgs(checkpointer: MemorySaver): Promise<unknown[]> {
  const orgs: unknown[] = [];
  for await (const tuple of checkpointer.list({ configurable: { thread_id: "example-thread" } })) {
    orgs.unshift((tuple.metadata as Record<string, unknown> | undefined)?.org_id);
  }
  return orgs;
}

/** Three turns over one checkpointed thread, digesting the raw record between turns (as the worker would). */
async function threeTurns(
  invoke: (request: string) => Promise<unknown>,
  checkpointer: MemorySaver,
  setDigests: (digests: DigestMap) => void,
): Promise<void> {
  const digestRaw = async () => {
    const saved = await checkpointer.getTuple(THREAD);
    setDigests(digestsForThread((saved?.checkpoint.channel_values.messages ?? []) as BaseMessage[]));
  };
  await invoke(readRequest("lease_445", 4));
  await digestRaw();
  await invoke(readRequest("nda_3", 3));
  await digestRaw();
  await invoke(readRequest("memo_9", 1));
}

/** A fetch that answers every request with `body` and records the JSON it was sent. */
function recordingFetch(body: unknown): { fetch: typeof fetch; sent: Record<string, unknown>[] } {
  const sent: Record<string, unknown>[] = [];
  const fake = async (_input: unknown, init?: RequestInit) => {
    sent.push(JSON.parse(String(init?.body)));
    return new Response(JSON.stringify(body), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  };
  return { fetch: fake as typeof fetch, sent };
}

const PAGE = `Lease page two: ${"rent $1,250,000 per year; assignment needs consent (§8.2). ".repeat(60)}`;
const DIGEST = digestText("p2");

function digestOfPage(): DigestMap {
  return new Map([
    ["p2", { digest: DIGEST, contentSha256: contentSha256(PAGE), digestChars: DIGEST.length }],
  ]);
}

/** Four exchanges then a new question: the first read (page two) is outside the recency wall. */
function anthropicThread(): Anthropic.MessageParam[] {
  const exchange = (id: string, name: string, input: object, content: string): Anthropic.MessageParam[] => [
    { role: "assistant", content: [{ type: "tool_use", id, name, input }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content }] },
  ];
  return [
    { role: "user", content: "Review the lease." },
    ...exchange("p2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE),
    ...["w1", "w2", "w3"].flatMap((id) => exchange(id, "web_search", { q: id }, `id: ${id}`)),
    { role: "user", content: "Draft the memo." },
  ];
}

function openAIThread(): OpenAI.ChatCompletionMessageParam[] {
  const exchange = (
    id: string,
    name: string,
    args: object,
    content: string,
  ): OpenAI.ChatCompletionMessageParam[] => [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
    },
    { role: "tool", tool_call_id: id, content },
  ];
  return [
    { role: "user", content: "Review the lease." },
    ...exchange("p2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE),
    ...["w1", "w2", "w3"].flatMap((id) => exchange(id, "web_search", { q: id }, `id: ${id}`)),
    { role: "user", content: "Draft the memo." },
  ];
}

describe("examples/", () => {
  it("langchain-agent.ts: createAgent with the middleware condenses earlier pages, publishes each turn, and stamps the org on every checkpoint", async () => {
    const model = new ScriptedReaderModel({});
    const checkpointer = new MemorySaver();
    let digests: DigestMap = new Map();
    const published: ThreadTurnEnded[] = [];
    const agent = buildAgent(
      model,
      [readDocument],
      checkpointer,
      async () => digests,
      (event) => void published.push(event),
    );
    await threeTurns(
      (request) => agent.invoke({ messages: [{ role: "user", content: request }] }, THREAD),
      checkpointer,
      (next) => {
        digests = next;
      },
    );
    expect(resultOf(model.calls.at(-1) ?? [], "lease_445_p1")?.content).toBe(digestText("lease_445_p1"));
    expect(published.map((event) => event.threadId)).toEqual([
      "example-thread",
      "example-thread",
      "example-thread",
    ]);
    const orgs = await checkpointOrgs(checkpointer);
    expect(orgs.length).toBeGreaterThan(3);
    expect(new Set(orgs)).toEqual(new Set(["org-example"]));
  });

  it("langgraph-prebuilt.ts: createReactAgent with the pre-model hook condenses earlier pages and stamps the org on every checkpoint", async () => {
    const model = new ScriptedReaderModel({});
    const checkpointer = new MemorySaver();
    let digests: DigestMap = new Map();
    const agent = buildReactAgent(model, [readDocument], checkpointer, async () => digests);
    await threeTurns(
      (request) => agent.invoke({ messages: [{ role: "user", content: request }] }, THREAD),
      checkpointer,
      (next) => {
        digests = next;
      },
    );
    expect(resultOf(model.calls.at(-1) ?? [], "lease_445_p1")?.content).toBe(digestText("lease_445_p1"));
    const orgs = await checkpointOrgs(checkpointer);
    expect(orgs.length).toBeGreaterThan(3);
    expect(new Set(orgs)).toEqual(new Set(["org-example"]));
  });

  it("ai-sdk.ts: generateText through the wrapped model sends condensed earlier pages", async () => {
    const provider = readerModel();
    const messages = [
      ...earlierTurn("lease_445", 5),
      ...earlierTurn("nda_3", 4),
      { role: "user" as const, content: "Read memo_9 pages 2" },
    ];
    const text = await answer(provider, messages, { read_document: aiReadDocument }, async () =>
      pageDigests("lease_445", 5),
    );
    expect(text).toBe("Done.");
    const lastPrompt = JSON.stringify(provider.doGenerateCalls.at(-1)?.prompt);
    expect(lastPrompt).toContain("condensed lease_445_p3");
    expect(lastPrompt).not.toContain("lease_445 at offset 24000");
  });

  it("anthropic-client.ts: the real client posts the condensed view", async () => {
    const { fetch, sent } = recordingFetch({
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: [{ type: "text", text: "Memo drafted." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 3 },
    });
    const client = new Anthropic({ apiKey: "test-key", baseURL: "http://127.0.0.1:9", fetch, maxRetries: 0 });
    const thread = anthropicThread();
    const message = await anthropicReply(client, "claude-test", thread, digestOfPage());
    expect(message.content[0]).toMatchObject({ text: "Memo drafted." });
    const posted = sent[0]?.messages as Anthropic.MessageParam[];
    // The adapter marks the end of the stable prefix and of the request for the cache;
    // with the marks taken out, the view is the condensed thread.
    const marks = JSON.stringify(posted).match(/"cache_control"/g) ?? [];
    expect(marks.length).toBeGreaterThanOrEqual(1);
    expect(marks.length).toBeLessThanOrEqual(4);
    expect(posted.at(-1)?.content).toEqual([
      { type: "text", text: "Draft the memo.", cache_control: { type: "ephemeral" } },
    ]);
    const unmarked = JSON.parse(JSON.stringify(posted), (key, value) =>
      key === "cache_control" ? undefined : value,
    ) as Anthropic.MessageParam[];
    expect(unmarked[2]).toEqual({
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "p2", content: DIGEST }],
    });
    expect(unmarked.slice(3, -1)).toEqual(JSON.parse(JSON.stringify(thread.slice(3, -1))));
    expect(thread[2]).toEqual(anthropicThread()[2]);
  });

  it("openai-client.ts: the real client posts the condensed view", async () => {
    const { fetch, sent } = recordingFetch({
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 0,
      model: "gpt-test",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "Memo drafted.", refusal: null },
          finish_reason: "stop",
          logprobs: null,
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
    });
    const client = new OpenAI({ apiKey: "test-key", baseURL: "http://127.0.0.1:9/v1", fetch, maxRetries: 0 });
    const completion = await openAIReply(client, "gpt-test", openAIThread(), digestOfPage());
    expect(completion.choices[0]?.message.content).toBe("Memo drafted.");
    const posted = sent[0]?.messages as OpenAI.ChatCompletionMessageParam[];
    expect(posted[2]).toEqual({ role: "tool", tool_call_id: "p2", content: DIGEST });
    expect(posted).toHaveLength(openAIThread().length);
  });
});

describe("runtime-caps.ts", () => {
  const page = (index: number) =>
    `ARTICLE ${index}\nThe Borrower shall not incur Debt above $${index},000,000.00.\n`.padEnd(60_000, "x");

  it("records results whole under the budget, then condensed at arrival to their figures", () => {
    const thread: Message[] = [{ role: "user", content: "read the agreement" }];
    const read = (index: number) => {
      const call = { id: `c${index}`, name: "read_document" };
      thread.push({
        role: "assistant",
        content: "",
        toolCalls: [{ ...call, args: { offset: index * 60_000 } }],
      });
      return recordToolResult(thread, new Map(), call, page(index));
    };
    for (let index = 1; index <= 10; index++) expect(read(index).content).toBe(page(index));
    const condensed = String(read(11).content);
    expect(condensed).toMatch(
      /^\[Condensed at arrival by context-cleaner: the conversation's tool budget is spent/,
    );
    expect(condensed).toContain("figures verbatim: ARTICLE 11; $11,000,000.00");
    expect(condensed.split("\n").at(-1)).toBe("re-read: the same tool with the same args");
  });
});
