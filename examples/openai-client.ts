// OpenAI SDK (Chat Completions): send the assembled view; the thread you keep stays raw.
import type { DigestMap } from "@context-cleaner/assembler";
import { assembleOpenAIView } from "@context-cleaner/assembler/openai";
import type OpenAI from "openai";

export async function reply(
  client: OpenAI,
  model: string,
  thread: OpenAI.ChatCompletionMessageParam[],
  digests: DigestMap,
) {
  const { messages } = assembleOpenAIView(thread, digests);
  return client.chat.completions.create({ model, messages });
}
