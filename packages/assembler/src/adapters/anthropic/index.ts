export type {
  AnthropicAssembledView,
  AnthropicAssembleOptions,
  AnthropicBlockLike,
  AnthropicMessageLike,
  CacheBreakpoint,
} from "./anthropic-adapter";
export { anthropicToNeutral, assembleAnthropicView, MAX_CACHE_BREAKPOINTS } from "./anthropic-adapter";
export type { AnthropicReadOriginalResult } from "./read-original-tool";
export { answerAnthropicReadOriginal, anthropicReadOriginalTool } from "./read-original-tool";
