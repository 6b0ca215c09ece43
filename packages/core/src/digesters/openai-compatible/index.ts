export type { OutputLimitField } from "./chat-request";
export type {
  ChatCompletionsClient,
  OpenAiCompatibleDigesterOptions,
  OpenAiCompatiblePrices,
} from "./openai-compatible-digester";
export {
  createOpenAiCompatibleDigester,
  OPENAI_COMPATIBLE_DIGESTER_DEFAULTS,
} from "./openai-compatible-digester";
