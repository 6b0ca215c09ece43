// LangGraph prebuilt createReactAgent: the pre-model hook answers { llmInputMessages } with the view,
// and every checkpoint names the run's org (`configurable.org_id`) for the worker and the sweep.
import {
  contextCleanerPreModelHook,
  type LoadDigests,
  withOrgMetadata,
} from "@context-cleaner/assembler/langchain";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import type { ClientTool } from "@langchain/core/tools";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";

export function buildReactAgent(
  llm: BaseChatModel,
  tools: ClientTool[],
  checkpointer: BaseCheckpointSaver,
  loadDigests: LoadDigests,
) {
  const preModelHook = contextCleanerPreModelHook({ loadDigests });
  return createReactAgent({ llm, tools, checkpointer: withOrgMetadata(checkpointer), preModelHook });
}
