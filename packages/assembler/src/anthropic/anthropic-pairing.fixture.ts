/**
 * The Anthropic Messages API's pairing rule, as a checker for tests: each assistant
 * message's tool_use blocks are answered, each exactly once, by the tool_result blocks of
 * the next message (a user message), and no tool_result answers anything else.
 */
interface BlockLike {
  type: string;
  id?: unknown;
  tool_use_id?: unknown;
}

function blocksOf(message: { content: unknown } | undefined): BlockLike[] {
  return Array.isArray(message?.content) ? (message.content as BlockLike[]) : [];
}

export function anthropicPairingProblems(messages: readonly { role: string; content: unknown }[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const results = blocksOf(message)
      .filter((block) => block.type === "tool_result")
      .map((block) => String(block.tool_use_id));
    if (results.length === 0) return;
    const previous = messages[index - 1];
    const calls =
      previous?.role === "assistant"
        ? blocksOf(previous)
            .filter((block) => block.type === "tool_use")
            .map((block) => String(block.id))
        : [];
    if (message.role !== "user")
      problems.push(`messages[${index}] carries tool results but is ${message.role}`);
    if ([...results].sort().join() !== [...calls].sort().join()) {
      problems.push(`messages[${index}] answers [${results}] but the call before asked [${calls}]`);
    }
  });
  messages.forEach((message, index) => {
    if (message.role !== "assistant" || !blocksOf(message).some((block) => block.type === "tool_use")) return;
    if (!blocksOf(messages[index + 1]).some((block) => block.type === "tool_result")) {
      problems.push(`messages[${index}] calls tools but no results follow`);
    }
  });
  return problems;
}
