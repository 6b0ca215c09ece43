/**
 * Where the middleware's turn-ended event stands against LangGraph's checkpoint writes
 * (docs/architecture.md#queue-semantics): `afterAgent` runs inside the run, so the run's
 * last checkpoint always follows the event; with the default `durability: "async"` even
 * the checkpoint holding the turn's messages may still be in flight, which is why the event
 * announces its turn and the worker waits for it. With `durability: "sync"` that checkpoint
 * is written before `afterAgent` runs; `invoke` resolves after every write.
 */
import type { BaseMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { type Checkpoint, type CheckpointMetadata, MemorySaver } from "@langchain/langgraph";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { readDocument, readRequest, ScriptedReaderModel } from "#test/assembler/fixtures/scripted-agent";
import type { ThreadTurnEnded } from "../../events/turn-event";
import { contextCleanerMiddleware } from "./middleware";

const THREAD = { configurable: { thread_id: "thread-durable" } };

/**
 * A saver whose checkpoint writes wait, while `held`, until `release()`: a store slower
 * than the run. A run that awaited its writes before `afterAgent` would never get there.
 */
class GatedSaver extends MemorySaver {
  #open!: () => void;
  readonly #gate = new Promise<void>((resolve) => {
    this.#open = resolve;
  });

  constructor(readonly held: boolean) {
    super();
  }

  release(): void {
    this.#open();
  }

  override async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
  ): Promise<RunnableConfig> {
    if (this.held) await this.#gate;
    return super.put(config, checkpoint, metadata);
  }
}

async function latestMessageIds(saver: MemorySaver): Promise<string[]> {
  const saved = await saver.getTuple(THREAD);
  const messages = (saved?.checkpoint.channel_values.messages ?? []) as BaseMessage[];
  return messages.map((message) => message.id ?? "");
}

/** Runs one turn; returns whether the saved checkpoint showed the announced turn as the event was published, and after invoke. */
async function turn(durability?: "sync" | "async") {
  // With async durability the writes are held until the event is out; sync would wait for them.
  const saver = new GatedSaver(durability !== "sync");
  const published: { event: ThreadTurnEnded; shown: boolean }[] = [];
  const middleware = contextCleanerMiddleware({
    loadDigests: async () => null,
    publishTurnEnded: async (event) => {
      published.push({ event, shown: (await latestMessageIds(saver)).includes(event.lastMessageId ?? "") });
      saver.release();
    },
    options: { disabled: false },
  });
  const agent = createAgent({
    model: new ScriptedReaderModel({}),
    tools: [readDocument],
    checkpointer: saver,
    middleware: [middleware],
  });
  await agent.invoke(
    { messages: [{ role: "user", content: readRequest("lease_445", 3) }] },
    { ...THREAD, ...(durability ? { durability } : {}) },
  );
  const [first] = published;
  if (first === undefined) throw new Error("no event published");
  const after = await latestMessageIds(saver);
  return {
    atPublish: first.shown,
    afterInvoke: after.includes(first.event.lastMessageId ?? ""),
    count: after.length,
    event: first.event,
  };
}

describe("the middleware's event and LangGraph's checkpoint writes", () => {
  it("with the default async durability, is published while the turn's checkpoint writes are still pending", async () => {
    const { atPublish, afterInvoke, count, event } = await turn();
    expect(atPublish).toBe(false);
    // invoke resolves after every write: the checkpoint then shows the announced turn.
    expect(afterInvoke).toBe(true);
    expect(count).toBe(event.messageCount);
  });

  it("with durability sync, comes after the checkpoint holding the turn's messages", async () => {
    const { atPublish, afterInvoke } = await turn("sync");
    expect(atPublish).toBe(true);
    expect(afterInvoke).toBe(true);
  });
});
