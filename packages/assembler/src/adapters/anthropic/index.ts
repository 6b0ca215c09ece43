export type { AnthropicBlockLike, AnthropicMessageLike } from "./anthropic-adapter";
export { anthropicToNeutral, assembleAnthropicView } from "./anthropic-adapter";
