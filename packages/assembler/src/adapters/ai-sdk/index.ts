export type { ContextCleanerAiSdkConfig } from "./middleware";
export { contextCleanerMiddleware } from "./middleware";
export type { AiSdkMessageLike, AiSdkPartLike } from "./prompt-adapter";
export { aiSdkToNeutral, assembleAiSdkPrompt } from "./prompt-adapter";
export type { ReadOriginalAnswer, ReadOriginalInput } from "./read-original-tool";
export { answerAiSdkReadOriginal, readOriginalToolSet } from "./read-original-tool";
