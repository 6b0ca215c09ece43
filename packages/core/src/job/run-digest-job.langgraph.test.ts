import { contentSha256 } from "@context-cleaner/assembler/internal";
import { assembleLangChainView } from "@context-cleaner/assembler/langchain";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import {
  buildLeaseAgent,
  countCheckpoints,
  FINAL_ANSWER,
  LEASE_FILE_ID,
  PAGE_OFFSETS,
  QUESTION,
  recording,
  ScriptedLeaseModel,
} from "#test/core/fixtures/lease-agent";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { type CheckpointTupleSource, LangGraphCheckpointReader } from "../checkpoints/langgraph-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { runDigestJob } from "./run-digest-job";

const FOLLOW_UP = "Thanks. Please keep that for the tracker.";
const ACK = "Noted for the tracker.";

/** The lease model, which on a follow-up after its answer acknowledges instead of reading again. */
class TwoTurnLeaseModel extends ScriptedLeaseModel {
  override async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    const last = messages[messages.length - 1];
    if (
      last &&
      HumanMessage.isInstance(last) &&
      messages.some((message) => ToolMessage.isInstance(message))
    ) {
      const message = new AIMessage(ACK);
      return { generations: [{ message, text: ACK }] };
    }
    return super._generate(messages);
  }
}

/** Runs the question, then the follow-up, on `threadId`; the thread's messages after both. */
async function runTwoTurns(checkpointer: MemorySaver, threadId: string): Promise<BaseMessage[]> {
  const config = { configurable: { thread_id: threadId }, recursionLimit: 50 };
  const graph = buildLeaseAgent(checkpointer, new TwoTurnLeaseModel({}));
  await graph.invoke({ messages: [new HumanMessage(QUESTION)] }, config);
  const state = await graph.invoke({ messages: [new HumanMessage(FOLLOW_UP)] }, config);
  return state.messages as BaseMessage[];
}

/** The chars of every tool result, as the job payload's `rawToolChars`. */
function toolChars(messages: readonly BaseMessage[]): number {
  return messages
    .filter((message) => ToolMessage.isInstance(message))
    .reduce((sum, message) => sum + String(message.content).length, 0);
}

const at = new Date("2026-11-30T10:00:00.000Z");
// The follow-up turn's window must not name the lease, so the pages are fair game with a wall of 0.
const recencyKeepExchanges = 0;

const storage = usePgliteRepository();

describe("LangGraph checkpoint → reader → runDigestJob → assembleLangChainView", () => {
  it("digests the consumed pages of a real agent's thread; the view swaps in real ToolMessages and leaves the rest as the same instances; the saver is never written", async () => {
    const memory = new MemorySaver();
    const threadId = "lease-graph-1";
    const orgId = "org-langgraph";
    const messages = await runTwoTurns(memory, threadId);
    // user, mistyped read + error, one read per page, the answer, the follow-up and its ack.
    expect(messages).toHaveLength(1 + 2 * (1 + PAGE_OFFSETS.length) + 3);
    expect(messages.at(-3)?.content).toBe(FINAL_ANSWER);
    expect(messages.at(-1)?.content).toBe(ACK);
    const pages = messages.filter(
      (message): message is ToolMessage => ToolMessage.isInstance(message) && message.status !== "error",
    );
    expect(pages).toHaveLength(PAGE_OFFSETS.length);
    const rawToolChars = toolChars(messages);

    const checkpointsBefore = await countCheckpoints(memory, threadId);
    const storageBefore = JSON.stringify([memory.storage, memory.writes]);
    const { saver, calls } = recording(memory);
    const outcome = await runDigestJob(
      { orgId, threadId, rawToolChars, turnEndedAt: at.toISOString() },
      {
        checkpoints: new LangGraphCheckpointReader({ saver: saver as CheckpointTupleSource }),
        store: storage.repository,
        digester: createExtractiveDigester(),
        clock: fixedClock(at),
      },
      { triggerChars: 10_000, minCharsPerPass: 10_000, recencyKeepExchanges },
    );
    expect(calls).toEqual(["getTuple"]);
    expect(await countCheckpoints(memory, threadId)).toBe(checkpointsBefore);
    expect(JSON.stringify([memory.storage, memory.writes])).toBe(storageBefore);

    // Every page of the lease, one call; the failed mistyped read is no page.
    expect(outcome).toMatchObject({ status: "done", calls: 1, digestsWritten: PAGE_OFFSETS.length });
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual(pages.map((page) => page.tool_call_id).sort());
    for (const page of pages) {
      expect(digests.get(page.tool_call_id)?.contentSha256).toBe(contentSha256(String(page.content)));
      expect(digests.get(page.tool_call_id)?.digest).toContain(`file_id=${LEASE_FILE_ID}`);
    }

    const view = assembleLangChainView(messages, digests, { recencyKeepExchanges });
    expect(view.report).toMatchObject({ substitutions: PAGE_OFFSETS.length, stale: 0 });
    expect(view.messages).toHaveLength(messages.length);
    const replaced: string[] = [];
    view.messages.forEach((message, index) => {
      const original = messages[index] as BaseMessage;
      if (message === original) return;
      expect(ToolMessage.isInstance(message)).toBe(true);
      expect(ToolMessage.isInstance(original)).toBe(true);
      if (!ToolMessage.isInstance(message) || !ToolMessage.isInstance(original)) return;
      expect(message.tool_call_id).toBe(original.tool_call_id);
      expect(message.name).toBe(original.name);
      expect(message.status).toBe(original.status);
      replaced.push(message.tool_call_id);
      const digest = digests.get(message.tool_call_id);
      if (digest) expect(message.content).toBe(digest.digest);
    });
    // The read that worked names another document than the mistyped one: no retry of it, so
    // the short error stays raw.
    const errorIndex = messages.findIndex(
      (message) => ToolMessage.isInstance(message) && message.status === "error",
    );
    expect(view.messages[errorIndex]).toBe(messages[errorIndex]);
    expect(replaced.sort()).toEqual([...digests.keys()].sort());
    expect(view.report.assembledChars).toBeLessThan(view.report.rawChars / 2);

    // The checkpoint is still the raw thread: the next turn reads originals, and a rerun writes nothing new.
    const tuple = await memory.getTuple({ configurable: { thread_id: threadId } });
    const stored = tuple?.checkpoint.channel_values.messages as BaseMessage[];
    expect(stored.map((message) => String(message.content))).toEqual(
      messages.map((message) => String(message.content)),
    );
    const rerun = await runDigestJob(
      { orgId, threadId, rawToolChars, turnEndedAt: new Date(at.getTime() + 60_000).toISOString() },
      {
        checkpoints: new LangGraphCheckpointReader({ saver: memory }),
        store: storage.repository,
        digester: createExtractiveDigester(),
        clock: fixedClock(at),
      },
      { triggerChars: 10_000, minCharsPerPass: 10_000, recencyKeepExchanges },
    );
    expect(rerun).toMatchObject({ calls: 0, digestsWritten: 0 });
    expect(await storage.repository.loadThreadDigests(orgId, threadId)).toEqual(digests);
  });

  it("with a wall of three exchanges the pass digests the pages before the next turn's wall; the view swaps in those its own wall has passed", async () => {
    const memory = new MemorySaver();
    const threadId = "lease-graph-2";
    const orgId = "org-langgraph-2";
    const messages = await runTwoTurns(memory, threadId);
    const outcome = await runDigestJob(
      { orgId, threadId, rawToolChars: toolChars(messages), turnEndedAt: at.toISOString() },
      {
        checkpoints: new LangGraphCheckpointReader({ saver: memory }),
        store: storage.repository,
        digester: createExtractiveDigester(),
        clock: fixedClock(at),
      },
      { triggerChars: 10_000, minCharsPerPass: 10_000, recencyKeepExchanges: 3 },
    );
    // The next turn's wall holds the ack, the answer and the last page's exchange; reading
    // the lease page by page refers to none of its earlier pages.
    const pages = messages.filter(
      (message): message is ToolMessage => ToolMessage.isInstance(message) && message.status !== "error",
    );
    const beforeWall = pages.slice(0, -1).map((page) => page.tool_call_id);
    expect(outcome).toMatchObject({ status: "done", digestsWritten: beforeWall.length });
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual([...beforeWall].sort());
    // This turn's wall still covers the answer and the last two pages: only the first is swapped.
    const view = assembleLangChainView(messages, digests, { recencyKeepExchanges: 3 });
    expect(view.report).toMatchObject({ substitutions: beforeWall.length - 1, stale: 0 });
    const first = messages.indexOf(pages[0] as ToolMessage);
    expect(view.messages[first]?.content).toBe(digests.get(pages[0]?.tool_call_id as string)?.digest);
  });
});
