// LangChain createAgent: the model sees the condensed view; the checkpoint keeps the raw record.
import {
  contextCleanerMiddleware,
  type LoadDigests,
  type PublishTurnEnded,
} from "@context-cleaner/assembler/langchain/middleware";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ClientTool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createAgent } from "langchain";

export function buildAgent(
  model: BaseChatModel,
  tools: ClientTool[],
  checkpointer: BaseCheckpointSaver,
  loadDigests: LoadDigests, // e.g. (threadId, turn) => repository.loadThreadDigests(orgId, threadId)
  publishTurnEnded: PublishTurnEnded, // e.g. (event) => events.publishTurnEnded({ orgId, ...event })
) {
  const cleaner = contextCleanerMiddleware({ loadDigests, publishTurnEnded });
  return createAgent({ model, tools, checkpointer, middleware: [cleaner] });
}
