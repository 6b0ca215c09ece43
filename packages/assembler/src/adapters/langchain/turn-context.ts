import type { BaseMessage } from "@langchain/core/messages";
import { effectiveToolChars } from "../../budget";
import type { TurnContext } from "../../turn-ports";
import { fromLangChain, type LangChainMessageInput } from "./langchain-adapter";

/** What LangGraph hands a node or middleware hook about the run (its `config` or `runtime`). */
export interface LangGraphRunInfo {
  configurable?: Record<string, unknown>;
  context?: unknown;
}

/** The turn of a LangGraph run, or undefined when the run has no `thread_id` (no checkpointer). */
export function langGraphTurn(run: LangGraphRunInfo | undefined): TurnContext | undefined {
  const configurable = run?.configurable ?? {};
  const threadId = configurable.thread_id;
  if (typeof threadId !== "string" || threadId === "") return undefined;
  return { threadId, configurable, context: run?.context };
}

/** Raw chars of every tool result in a LangChain thread: the `rawToolChars` of the turn-ended event. */
export function rawToolCharsOf(messages: readonly (BaseMessage | LangChainMessageInput)[]): number {
  return effectiveToolChars(fromLangChain(messages as LangChainMessageInput[]), null, { disabled: true })
    .rawChars;
}
