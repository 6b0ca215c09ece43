export type { OpenAIMessageLike } from "./openai-adapter";
export { assembleOpenAIView, openAIToNeutral } from "./openai-adapter";
