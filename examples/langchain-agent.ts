// LangChain createAgent: the model sees the condensed view; the checkpoint keeps the raw record,
// and every checkpoint names the run's org (`configurable.org_id`) for the worker and the sweep.
import { withOrgMetadata } from "@context-cleaner/assembler/langchain";
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
  loadDigests: LoadDigests, // e.g. (threadId, turn) => repository.loadThreadDigests(orgIdOf(turn), threadId)
  publishTurnEnded: PublishTurnEnded, // e.g. (event, turn) => events.publishTurnEnded({ orgId: orgIdOf(turn), ...event })
) {
  const cleaner = contextCleanerMiddleware({ loadDigests, publishTurnEnded });
  return createAgent({ model, tools, checkpointer: withOrgMetadata(checkpointer), middleware: [cleaner] });
}
