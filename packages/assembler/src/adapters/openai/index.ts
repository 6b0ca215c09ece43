export type { OpenAIAssembleOptions, OpenAIMessageLike } from "./openai-adapter";
export { assembleOpenAIView, openAIToNeutral } from "./openai-adapter";
export { answerOpenAIReadOriginal, openAIReadOriginalTool } from "./read-original-tool";
