export type {
  OpenAIAssembledView,
  OpenAIAssembleOptions,
  OpenAIMessageLike,
  ReasoningHoldBack,
} from "./openai-adapter";
export { assembleOpenAIView, openAIToNeutral } from "./openai-adapter";
export { answerOpenAIReadOriginal, openAIReadOriginalTool } from "./read-original-tool";
