export type { ThreadTurnEnded } from "../../events/turn-event";
export type {
  LoadDigests,
  PublishTurnEnded,
  RuntimeTurnLock,
  TurnContext,
  TurnErrorHandler,
  TurnLease,
  TurnStage,
} from "../../turn-ports";
export { MID_TURN_DEFAULTS } from "../shared/mid-turn";
export type { LangChainMessageInput } from "./langchain-adapter";
export {
  assembleLangChainView,
  fromLangChain,
  reviveLangChainMessages,
  toLangChain,
} from "./langchain-adapter";
export type { CheckpointPutter, OrgMetadataOptions, SaverRunConfig } from "./org-metadata";
export { ORG_METADATA_DEFAULTS, orgIdOf, withOrgMetadata } from "./org-metadata";
export type { ContextCleanerPreModelHookConfig } from "./pre-model-hook";
export { contextCleanerPreModelHook, langChainTurnEndedEvent } from "./pre-model-hook";
export { answerLangChainReadOriginal, readOriginalLangChainTool } from "./read-original-tool";
export type { LangGraphRunInfo } from "./turn-context";
