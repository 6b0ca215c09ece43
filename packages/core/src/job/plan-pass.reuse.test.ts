import type { Message } from "@context-cleaner/assembler";
import { messageContentSha256 } from "@context-cleaner/assembler/internal";
import { describe, expect, it } from "vitest";
import { filler, threadBuilder } from "#test/core/fixtures/golden-threads";
import {
  STAGE_AT as at,
  claimStageThread,
  STAGE_JOB as job,
  stageContext,
} from "#test/core/fixtures/job-stage";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import type { DigestRow } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";
import type { DigestJobOptions } from "./options";
import type { DigestJobOutcome } from "./outcome";
import { type PassPlan, planPass } from "./plan-pass";

const NUL = "\u0000";

type Read = [id: string, tool: string, args: Record<string, unknown>, content: string];

const page = (id: string, offset: number, chars = 12_000): Read => [
  id,
  "read_document",
  { file_id: "f1", offset },
  filler(`page ${id}`, chars),
];

/** A thread that made `reads`, in order, then moved on for three exchanges. */
function threadOf(reads: readonly Read[]): Message[] {
  const thread = threadBuilder();
  thread.user("Read these.");
  for (const [id, tool, args, content] of reads) thread.call(id, tool, args, content);
  for (let turn = 0; turn < 3; turn++) {
    thread.user(`question ${turn}`);
    thread.assistant(`answer ${turn}`);
  }
  return thread.messages;
}

/** The tool message of `id` in `messages`. */
function resultOf(messages: readonly Message[], id: string): Message {
  return messages.find((message) => message.role === "tool" && message.toolCallId === id) as Message;
}

/** A stored digest row of the read `read` in `threadId`. */
function storedRow(threadId: string, read: Read, overrides: Partial<DigestRow> = {}): DigestRow {
  const [id, tool, args, content] = read;
  const digest = `digest of ${id}`;
  return {
    threadId,
    toolCallId: id,
    toolName: tool,
    provenanceArgs: args,
    contentSha256: messageContentSha256({ role: "tool", toolCallId: id, toolName: tool, content }),
    originalChars: content.length,
    kind: "digest",
    digest,
    digestChars: digest.length,
    model: "m",
    inputTokens: 10,
    outputTokens: 5,
    costUsd: 0.01,
    ...overrides,
  };
}

async function setup(
  messages: readonly Message[] | null,
  {
    options = {},
    seed = [],
    claim = true,
  }: { options?: Partial<DigestJobOptions>; seed?: DigestRow[]; claim?: boolean } = {},
) {
  const store = createInMemoryDigestStore();
  if (seed.length > 0) await store.upsertDigests(job.orgId, seed);
  const { metrics, context } = stageContext({
    store,
    checkpoints: createInMemoryCheckpointReader(new Map(messages ? [[job.threadId, messages]] : [])),
    options: { minCharsPerPass: 0, recencyKeepExchanges: 1, ...options },
  });
  // The pass records under this run's lease, as a job's does after its claim.
  if (claim) await claimStageThread(store, context.runId);
  return { store, metrics, context };
}

function asPlan(result: PassPlan | DigestJobOutcome): PassPlan {
  expect(result).toHaveProperty("toDigest");
  return result as PassPlan;
}

const digestIds = (plan: PassPlan) => plan.toDigest.map((candidate) => candidate.message.toolCallId);
const rowIds = (plan: PassPlan) => plan.rows.map((row) => row.toolCallId);

describe("planPass: skips", () => {
  it("records a thread without a checkpoint as skipped no_checkpoint, the turn uncovered", async () => {
    const { context, store } = await setup(null);
    expect(await planPass(context)).toMatchObject({ status: "skipped", reason: "no_checkpoint" });
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "skipped",
      reason: "no_checkpoint",
      coveredTurnEndedAt: null,
    });
  });

  it("records nothing for a thread without a checkpoint when the run lost its lease", async () => {
    const { context, store } = await setup(null, { claim: false });
    expect(await planPass(context)).toMatchObject({ status: "skipped", reason: "lease_lost" });
    expect(await store.getPass(job.orgId, job.threadId)).toBeNull();
  });

  it("skips a pass that would save less than minCharsPerPass, covering the turn", async () => {
    // Two pages of 12,000 chars, each digest capped at 2,000 (the default cap): 20,000 at most.
    const messages = threadOf([page("c0", 0), page("c1", 12_000)]);
    const capped = await setup(messages, { options: { minCharsPerPass: 20_000, digestCharCap: 2_000 } });
    expect(digestIds(asPlan(await planPass(capped.context)))).toEqual(["c0", "c1"]);

    const { context, store } = await setup(messages, {
      options: { minCharsPerPass: 20_001, digestCharCap: 2_000 },
    });
    expect(await planPass(context)).toMatchObject({ status: "skipped", reason: "below_min_chars" });
    expect(await store.getPass(job.orgId, job.threadId)).toMatchObject({
      status: "skipped",
      reason: "below_min_chars",
      coveredTurnEndedAt: at,
    });
  });

  it("counts a free row's savings exactly: its original chars less its digest's", async () => {
    const reads = [page("c0", 0)];
    const seed = [storedRow("thread-0", reads[0] as Read)];
    const saved = 12_000 - "digest of c0".length;
    const atThreshold = await setup(threadOf(reads), { seed, options: { minCharsPerPass: saved } });
    expect(rowIds(asPlan(await planPass(atThreshold.context)))).toEqual(["c0"]);
    const above = await setup(threadOf(reads), { seed, options: { minCharsPerPass: saved + 1 } });
    expect(await planPass(above.context)).toMatchObject({ status: "skipped", reason: "below_min_chars" });
  });

  it("counts no savings of a page shorter than the digest cap", async () => {
    const messages = threadOf([page("c0", 0, 3_000), page("c1", 3_000, 3_000)]);
    const { context } = await setup(messages, { options: { minCharsPerPass: 1, digestCharCap: 5_000 } });
    expect(await planPass(context)).toMatchObject({ status: "skipped", reason: "below_min_chars" });
  });

  it("records nothing of a pass below the threshold when the run lost its lease", async () => {
    const { context, store } = await setup(threadOf([page("c0", 0)]), {
      options: { minCharsPerPass: 1_000_000 },
      claim: false,
    });
    expect(await planPass(context)).toMatchObject({ status: "skipped", reason: "lease_lost" });
    expect(await store.getPass(job.orgId, job.threadId)).toBeNull();
  });
});

describe("planPass: what is left to digest", () => {
  it("digests the pages without a digest of their content, counting stale digests", async () => {
    const reads = [page("c0", 0), page("c1", 12_000), page("c2", 24_000), page("c3", 36_000)];
    const messages = threadOf(reads);
    const { context } = await setup(messages, {
      seed: [
        storedRow(job.threadId, reads[0] as Read),
        storedRow(job.threadId, reads[1] as Read, { contentSha256: "0".repeat(64) }),
        storedRow(job.threadId, reads[2] as Read, { contentSha256: "1".repeat(64) }),
      ],
    });
    const plan = asPlan(await planPass(context));
    // c0's digest matches its content; c1's and c2's are of other content: stale, digested again.
    expect(digestIds(plan)).toEqual(["c1", "c2", "c3"]);
    expect(plan.rows).toEqual([]);
    expect(context.stats.stale).toBe(2);
    expect(context.stats.reused).toBe(0);
  });

  it("leaves a page shorter than minCandidateChars raw, and digests one of exactly that length", async () => {
    const messages = threadOf([page("c0", 0, 9_000), page("c1", 9_000, 8_999), page("c2", 18_000, 12_000)]);
    const { context } = await setup(messages, { options: { minCandidateChars: 9_000 } });
    expect(digestIds(asPlan(await planPass(context)))).toEqual(["c0", "c2"]);
  });

  it.each([
    ["tool call id", page(`c${NUL}1`, 12_000)],
    [
      "provenance args",
      ["c1", "read_document", { file_id: `f${NUL}1`, offset: 12_000 }, filler("p", 12_000)] as Read,
    ],
    [
      "tool name",
      ["c1", `read${NUL}document`, { file_id: "f1", offset: 12_000 }, filler("p", 12_000)] as Read,
    ],
  ])("leaves raw a result whose %s the store cannot keep as the thread has it", async (_, odd) => {
    const messages = threadOf([page("c0", 0), odd, page("c2", 24_000)]);
    const { context } = await setup(messages, {
      options: {
        policy: { tools: { [`read${NUL}document`]: { kind: "document-read", provenanceArgs: ["file_id"] } } },
      },
    });
    expect(digestIds(asPlan(await planPass(context)))).toEqual(["c0", "c2"]);
  });
});

describe("planPass: the next turn's view", () => {
  it("digests the pages the turn that just ended read, which the next turn's wall leaves behind", async () => {
    const thread = threadBuilder();
    thread.user("question 0");
    thread.assistant("answer 0");
    thread.user("Read the lease.");
    for (const [id, tool, args, content] of [page("c0", 0), page("c1", 12_000)])
      thread.call(id, tool, args, content);
    thread.assistant("The lease runs five years.");
    const { context } = await setup(thread.messages);
    expect(digestIds(asPlan(await planPass(context)))).toEqual(["c0", "c1"]);
  });
});

describe("planPass: free rows", () => {
  it("asks the store for reusable digests of the pages only, not of superseded searches", async () => {
    const hits = `${Array.from({ length: 40 }, (_, hit) => `id: doc-${hit} title: result ${hit}`).join("\n")}\n`;
    const reads: Read[] = [
      ["s0", "search", { query: "lease" }, hits + filler("snippets", 10_000)],
      ["s1", "search", { query: "lease terms" }, hits + filler("more snippets", 10_000)],
      page("c0", 0),
    ];
    const messages = threadOf(reads);
    const { context, store } = await setup(messages);
    const asked: string[][] = [];
    const find = store.findReusableDigests.bind(store);
    store.findReusableDigests = async (orgId, hashes) => {
      asked.push([...hashes]);
      return find(orgId, hashes);
    };
    const plan = asPlan(await planPass(context));
    expect(rowIds(plan)).toEqual(["s0"]);
    expect(asked).toEqual([[messageContentSha256(resultOf(messages, "c0"))]]);
  });

  it("reuses the org's digest of the same content read the same way, at no cost", async () => {
    const reads = [page("c0", 0), page("c1", 12_000)];
    const messages = threadOf(reads);
    const elsewhere = storedRow("thread-0", reads[0] as Read);
    const { context } = await setup(messages, { seed: [elsewhere] });
    const plan = asPlan(await planPass(context));
    expect(plan.rows).toEqual([
      {
        ...elsewhere,
        threadId: job.threadId,
        contentSha256: messageContentSha256(resultOf(messages, "c0")),
        inputTokens: 0,
        outputTokens: 0,
        costUsd: 0,
      },
    ]);
    expect(digestIds(plan)).toEqual(["c1"]);
    expect(context.stats.reused).toBe(1);
  });

  it("digests a page whose content the org digested as read by another tool", async () => {
    const reads = [page("c0", 0), page("c1", 12_000)];
    const { context } = await setup(threadOf(reads), {
      seed: [storedRow("thread-0", reads[0] as Read, { toolName: "read_file" })],
    });
    const plan = asPlan(await planPass(context));
    expect(plan.rows).toEqual([]);
    expect(digestIds(plan)).toEqual(["c0", "c1"]);
    expect(context.stats.reused).toBe(0);
  });

  it("writes a superseded search's stub instead of digesting it", async () => {
    const hits = `${Array.from({ length: 40 }, (_, hit) => `id: doc-${hit} title: result ${hit}`).join("\n")}\n`;
    const reads: Read[] = [
      ["s0", "search", { query: "lease" }, hits + filler("snippets", 10_000)],
      ["s1", "search", { query: "lease terms" }, hits + filler("more snippets", 10_000)],
      page("c0", 0),
    ];
    const { context } = await setup(threadOf(reads));
    const plan = asPlan(await planPass(context));
    expect(rowIds(plan)).toEqual(["s0"]);
    expect(plan.rows[0]).toMatchObject({ kind: "superseded-search", toolName: "search", costUsd: 0 });
    expect(digestIds(plan)).not.toContain("s0");
    expect(digestIds(plan)).toContain("c0");
    expect(context.stats.reused).toBe(0);
  });
});
