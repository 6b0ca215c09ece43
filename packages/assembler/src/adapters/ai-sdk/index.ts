export type { ContextCleanerAiSdkConfig } from "./middleware";
export { contextCleanerMiddleware } from "./middleware";
export type { AiSdkMessageLike, AiSdkPartLike } from "./prompt-adapter";
export { aiSdkToNeutral, assembleAiSdkPrompt } from "./prompt-adapter";
