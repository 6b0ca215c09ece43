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
export {
  OPENAI_COMPATIBLE_SETTINGS,
  type OpenAiCompatibleSettings,
  openAiCompatibleSettings,
  type SettingSource,
} from "./settings";
