import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { manualClock } from "#test/core/fakes/manual-clock";
import { filler } from "#test/core/fixtures/golden-threads";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import type { CheckpointReader, DigestModel } from "../ports";
import { type DigestJobPayload, parseDigestJobPayload } from "./payload";
import { runDigestJob } from "./run-digest-job";

/** One long turn reading a lease page by page, one page an exchange; ids on every message. */
function longTurn(pages: number, answered: boolean): Message[] {
  const messages: Message[] = [
    { id: "u1", role: "user", content: "Read the whole lease and list its covenants." },
  ];
  for (let page = 1; page <= pages; page++) {
    const id = `p${page}`;
    messages.push({
      id: `a${page}`,
      role: "assistant",
      content: "",
      toolCalls: [{ id, name: "read_document", args: { file_id: "lease", offset: page * 15_000 } }],
    });
    messages.push({
      id: `t${page}`,
      role: "tool",
      toolCallId: id,
      toolName: "read_document",
      content: filler(`P${page}`, 15_000),
    });
  }
  if (answered) messages.push({ id: "a-end", role: "assistant", content: "Here are the covenants." });
  return messages;
}

const rawChars = (messages: readonly Message[]) =>
  messages.reduce((sum, message) => sum + (message.role === "tool" ? String(message.content).length : 0), 0);

const storage = usePgliteRepository();
let threads = 0;

function setup() {
  const threadId = `mid-turn-${++threads}`;
  const orgId = `org-mid-turn-${threads}`;
  const checkpoint: { messages: Message[] } = { messages: [] };
  const checkpoints: CheckpointReader = { readThread: async () => [...checkpoint.messages] };
  const digested: string[] = [];
  const extractive = createExtractiveDigester();
  const digester: DigestModel = {
    id: "recording",
    async digest(request) {
      digested.push(...request.pages.map((page) => page.toolCallId));
      return extractive.digest(request);
    },
  };
  const lock = { held: true };
  const ports = {
    checkpoints,
    store: storage.repository,
    digester,
    clock: manualClock(new Date("2026-11-30T10:05:00.000Z")),
    lock: { isHeld: async () => lock.held },
  };
  const event = (messages: readonly Message[], at: string, midTurn: boolean): DigestJobPayload =>
    parseDigestJobPayload({
      orgId,
      threadId,
      rawToolChars: rawChars(messages),
      turnEndedAt: at,
      messageCount: messages.length,
      lastMessageId: messages.at(-1)?.id,
      ...(midTurn ? { midTurn: true } : {}),
    });
  const rowIds = async () => [...(await storage.repository.loadThreadDigests(orgId, threadId)).keys()].sort();
  return { orgId, threadId, checkpoint, ports, digested, lock, event, rowIds };
}

describe("runDigestJob: a mid-turn event", () => {
  it("digests the pages the turn moved past while it runs, keeps its latest exchange raw and covers no turn; the turn-ended event digests the rest", async () => {
    const job = setup();
    const underWay = longTurn(8, false);
    job.checkpoint.messages = underWay;
    const midTurn = job.event(underWay, "2026-11-30T10:01:00.000Z", true);
    expect(midTurn.midTurn).toBe(true);

    // The turn holds its lock: a mid-turn event's pass runs all the same.
    const first = await runDigestJob(
      midTurn,
      job.ports,
      {},
      { queuedAt: new Date("2026-11-30T10:01:00.050Z") },
    );
    expect(first).toMatchObject({ status: "done", digestsWritten: 7 });
    expect(await job.rowIds()).toEqual(["p1", "p2", "p3", "p4", "p5", "p6", "p7"]);
    expect(
      (await storage.repository.getPass(job.orgId, job.threadId))?.coveredTurnEndedAt ?? null,
    ).toBeNull();

    // The turn reads two more pages and answers; its turn-ended event is queued later.
    const ended = longTurn(10, true);
    job.checkpoint.messages = ended;
    job.lock.held = false;
    const last = await runDigestJob(
      job.event(ended, "2026-11-30T10:03:00.000Z", false),
      job.ports,
      {},
      { queuedAt: new Date("2026-11-30T10:03:00.050Z") },
    );
    expect(last).toMatchObject({ status: "done", digestsWritten: 3 });
    // Hash-gated: only the pages without a row are digested again.
    expect(job.digested).toEqual(["p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8", "p9", "p10"]);
    expect((await job.rowIds()).length).toBe(10);
    expect((await storage.repository.getPass(job.orgId, job.threadId))?.coveredTurnEndedAt).toEqual(
      new Date("2026-11-30T10:03:00.051Z"),
    );
  });

  it("leaves the turn's latest midTurnKeepExchanges exchanges raw", async () => {
    const job = setup();
    const underWay = longTurn(8, false);
    job.checkpoint.messages = underWay;
    const outcome = await runDigestJob(job.event(underWay, "2026-11-30T10:01:00.000Z", true), job.ports, {
      midTurnKeepExchanges: 3,
    });
    expect(outcome).toMatchObject({ status: "done" });
    expect(await job.rowIds()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
  });

  it("an event without the mark, as an older runtime sends it mid-turn, waits for the turn lock as before", async () => {
    const job = setup();
    const underWay = longTurn(8, false);
    job.checkpoint.messages = underWay;
    const outcome = await runDigestJob(job.event(underWay, "2026-11-30T10:01:00.000Z", false), job.ports);
    expect(outcome).toMatchObject({ status: "skipped", reason: "turn_lock" });
    expect(job.digested).toEqual([]);
  });
});
