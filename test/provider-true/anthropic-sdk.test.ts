import Anthropic from "@anthropic-ai/sdk";
import { assembleAnthropicView } from "@context-cleaner/assembler/anthropic";
import { contentSha256, DIGEST_HEADER } from "@context-cleaner/assembler/internal";
import {
  type AnthropicBlock,
  type AnthropicRequest,
  BLOCK_BINDING_BETA,
  type MessagesFake,
  startMessagesFake,
} from "@context-cleaner/demo/provider-fakes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PAGE = `Lease page two. Rent $1,250,000; escalator 2.5%. ${"Clause text continues. ".repeat(200)}`;
const DIGEST = `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - rent $1,250,000; escalator 2.5%`;
const MODEL = "claude-fable-5-2";

/** The fake answers a request ending on a user question with a read, and one ending on results with an answer. */
function answer(request: AnthropicRequest): AnthropicBlock[] {
  const last = request.messages.at(-1);
  const onResults =
    Array.isArray(last?.content) && last.content.some((block) => block.type === "tool_result");
  return onResults
    ? [
        { type: "thinking", thinking: "" },
        { type: "text", text: "Rent is $1,250,000." },
      ]
    : [
        { type: "thinking", thinking: "" },
        {
          type: "tool_use",
          id: `toolu_${request.messages.length}`,
          name: "read_document",
          input: { file_id: "cd_9f2", offset: 58_000 },
        },
      ];
}

describe("the real Anthropic SDK against the Messages fake with preserved thinking", () => {
  let fake: MessagesFake;
  let client: Anthropic;
  beforeAll(async () => {
    fake = await startMessagesFake(answer);
    client = new Anthropic({ apiKey: "test-key", baseURL: fake.baseURL, maxRetries: 0 });
  });
  afterAll(() => fake.close());

  /** Turn 1 played raw: a read, its result, the answer; then the user's next question. */
  async function turnOne(): Promise<Anthropic.MessageParam[]> {
    const thread: Anthropic.MessageParam[] = [{ role: "user", content: "What is the rent?" }];
    const first = await client.messages.create({ model: MODEL, max_tokens: 1024, messages: thread });
    thread.push({ role: "assistant", content: first.content as Anthropic.ContentBlockParam[] });
    const call = first.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    thread.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: PAGE }] });
    const second = await client.messages.create({ model: MODEL, max_tokens: 1024, messages: thread });
    thread.push({ role: "assistant", content: second.content as Anthropic.ContentBlockParam[] });
    thread.push({ role: "user", content: "And the escalator?" });
    return thread;
  }

  function digestsOf(thread: Anthropic.MessageParam[]) {
    const result = (
      (thread[2] as Anthropic.MessageParam).content as Anthropic.ToolResultBlockParam[]
    )[0] as Anthropic.ToolResultBlockParam;
    return new Map([
      [
        result.tool_use_id,
        { digest: DIGEST, contentSha256: contentSha256(PAGE), digestChars: DIGEST.length },
      ],
    ]);
  }

  it("is refused with the documented 400 when a condensed view keeps the thinking after the change", async () => {
    const thread = await turnOne();
    const condensed = thread.map((message, index) =>
      index === 2
        ? {
            ...message,
            content: [{ ...(message.content as Anthropic.ToolResultBlockParam[])[0], content: DIGEST }],
          }
        : message,
    ) as Anthropic.MessageParam[];
    const refused = client.messages.create({ model: MODEL, max_tokens: 1024, messages: condensed });
    await expect(refused).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(refused).rejects.toThrow(
      /messages\.3\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation/,
    );
  });

  it("accepts the cleaner's view at the next turn's start: the page condensed, the thinking after it left out", async () => {
    const thread = await turnOne();
    const { messages, report } = assembleAnthropicView(thread, digestsOf(thread), {
      cache: { turnStart: true, idleMs: 3_900_000, shown: [] },
      recencyKeepExchanges: 0,
    });
    expect(
      ((messages[2] as Anthropic.MessageParam).content as Anthropic.ToolResultBlockParam[])[0]?.content,
    ).toBe(DIGEST);
    expect(report.ledger.thinking).toMatchObject({
      removedBlocks: 1,
      changedAt: 2,
      latestInvalidated: false,
    });
    const reply = await client.messages.create({
      model: MODEL,
      max_tokens: 1024,
      messages: messages as Anthropic.MessageParam[],
    });
    expect(reply.content[0]?.type).toBe("thinking");
    // The next call of the turn appends to what was sent and stays accepted.
    thread.push({ role: "assistant", content: reply.content as Anthropic.ContentBlockParam[] });
    const call = reply.content.find((block) => block.type === "tool_use") as Anthropic.ToolUseBlock;
    thread.push({ role: "user", content: [{ type: "tool_result", tool_use_id: call.id, content: PAGE }] });
    const next = assembleAnthropicView(thread, digestsOf(thread), {
      cache: {
        turnStart: false,
        idleMs: 3_900_000,
        shown: report.ledger.condensedIds,
        sent: report.ledger.sent,
      },
    });
    expect(next.messages.at(-2)).toBe(thread.at(-2));
    await expect(
      client.messages.create({
        model: MODEL,
        max_tokens: 1024,
        messages: next.messages as Anthropic.MessageParam[],
      }),
    ).resolves.toMatchObject({ type: "message" });
  });

  it("drops instead of refusing with drop_block and the beta header, listing the blocks in input_transformations", async () => {
    const thread = await turnOne();
    const condensed = thread.map((message, index) =>
      index === 2
        ? {
            ...message,
            content: [{ ...(message.content as Anthropic.ToolResultBlockParam[])[0], content: DIGEST }],
          }
        : message,
    );
    const reply = (await client.messages.create(
      {
        model: MODEL,
        max_tokens: 1024,
        messages: condensed as Anthropic.MessageParam[],
        thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
      } as never,
      { headers: { "anthropic-beta": BLOCK_BINDING_BETA } },
    )) as unknown as { input_transformations: unknown[] };
    expect(reply.input_transformations).toEqual([
      { type: "thinking_dropped", path: "messages.3.content.0", reason: "prefix_binding_mismatch" },
    ]);
  });
});
