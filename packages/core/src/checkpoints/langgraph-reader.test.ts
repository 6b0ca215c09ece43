import type { Message } from "@context-cleaner/assembler";
import { HumanMessage, mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { describe, expect, test } from "vitest";
import {
  countCheckpoints,
  expectLeaseThread,
  PAGE_OFFSETS,
  QUESTION,
  recording,
  runLeaseTurn,
} from "#test/core/fixtures/lease-agent";
import { CheckpointReadError } from "../errors";
import { type CheckpointTupleSource, LangGraphCheckpointReader } from "./langgraph-reader";
import { createPostgresCheckpointReader } from "./postgres-reader";

/** A saver stub whose latest checkpoint holds `channelValues`. */
function stubSource(channelValues: Record<string, unknown>, configs: unknown[] = []): CheckpointTupleSource {
  return {
    getTuple: async (config) => {
      configs.push(config);
      return {
        config,
        checkpoint: {
          v: 4,
          id: "1",
          ts: "",
          channel_values: channelValues,
          channel_versions: {},
          versions_seen: {},
        },
      };
    },
  };
}

describe("LangGraphCheckpointReader over checkpoints of a compiled LangGraph agent", () => {
  test("reads the latest checkpoint's messages as neutral messages", async () => {
    const memory = new MemorySaver();
    await runLeaseTurn(memory, "lease-1");
    const messages = await new LangGraphCheckpointReader({ saver: memory }).readThread("lease-1");
    expect(messages).not.toBeNull();
    expectLeaseThread(messages as Message[]);
    expect(PAGE_OFFSETS.length).toBeGreaterThanOrEqual(3);
  });

  test("calls only getTuple and writes no checkpoint", async () => {
    const memory = new MemorySaver();
    await runLeaseTurn(memory, "lease-2");
    const before = await countCheckpoints(memory, "lease-2");
    const storageBefore = JSON.stringify([memory.storage, memory.writes]);
    const { saver, calls } = recording(memory);
    const reader = new LangGraphCheckpointReader({ saver });
    await reader.readThread("lease-2");
    await reader.readThread("lease-2");
    await reader.readThread("no-such-thread");
    expect(calls).toEqual(["getTuple", "getTuple", "getTuple"]);
    expect(await countCheckpoints(memory, "lease-2")).toBe(before);
    expect(JSON.stringify([memory.storage, memory.writes])).toBe(storageBefore);
  });

  test("a later turn is read from the newest checkpoint", async () => {
    const memory = new MemorySaver();
    await runLeaseTurn(memory, "lease-3");
    await runLeaseTurn(memory, "lease-3", "And the notice deadline?");
    const messages = (await new LangGraphCheckpointReader({ saver: memory }).readThread("lease-3")) ?? [];
    const users = messages.filter((message) => message.role === "user").map((message) => message.content);
    expect(users).toEqual([QUESTION, "And the notice deadline?"]);
    expect(messages.filter((message) => message.role === "tool")).toHaveLength(2 * (PAGE_OFFSETS.length + 1));
  });

  test("a thread without a checkpoint reads as null", async () => {
    expect(await new LangGraphCheckpointReader({ saver: new MemorySaver() }).readThread("none")).toBeNull();
  });
});

describe("LangGraphCheckpointReader options and failures (stub saver)", () => {
  test("passes the thread id and the checkpoint namespace, reads the configured channel", async () => {
    const configs: unknown[] = [];
    const stored = mapChatMessagesToStoredMessages([new HumanMessage("from history")]);
    const reader = new LangGraphCheckpointReader({
      saver: stubSource({ history: stored, messages: "ignored" }, configs),
      channel: "history",
      checkpointNamespace: "research",
    });
    expect(await reader.readThread("t-9")).toEqual([
      { role: "user", content: "from history", id: undefined },
    ]);
    expect(configs).toEqual([{ configurable: { thread_id: "t-9", checkpoint_ns: "research" } }]);
  });

  test("defaults to the root namespace", async () => {
    const configs: unknown[] = [];
    await new LangGraphCheckpointReader({ saver: stubSource({}, configs) }).readThread("t");
    expect(configs).toEqual([{ configurable: { thread_id: "t", checkpoint_ns: "" } }]);
  });

  test("a checkpoint without the channel reads as an empty thread", async () => {
    expect(await new LangGraphCheckpointReader({ saver: stubSource({ other: 1 }) }).readThread("t")).toEqual(
      [],
    );
  });

  test("a channel that is not an array is invalid_channel, not retryable", async () => {
    const reader = new LangGraphCheckpointReader({ saver: stubSource({ messages: { not: "an array" } }) });
    const error = await reader.readThread("t").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(CheckpointReadError);
    expect(error).toMatchObject({
      name: "CheckpointReadError",
      reason: "invalid_channel",
      threadId: "t",
      retryable: false,
    });
  });

  test("a message that cannot be converted is invalid_message with the adapter's error as cause", async () => {
    const reader = new LangGraphCheckpointReader({ saver: stubSource({ messages: [{ nonsense: true }] }) });
    const error = (await reader.readThread("t").catch((caught: unknown) => caught)) as CheckpointReadError;
    expect(error).toMatchObject({ reason: "invalid_message", retryable: false });
    expect(error.message).toContain("messages[0]");
    expect((error.cause as Error).name).toBe("InvalidThreadError");
  });

  test("a failing store is store_failed, retryable, keeping the cause", async () => {
    const cause = Object.assign(new Error("permission denied for table checkpoints"), { code: "42501" });
    const reader = new LangGraphCheckpointReader({
      saver: {
        getTuple: async () => {
          throw cause;
        },
      },
    });
    const error = (await reader.readThread("t").catch((caught: unknown) => caught)) as CheckpointReadError;
    expect(error).toMatchObject({ reason: "store_failed", retryable: true, threadId: "t" });
    expect(error.cause).toBe(cause);
  });
});

describe("createPostgresCheckpointReader options", () => {
  test.each([
    [{}, "connectionString"],
    [{ connectionString: "postgres://x@127.0.0.1/db", pool: {} as never }, "pool"],
  ])("needs exactly one of pool or connectionString (%#)", (options, field) => {
    expect(() => createPostgresCheckpointReader(options)).toThrowError(
      expect.objectContaining({ name: "InvalidOptionError", field }),
    );
  });

  test("connects nowhere until the first read, and close() before any read is a no-op", async () => {
    const reader = createPostgresCheckpointReader({ connectionString: "postgres://nobody@127.0.0.1:1/none" });
    await expect(reader.close()).resolves.toBeUndefined();
  });
});

describe("@context-cleaner/core/langgraph subpath", () => {
  test("exposes the LangGraph and Postgres readers", async () => {
    const subpath = await import("@context-cleaner/core/langgraph");
    expect(subpath.LangGraphCheckpointReader).toBe(LangGraphCheckpointReader);
    expect(subpath.createPostgresCheckpointReader).toBe(createPostgresCheckpointReader);
    expect(subpath.LANGGRAPH_READER_DEFAULTS).toEqual({ channel: "messages", checkpointNamespace: "" });
  });
});
