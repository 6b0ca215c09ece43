export type { LangChainMessageInput } from "./langchain-adapter";
export {
  assembleLangChainView,
  fromLangChain,
  reviveLangChainMessages,
  toLangChain,
} from "./langchain-adapter";
