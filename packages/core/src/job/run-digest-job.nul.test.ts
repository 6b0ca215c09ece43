import type { Message } from "@context-cleaner/assembler";
import { ContextCleanerError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { fixedClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { parseDigestJobPayload } from "./payload";
import { runDigestJob } from "./run-digest-job";

const at = new Date("2026-11-30T10:00:00.000Z");
const NUL = "\u0000";

const storage = usePgliteRepository();

/** Three consumed pages of one document; the middle one is given by the caller. */
function documentThread(
  middle: { id?: string; args?: Record<string, unknown>; text?: string } = {},
): Message[] {
  const thread = threadBuilder();
  thread.user("Read the lease.");
  thread.call("c0", "read_document", { file_id: "f1", offset: 0 }, filler("page zero", 30_000));
  thread.call(
    middle.id ?? "c1",
    "read_document",
    middle.args ?? { file_id: "f1", offset: 30_000 },
    middle.text ?? filler("page one", 30_000),
  );
  thread.call("c2", "read_document", { file_id: "f1", offset: 60_000 }, filler("page two", 30_000));
  for (let turn = 0; turn < 4; turn++) {
    thread.user(`question ${turn}`);
    thread.assistant(`answer ${turn}`);
  }
  return thread.messages;
}

let counter = 0;
function run(messages: readonly Message[], ids: { orgId?: string; threadId?: string } = {}) {
  counter += 1;
  const orgId = ids.orgId ?? `org-nul-${counter}`;
  const threadId = ids.threadId ?? `thread-${counter}`;
  // Parsed at the edge, as the digest handler parses a record's body.
  const outcome = Promise.resolve().then(() =>
    runDigestJob(
      parseDigestJobPayload({ orgId, threadId, rawToolChars: 200_000, turnEndedAt: at.toISOString() }),
      {
        checkpoints: createInMemoryCheckpointReader(new Map([[threadId, messages]])),
        store: storage.repository,
        digester: createExtractiveDigester(),
        clock: fixedClock(at),
      },
      { triggerChars: 0, minCharsPerPass: 0, recencyKeepExchanges: 1 },
    ),
  );
  return { orgId, threadId, outcome };
}

describe("a NUL character (U+0000) never poisons a thread", () => {
  it("without a NUL, every page of the document is digested", async () => {
    const { orgId, threadId, outcome } = run(documentThread());
    expect((await outcome).status).toBe("done");
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual(["c0", "c1", "c2"]);
  });

  it("a result whose tool call id holds a NUL is left raw; the rest of the pass is written", async () => {
    const { orgId, threadId, outcome } = run(documentThread({ id: `c${NUL}1` }));
    expect((await outcome).status).toBe("done");
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual(["c0", "c2"]);
  });

  it("a result whose provenance args hold a NUL (jsonb cannot store it) is left raw; the rest is written", async () => {
    const { orgId, threadId, outcome } = run(
      documentThread({ args: { file_id: `f${NUL}1`, offset: 30_000 } }),
    );
    expect((await outcome).status).toBe("done");
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual(["c0", "c2"]);
  });

  it("a digest of a document holding a NUL is stored with U+FFFD in its place", async () => {
    const sentence = `Base rent is $1,250,000, due on March 1, 2027.${NUL} The tenant pays taxes. `;
    const { orgId, threadId, outcome } = run(documentThread({ text: sentence.repeat(400) }));
    expect((await outcome).status).toBe("done");
    const digest = (await storage.repository.loadThreadDigests(orgId, threadId)).get("c1");
    expect(digest?.digest).toContain("\uFFFD");
    expect(digest?.digest).not.toContain(NUL);
  });

  it.each([
    ["org id", { orgId: `acme${NUL}` }, "orgId"],
    ["thread id", { threadId: `thread${NUL}` }, "threadId"],
  ])(
    "a NUL in the %s is an invalid payload: non-retryable, no SQL in the message",
    async (_label, ids, field) => {
      const error = await run(documentThread(), ids).outcome.catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ContextCleanerError);
      expect(error).toMatchObject({ code: "invalid_payload", retryable: false });
      expect((error as Error).message).toContain(field);
      expect((error as Error).message).not.toMatch(/select|insert|params/i);
    },
  );
});

describe("a tool result the storage would refuse or alter is left raw, never failing the pass", () => {
  it.each([
    ["a tool call id with a lone surrogate (stored altered, never matched)", { id: "c\ud8001" }],
    ["a tool call id over 500 bytes", { id: `c${"1".repeat(500)}` }],
    [
      "provenance args with a lone surrogate (jsonb refuses it)",
      { args: { file_id: "f\udc001", offset: 30_000 } },
    ],
  ])("%s", async (_label, middle) => {
    const { orgId, threadId, outcome } = run(documentThread(middle));
    expect((await outcome).status).toBe("done");
    const digests = await storage.repository.loadThreadDigests(orgId, threadId);
    expect([...digests.keys()].sort()).toEqual(["c0", "c2"]);
  });
});
