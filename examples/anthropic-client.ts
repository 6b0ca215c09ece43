// Anthropic SDK: send the assembled view; the thread you keep stays raw.
import type Anthropic from "@anthropic-ai/sdk";
import type { DigestMap } from "@context-cleaner/assembler";
import { assembleAnthropicView } from "@context-cleaner/assembler/anthropic";

export async function reply(
  client: Anthropic,
  model: string,
  thread: Anthropic.MessageParam[],
  digests: DigestMap,
) {
  const { messages } = assembleAnthropicView(thread, digests);
  return client.messages.create({ model, max_tokens: 4_096, messages });
}
