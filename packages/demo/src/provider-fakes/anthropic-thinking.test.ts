import { describe, expect, it } from "vitest";
import {
  type AnthropicBlock,
  type AnthropicMessage,
  type AnthropicRequest,
  AnthropicThinkingBinder,
  blockBinding,
} from "./anthropic-thinking";

const SYSTEM = "You are careful.";

function request(messages: AnthropicMessage[], extra: Partial<AnthropicRequest> = {}): AnthropicRequest {
  return { system: SYSTEM, tools: [{ name: "read" }], messages, ...extra };
}

/** A two-turn conversation whose three assistant messages carry signed thinking. */
function conversation(binder: AnthropicThinkingBinder) {
  const messages: AnthropicMessage[] = [{ role: "user", content: "Read the lease." }];
  const answer = (content: AnthropicBlock[]) => {
    messages.push({ role: "assistant", content: binder.sign(request(messages), content) });
  };
  answer([
    { type: "thinking", thinking: "Page 1 first." },
    { type: "tool_use", id: "t1", name: "read", input: {} },
  ]);
  messages.push({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "t1", content: "page one text" }],
  });
  answer([
    { type: "thinking", thinking: "Done." },
    { type: "text", text: "Rent is $1." },
  ]);
  messages.push({ role: "user", content: "And the term?" });
  answer([
    { type: "thinking", thinking: "Check." },
    { type: "tool_use", id: "t2", name: "read", input: {} },
  ]);
  messages.push({
    role: "user",
    content: [{ type: "tool_result", tool_use_id: "t2", content: "page two text" }],
  });
  return messages;
}

function withoutThinking(message: AnthropicMessage): AnthropicMessage {
  return {
    ...message,
    content: (message.content as AnthropicBlock[]).filter((block) => block.type !== "thinking"),
  };
}

const BOUND =
  /^messages\.(\d+)\.content\.0: Invalid `signature` in `thinking` block\. The block is bound to a different conversation\./;

describe("AnthropicThinkingBinder", () => {
  it("accepts the conversation sent back as it came, and a cache_control marker anywhere", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    expect(binder.check(request(messages))).toEqual({ ok: true, inputTransformations: [] });
    const marked = messages.map((message, index) =>
      index === 2
        ? {
            ...message,
            content: (message.content as AnthropicBlock[]).map((block) => ({
              ...block,
              cache_control: { type: "ephemeral" },
            })),
          }
        : message,
    );
    expect(binder.check(request(marked)).ok).toBe(true);
    // A string content reads as its one text block.
    const asBlocks = messages.map((message) =>
      typeof message.content === "string"
        ? { ...message, content: [{ type: "text", text: message.content }] }
        : message,
    );
    expect(binder.check(request(asBlocks)).ok).toBe(true);
  });

  it("refuses a request that shortened an earlier tool result, naming the first block after it", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    messages[2] = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "[condensed]" }],
    };
    const outcome = binder.check(request(messages));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(BOUND);
    expect(!outcome.ok && outcome.message.match(BOUND)?.[1]).toBe("3");
  });

  it("refuses a changed system prompt or tool list", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    expect(binder.check(request(messages, { system: "Today is Tuesday." })).ok).toBe(false);
    expect(binder.check(request(messages, { tools: [] })).ok).toBe(false);
  });

  it("accepts the thinking after a change left out (the end of the run), and later thinking bound to that", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder).slice(0, 5);
    const answered = messages[3] as AnthropicMessage;
    messages[2] = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "[condensed]" }],
    };
    messages[3] = withoutThinking(answered);
    expect(binder.check(request(messages)).ok).toBe(true);
    messages.push({
      role: "assistant",
      content: binder.sign(request(messages), [
        { type: "thinking" },
        { type: "tool_use", id: "t3", name: "read", input: {} },
      ]),
    });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "t3", content: "three" }] });
    expect(binder.check(request(messages)).ok).toBe(true);
    // Putting the removed block back (with the original result) breaks the block produced while it was gone.
    const back = [...messages];
    back[2] = conversation(new AnthropicThinkingBinder())[2] as AnthropicMessage;
    back[3] = answered;
    const outcome = binder.check(request(back));
    expect(!outcome.ok && outcome.message).toMatch(/^messages\.5\.content\.0: Invalid `signature`/);
  });

  it("accepts thinking left out at the start, refuses one left out between others", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    const start = [...messages];
    start[1] = withoutThinking(start[1] as AnthropicMessage);
    expect(binder.check(request(start)).ok).toBe(true);
    const middle = [...messages];
    middle[3] = withoutThinking(middle[3] as AnthropicMessage);
    const outcome = binder.check(request(middle));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(/^messages\.5\.content\.0: Invalid `signature`/);
  });

  it("requires the latest assistant message of a tool loop to keep its thinking", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    messages[5] = withoutThinking(messages[5] as AnthropicMessage);
    const outcome = binder.check(request(messages));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(
      /^messages\.5\.content\.0: Expected `thinking` or `redacted_thinking`, but found `tool_use`/,
    );
  });

  it("refuses a signature it never issued, whatever the setting", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    messages[1] = { role: "assistant", content: [{ type: "thinking", thinking: "", signature: "forged" }] };
    const { thinking, betas } = blockBinding(true);
    const outcome = binder.check(request(messages, { thinking }), betas);
    expect(outcome).toMatchObject({
      ok: false,
      status: 400,
      message: "messages.1.content.0: Invalid `signature` in `thinking` block.",
    });
  });

  it("refuses a thinking block whose text was edited, trimmed or emptied, whatever the setting", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    const edit = (at: number, thinking: string) =>
      messages.map((message, index) =>
        index === at
          ? {
              ...message,
              content: (message.content as AnthropicBlock[]).map((block) =>
                block.type === "thinking" ? { ...block, thinking } : block,
              ),
            }
          : message,
      );
    const dropBlock = blockBinding(true);
    for (const [at, thinking] of [
      [1, "Page 2 first."],
      [3, "Do"],
      [5, ""],
    ] as const) {
      const refused = {
        ok: false,
        status: 400,
        message: `messages.${at}.content.0: Invalid \`signature\` in \`thinking\` block.`,
      };
      expect(binder.check(request(edit(at, thinking)))).toMatchObject(refused);
      expect(
        binder.check(request(edit(at, thinking), { thinking: dropBlock.thinking }), dropBlock.betas),
      ).toMatchObject(refused);
    }
    expect(binder.check(request(messages)).ok).toBe(true);
  });

  it("refuses a thinking block moved to another place of the run", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    const thinkingOf = (at: number) =>
      ((messages[at] as AnthropicMessage).content as AnthropicBlock[])[0] as AnthropicBlock;
    const swapped = messages.map((message, index) =>
      index === 3 || index === 5
        ? {
            ...message,
            content: [thinkingOf(index === 3 ? 5 : 3), ...(message.content as AnthropicBlock[]).slice(1)],
          }
        : message,
    );
    const outcome = binder.check(request(swapped));
    expect(outcome.ok).toBe(false);
    expect(!outcome.ok && outcome.message).toMatch(/^messages\.3\.content\.0: Invalid `signature`/);
  });

  it("accepts a redacted_thinking block sent back as it came, and binds it like a thinking block", () => {
    const binder = new AnthropicThinkingBinder();
    const messages: AnthropicMessage[] = [{ role: "user", content: "Read the lease." }];
    const signed = binder.sign(request(messages), [
      { type: "redacted_thinking" },
      { type: "tool_use", id: "r1", name: "read", input: {} },
    ]);
    expect(signed[0]).toMatchObject({ type: "redacted_thinking", data: expect.stringMatching(/^sig_/) });
    messages.push({ role: "assistant", content: signed });
    messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: "r1", content: "page" }] });
    expect(binder.check(request(messages))).toEqual({ ok: true, inputTransformations: [] });
    expect(binder.check(request(messages, { system: "Another." })).ok).toBe(false);
  });

  it("drops the failing blocks with drop_block and the beta header, and refuses the setting without the header", () => {
    const binder = new AnthropicThinkingBinder();
    const messages = conversation(binder);
    messages[2] = {
      role: "user",
      content: [{ type: "tool_result", tool_use_id: "t1", content: "[condensed]" }],
    };
    const { thinking, betas } = blockBinding(true);
    const dropping = request(messages, { thinking });
    expect(binder.check(dropping, betas)).toEqual({
      ok: true,
      inputTransformations: [
        { type: "thinking_dropped", path: "messages.3.content.0", reason: "prefix_binding_mismatch" },
        { type: "thinking_dropped", path: "messages.5.content.0", reason: "prefix_binding_mismatch" },
      ],
    });
    const outcome = binder.check(dropping);
    expect(!outcome.ok && outcome.message).toMatch(/block_binding: Extra inputs are not permitted/);
    expect(binder.tally).toEqual({ requests: 2, refused: 1, droppedBlocks: 2 });
  });
});
