// Vercel AI SDK: every step's prompt reaches the provider condensed; the caller's messages are untouched.
import type { DigestMap } from "@context-cleaner/assembler";
import { contextCleanerMiddleware } from "@context-cleaner/assembler/ai-sdk";
import { generateText, type ModelMessage, stepCountIs, type ToolSet, wrapLanguageModel } from "ai";

type Model = Parameters<typeof wrapLanguageModel>[0]["model"];

export async function answer(
  model: Model,
  messages: ModelMessage[],
  tools: ToolSet,
  loadDigests: () => Promise<DigestMap>,
) {
  const middleware = contextCleanerMiddleware({ digests: loadDigests }); // one per turn
  const cleaned = wrapLanguageModel({ model, middleware });
  const { text } = await generateText({ model: cleaned, messages, tools, stopWhen: stepCountIs(8) });
  return text;
}
