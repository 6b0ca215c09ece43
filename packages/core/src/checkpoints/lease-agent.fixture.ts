/**
 * Test fixture: a real compiled LangGraph agent (StateGraph + MessagesAnnotation + ToolNode)
 * whose scripted chat model reads a long synthetic lease page by page with `read_document`,
 * after one failed call with a mistyped file id. Shared by the unit and services tiers.
 */

import type { Message, ToolMessage as NeutralToolMessage } from "@context-cleaner/assembler";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { expect } from "vitest";
import { z } from "zod";

export const LEASE_FILE_ID = "cd_9f2";
export const MISTYPED_FILE_ID = "cd_9f3";
export const PAGE_CHARS = 20_000;
export const QUESTION = `What are the rent and assignment terms of the ground lease ${LEASE_FILE_ID}?`;
export const FINAL_ANSWER =
  "Base rent is $1,250,000 per year with a 2.5% annual escalator from year 6; assignment needs consent (§8.2).";

function buildLease(): string {
  const parts = ["GROUND LEASE — 445 W 35th Street\n\n"];
  for (let article = 1; parts.join("").length < PAGE_CHARS * 2.5; article++) {
    parts.push(`ARTICLE ${article}\n`);
    for (let section = 1; section <= 6; section++) {
      parts.push(
        `§${article}.${section} The Tenant shall pay Base Rent of $1,250,000 per annum, escalating by 2.5% ` +
          `annually from the sixth Lease Year; "Qualified Transferee" (§8.2) and "Stabilization Date" ` +
          `(§1.44) have the meanings given in Article ${article}. Notices under this Section ${article}.${section} ` +
          `shall be delivered on or before March 31, 2027 to the Landlord at its address of record.\n`,
      );
    }
  }
  return parts.join("");
}

/** The synthetic lease, about 2.5 pages of {@link PAGE_CHARS}. */
export const LEASE_TEXT = buildLease();

/** The page of the lease that `read_document` returns at `offset`, with its footer. */
export function leasePage(offset: number): string {
  const end = Math.min(offset + PAGE_CHARS, LEASE_TEXT.length);
  const next = end < LEASE_TEXT.length ? `; next offset: ${end}` : "; end of document";
  return `${LEASE_TEXT.slice(offset, end)}\n[characters ${offset}–${end} of ${LEASE_TEXT.length}${next}]`;
}

/** The page offsets the agent reads, in order. */
export const PAGE_OFFSETS = Array.from(
  { length: Math.ceil(LEASE_TEXT.length / PAGE_CHARS) },
  (_, page) => page * PAGE_CHARS,
);

export const readDocument = tool(
  async ({ file_id, offset }: { file_id: string; offset: number }) => {
    if (file_id !== LEASE_FILE_ID) throw new Error(`document ${file_id} not found`);
    return leasePage(offset);
  },
  {
    name: "read_document",
    description: "Reads one page of a document by file id and character offset.",
    schema: z.object({ file_id: z.string(), offset: z.number().int().min(0) }),
  },
);

/**
 * A chat model that decides from the conversation alone: a mistyped first read, a retry,
 * then the next page while the last result announces one, then the final answer.
 */
export class ScriptedLeaseModel extends BaseChatModel {
  _llmType(): string {
    return "scripted-lease";
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages[messages.length - 1];
    const calls = messages.filter((message) => ToolMessage.isInstance(message)).length;
    const read = (fileId: string, offset: number) =>
      new AIMessage({
        content: "",
        tool_calls: [
          {
            id: `call_${calls + 1}`,
            name: "read_document",
            args: { file_id: fileId, offset },
            type: "tool_call",
          },
        ],
      });
    let message: AIMessage;
    if (last === undefined || HumanMessage.isInstance(last)) message = read(MISTYPED_FILE_ID, 0);
    else if (ToolMessage.isInstance(last) && last.status === "error") message = read(LEASE_FILE_ID, 0);
    else {
      const next = /next offset: (\d+)/.exec(String(last.content));
      message = next ? read(LEASE_FILE_ID, Number(next[1])) : new AIMessage(FINAL_ANSWER);
    }
    return { generations: [{ message, text: String(message.content) }] };
  }
}

/** The agent graph compiled with `checkpointer`, deciding with `model`. */
export function buildLeaseAgent(
  checkpointer: BaseCheckpointSaver,
  model: ScriptedLeaseModel = new ScriptedLeaseModel({}),
) {
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", async (state) => ({ messages: [await model.invoke(state.messages)] }))
    .addNode("tools", new ToolNode([readDocument]))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", (state) => {
      const last = state.messages[state.messages.length - 1];
      return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? "tools" : END;
    })
    .addEdge("tools", "agent")
    .compile({ checkpointer });
}

/** Runs one turn of the agent on `threadId`. */
export async function runLeaseTurn(checkpointer: BaseCheckpointSaver, threadId: string, question = QUESTION) {
  return buildLeaseAgent(checkpointer).invoke(
    { messages: [new HumanMessage(question)] },
    { configurable: { thread_id: threadId }, recursionLimit: 50 },
  );
}

/** Wraps a saver so every method call is recorded, then forwarded. */
export function recording<T extends object>(target: T): { saver: T; calls: string[] } {
  const calls: string[] = [];
  const saver = new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        calls.push(String(property));
        return (value as (...a: unknown[]) => unknown).apply(object, args);
      };
    },
  });
  return { saver, calls };
}

/** How many checkpoints `saver` holds for `threadId`. */
export async function countCheckpoints(saver: BaseCheckpointSaver, threadId: string): Promise<number> {
  let count = 0;
  for await (const _ of saver.list({ configurable: { thread_id: threadId } })) count++;
  return count;
}

/** The neutral thread the lease agent's first turn must read back as. */
export function expectLeaseThread(messages: readonly Message[]): void {
  const reads = [MISTYPED_FILE_ID, ...PAGE_OFFSETS.map(() => LEASE_FILE_ID)];
  const offsets = [0, ...PAGE_OFFSETS];
  expect(messages.map((message) => message.role)).toEqual([
    "user",
    ...reads.flatMap(() => ["assistant", "tool"]),
    "assistant",
  ]);
  expect(messages[0]?.content).toBe(QUESTION);
  reads.forEach((fileId, read) => {
    const call = messages[1 + read * 2];
    const result = messages[2 + read * 2] as NeutralToolMessage;
    const id = `call_${read + 1}`;
    expect(call).toMatchObject({
      role: "assistant",
      toolCalls: [{ id, name: "read_document", args: { file_id: fileId, offset: offsets[read] } }],
    });
    expect(result).toMatchObject({ role: "tool", toolCallId: id, toolName: "read_document" });
    if (read === 0) {
      expect(result.status).toBe("error");
      expect(result.content).toContain(`document ${MISTYPED_FILE_ID} not found`);
    } else {
      expect(result.status).toBe("success");
      expect(result.content).toBe(leasePage(offsets[read] as number));
    }
  });
  expect(messages.at(-1)).toMatchObject({ role: "assistant", content: FINAL_ANSWER, toolCalls: [] });
}
