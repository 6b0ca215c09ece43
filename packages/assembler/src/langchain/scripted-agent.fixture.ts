/**
 * A document-reading agent for the LangChain integration tests: a scripted chat model
 * that records every message list it is called with and reads documents page by page,
 * a real `read_document` tool, and the digest rows a worker would write for a thread.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { contentSha256 } from "../hash";
import { DIGEST_HEADER } from "../stubs";
import type { DigestEntry } from "../types";

export const PAGE_CHARS = 12_000;

/** Page text at `offset` of a document (deterministic, names the document and offset). */
export function documentPage(fileId: string, offset: number): string {
  const head = `${fileId} from character ${offset}: rent $1,250,000, §8.2 assignment. `;
  return (head + "Clause text continues. ".repeat(PAGE_CHARS / 20)).slice(0, PAGE_CHARS);
}

export const readDocument = tool(async ({ file_id, offset }) => documentPage(file_id, offset), {
  name: "read_document",
  description: "Reads one page of a document from a character offset.",
  schema: z.object({ file_id: z.string(), offset: z.number() }),
});

/** A user request the scripted model understands: "Read <file_id> pages <n>". */
export function readRequest(fileId: string, pages: number): string {
  return `Read ${fileId} pages ${pages}`;
}

const REQUEST = /^Read (\S+) pages (\d+)$/;

/**
 * A chat model that, after a "Read <file> pages <n>" request, calls `read_document` for
 * each page in turn, then answers. Every call's input messages are recorded in `calls`.
 */
export class ScriptedReaderModel extends BaseChatModel {
  readonly calls: BaseMessage[][] = [];
  failOnCall: number | undefined;

  _llmType(): string {
    return "scripted-reader";
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls.push([...messages]);
    if (this.failOnCall === this.calls.length) throw new Error("model unavailable");
    const message = this.#next(messages);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }] };
  }

  #next(messages: BaseMessage[]): AIMessage {
    let requestAt = messages.length - 1;
    while (requestAt >= 0 && messages[requestAt]?.getType() !== "human") requestAt--;
    const request = String(messages[requestAt]?.content ?? "").match(REQUEST);
    const read = messages.slice(requestAt + 1).filter((message) => ToolMessage.isInstance(message)).length;
    if (!request || read >= Number(request[2])) return new AIMessage("Done reading.");
    const fileId = request[1] as string;
    return new AIMessage({
      content: "",
      tool_calls: [
        {
          id: `${fileId}_p${read}`,
          name: "read_document",
          args: { file_id: fileId, offset: read * PAGE_CHARS },
          type: "tool_call",
        },
      ],
    });
  }
}

export function digestText(toolCallId: string): string {
  return `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - ${toolCallId}: rent $1,250,000; §8.2`;
}

/** The rows a worker would write for every tool result of a (raw) thread. */
export function digestsForThread(messages: readonly BaseMessage[]): Map<string, DigestEntry> {
  const digests = new Map<string, DigestEntry>();
  for (const message of messages) {
    if (!ToolMessage.isInstance(message) || typeof message.content !== "string") continue;
    const digest = digestText(message.tool_call_id);
    digests.set(message.tool_call_id, {
      digest,
      contentSha256: contentSha256(message.content),
      digestChars: digest.length,
    });
  }
  return digests;
}

/** Pairing as chat models want it: each call's one result follows its AI message, in order. */
export function langChainPairingProblems(messages: readonly BaseMessage[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((call) => call.id) : [];
    if (calls.length === 0) return;
    const results: string[] = [];
    for (let next = index + 1; ToolMessage.isInstance(messages[next]); next++) {
      results.push((messages[next] as ToolMessage).tool_call_id);
    }
    if (results.join() !== calls.join())
      problems.push(`messages[${index}] asked [${calls}], got [${results}]`);
  });
  return problems;
}

/** The tool message answering `toolCallId` in a message list. */
export function resultOf(messages: readonly BaseMessage[], toolCallId: string): ToolMessage | undefined {
  return messages.find(
    (message): message is ToolMessage =>
      ToolMessage.isInstance(message) && message.tool_call_id === toolCallId,
  );
}
