import type { DigestKind } from "./contract/vocabulary";

/**
 * The neutral message model. The same field names are the neutral JSON
 * thread format `{ "messages": [...] }` that the CLI reads and writes.
 */

/** A content block, as carried by Anthropic, OpenAI and LangChain messages. */
export interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/** Message content: a string or an array of content blocks. */
export type MessageContent = string | readonly ContentBlock[];

/** One tool call requested by an assistant message. */
export interface ToolCall {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /**
   * The id of the server tool call that issued this call, when one did (Anthropic
   * programmatic tool calling: code execution calling a client tool, its `caller.tool_id`).
   * The call and its results are kept or dropped with that server call.
   */
  issuedBy?: string;
}

interface MessageBase {
  /** Optional message id, carried through untouched. */
  id?: string;
  content: MessageContent;
}

export interface SystemMessage extends MessageBase {
  role: "system";
}

export interface UserMessage extends MessageBase {
  role: "user";
}

export interface AssistantMessage extends MessageBase {
  role: "assistant";
  toolCalls?: readonly ToolCall[];
  /**
   * Provider reasoning carried beside the content (an OpenAI reasoning item, a
   * `reasoning_content` field), kept as it came. Like thinking blocks in the content, it is
   * bound to the prompt it was produced after: a view that changes history before it
   * leaves it out.
   */
  reasoning?: unknown;
}

export interface ToolMessage extends MessageBase {
  role: "tool";
  /** The id of the tool call this result answers; may be "" for synthetic errors. */
  toolCallId: string;
  toolName: string;
  /** `"error"` when the tool failed. */
  status?: "error" | "success";
}

export type Message = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

export type Role = Message["role"];

/** One digest row as the runtime loads it: what replaces a tool result in the view. */
export interface DigestEntry {
  /** The rendered text that replaces the tool result in the model's view. */
  digest: string;
  /** sha256 (hex) of the exact original content, as computed by {@link contentSha256}. */
  contentSha256: string;
  /** Length of `digest` in chars. */
  digestChars: number;
  /** What produced the row. @default "digest" */
  kind?: DigestKind;
}

/** Digest rows of one thread, keyed by tool call id. */
export type DigestMap = ReadonlyMap<string, DigestEntry>;
