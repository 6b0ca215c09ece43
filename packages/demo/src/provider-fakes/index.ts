/**
 * Local fakes of the providers' documented checks on history sent back, for tests and the
 * benchmark: Anthropic's prefix check on thinking blocks (preserved thinking) and OpenAI's
 * dropping of reasoning items after a changed prefix.
 */
export type {
  AnthropicBlock,
  AnthropicMessage,
  AnthropicRequest,
  CheckOutcome,
  InputTransformation,
} from "./anthropic-thinking";
export {
  AnthropicThinkingBinder,
  appendToolResult,
  BLOCK_BINDING_BETA,
  blockBinding,
} from "./anthropic-thinking";
export type { MessagesFake, ScriptedAnswer } from "./messages-server";
export { startMessagesFake } from "./messages-server";
export type { ChatMessageLike, ReasoningDrop } from "./openai-reasoning";
export { OpenAIReasoningBinder } from "./openai-reasoning";
