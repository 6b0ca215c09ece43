import { MemorySaver } from "@langchain/langgraph";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { readDocument, readRequest, ScriptedReaderModel } from "#test/assembler/fixtures/scripted-agent";
import { InvalidOptionError } from "../../errors";
import { orgIdOf, withOrgMetadata } from "./org-metadata";

/** The metadata of every checkpoint of a thread, oldest first, across namespaces. */
async function metadataOf(saver: MemorySaver, threadId: string): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    all.push({ ...(tuple.metadata ?? {}) });
  }
  return all.reverse();
}

describe("withOrgMetadata", () => {
  it("createAgent alone leaves the org out of checkpoint metadata; through the wrapper every checkpoint names it", async () => {
    const plain = new MemorySaver();
    const bare = createAgent({
      model: new ScriptedReaderModel({}),
      tools: [readDocument],
      checkpointer: plain,
    });
    const config = { configurable: { thread_id: "t-1", org_id: "acme" } };
    await bare.invoke({ messages: [{ role: "user", content: readRequest("lease_445", 2) }] }, config);
    const unstamped = await metadataOf(plain, "t-1");
    expect(unstamped.length).toBeGreaterThan(1);
    expect(unstamped.some((metadata) => "org_id" in metadata)).toBe(false);

    const saver = new MemorySaver();
    const agent = createAgent({
      model: new ScriptedReaderModel({}),
      tools: [readDocument],
      checkpointer: withOrgMetadata(saver),
    });
    await agent.invoke({ messages: [{ role: "user", content: readRequest("lease_445", 2) }] }, config);
    const stamped = await metadataOf(saver, "t-1");
    expect(stamped.length).toBe(unstamped.length);
    expect(stamped.every((metadata) => metadata.org_id === "acme")).toBe(true);
    // Reads through the wrapper are the saver's own.
    const latest = await withOrgMetadata(saver).getTuple(config);
    expect(latest?.checkpoint).toEqual((await saver.getTuple(config))?.checkpoint);
    const messages = latest?.checkpoint.channel_values.messages as unknown[] | undefined;
    expect(messages?.length ?? 0).toBeGreaterThan(2);
  });

  it("stamps createReactAgent's checkpoints under other keys, and leaves a run without an org unstamped", async () => {
    const saver = new MemorySaver();
    const graph = createReactAgent({
      llm: new ScriptedReaderModel({}),
      tools: [readDocument],
      checkpointer: withOrgMetadata(saver, { configurableKey: "tenant", metadataKey: "tenant_id" }),
    });
    const input = { messages: [{ role: "user", content: readRequest("nda_3", 1) }] };
    await graph.invoke(input, { configurable: { thread_id: "t-2", tenant: "globex" } });
    await graph.invoke(input, { configurable: { thread_id: "t-3" } });
    const stamped = await metadataOf(saver, "t-2");
    expect(stamped.length).toBeGreaterThan(1);
    expect(stamped.map((metadata) => metadata.tenant_id)).toEqual(stamped.map(() => "globex"));
    expect((await metadataOf(saver, "t-3")).some((metadata) => "tenant_id" in metadata)).toBe(false);
  });

  it("passes every other call to the saver itself, bound to it", async () => {
    const saver = new MemorySaver();
    const wrapped = withOrgMetadata(saver);
    expect(wrapped).toBeInstanceOf(MemorySaver);
    await wrapped.deleteThread("nobody");
    expect(await wrapped.getTuple({ configurable: { thread_id: "nobody" } })).toBeUndefined();
    expect(wrapped.getNextVersion(undefined)).toBe(saver.getNextVersion(undefined));
  });

  it("refuses an empty key", () => {
    expect(() => withOrgMetadata(new MemorySaver(), { metadataKey: "" })).toThrow(InvalidOptionError);
  });
});

describe("orgIdOf", () => {
  it("answers the run's org, and refuses a run that names none instead of answering 'undefined'", () => {
    expect(orgIdOf({ threadId: "t", configurable: { org_id: "acme" }, context: undefined })).toBe("acme");
    expect(orgIdOf({ threadId: "t", configurable: { tenant: "globex" }, context: undefined }, "tenant")).toBe(
      "globex",
    );
    expect(() => orgIdOf({ threadId: "t-9", configurable: {}, context: undefined })).toThrow(
      /configurable\.org_id is not set for thread t-9/,
    );
    expect(() => orgIdOf({ threadId: "t", configurable: { org_id: "" }, context: undefined })).toThrow(
      InvalidOptionError,
    );
  });
});
