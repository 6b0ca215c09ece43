import type { AssemblyReport, DigestMap } from "@context-cleaner/assembler";
import { createTurnEventPublisher, type TurnEventOutcome } from "@context-cleaner/assembler/events";
import {
  contextCleanerPreModelHook,
  fromLangChain,
  langChainTurnEndedEvent,
} from "@context-cleaner/assembler/langchain";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { recordingLogger, recordingMetrics } from "#test/core/fakes/recorders";
import { usePgliteRepository } from "#test/db/conformance/pglite-repository";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { systemClock } from "../clock";
import { createExtractiveDigester } from "../digesters/extractive-digester";
import { createInProcessDigestQueue } from "../queue/in-process-queue";
import { inProcessSqsClient } from "./in-process-sqs-client";
import { startLocalWorker } from "./local-worker";

const storage = usePgliteRepository();

const PAGES = 20;

function page(at: number): string {
  const head = `ARTICLE ${at + 1}\nLease page ${at}: rent $${(at * 1_000 + 1_250).toLocaleString("en-US")}; §${at + 4}.2 applies. `;
  return (head + "Clause text continues. ".repeat(900)).slice(0, 20_000);
}

/** The turn's messages after it read `pages` pages of the lease, one an exchange. */
function turnAfter(pages: number): BaseMessage[] {
  const messages: BaseMessage[] = [new HumanMessage({ id: "u1", content: "Read the whole lease." })];
  for (let at = 0; at < pages; at++) {
    const id = `p${at}`;
    messages.push(
      new AIMessage({
        id: `a${at}`,
        content: "",
        tool_calls: [{ id, name: "read_document", args: { file_id: "lease_7", offset: at * 20_000 } }],
      }),
      new ToolMessage({ id: `t${at}`, content: page(at), tool_call_id: id, name: "read_document" }),
    );
  }
  return messages;
}

const textOf = (message: BaseMessage) => (typeof message.content === "string" ? message.content : "");

describe("a long turn with the local worker", () => {
  it("publishes mid-turn events, and the turn's later calls condense its earlier pages with the rows the worker wrote meanwhile", async () => {
    const threadId = "long-turn";
    const threads = new Map([[threadId, fromLangChain(turnAfter(0))]]);
    const queue = createInProcessDigestQueue();
    const worker = startLocalWorker({
      queue,
      pollIntervalMs: 5,
      dependencies: {
        ports: {
          checkpoints: createInMemoryCheckpointReader(threads),
          store: storage.repository,
          digester: createExtractiveDigester(),
          clock: systemClock,
        },
        logger: recordingLogger(),
        metrics: recordingMetrics(),
        jobOptions: { maxCallsPerJob: 100 },
      },
    });
    const events = createTurnEventPublisher({ queueUrl: "in-process", sqs: inProcessSqsClient(queue) });
    // What the runtime does beside the turn, awaited by the test between calls.
    const pending: Promise<unknown>[] = [];
    const published: TurnEventOutcome[] = [];
    const loads: number[] = [];
    const reports: AssemblyReport[] = [];
    const hook = contextCleanerPreModelHook({
      loadDigests: (id) => {
        const load: Promise<DigestMap> = storage.repository.loadThreadDigests("acme", id);
        pending.push(load.then((rows) => loads.push(rows.size)));
        return load;
      },
      publishMidTurn: async (event) => {
        const publish = events.publishTurnEnded({ orgId: "acme", ...event });
        pending.push(publish.then((outcome) => published.push(outcome)));
        await publish;
      },
      midTurnReloadDelayMs: 0,
      options: { onReport: (report) => reports.push(report) },
    });
    const runConfig = { configurable: { thread_id: threadId } };
    const views: BaseMessage[][] = [];
    try {
      for (let pages = 0; pages <= PAGES; pages++) {
        const messages = turnAfter(pages);
        // The checkpoint holds what the agent state holds before each model call.
        threads.set(threadId, fromLangChain(messages));
        const { llmInputMessages } = await hook({ messages }, runConfig);
        views.push(llmInputMessages);
        while (pending.length > 0) await Promise.all(pending.splice(0));
        await worker.idle();
        await new Promise((resolve) => setImmediate(resolve));
      }

      // One event every 120,000 chars of new tool output: 20 pages of 20,000 chars give three.
      expect(published.map((outcome) => outcome.status)).toEqual(["sent", "sent", "sent"]);
      // The turn's own load, then one reload per event, each finding rows the worker wrote.
      expect(loads[0]).toBe(0);
      expect(loads).toHaveLength(4);
      expect(loads[1]).toBeGreaterThan(0);

      // Later calls condensed earlier pages of this turn with the worker's rows.
      const withRows = reports.flatMap((report, call) =>
        report.ledger.entries
          .filter((entry) => entry.kind === "digest")
          .map((entry) => ({ call, id: entry.toolCallId })),
      );
      expect(withRows.length).toBeGreaterThan(0);
      const rowIds = new Set(withRows.map((entry) => entry.id));
      const rows = await storage.repository.loadThreadDigests("acme", threadId);
      for (const id of rowIds) {
        const at = Number(id.slice(1));
        const shown = views[withRows.find((entry) => entry.id === id)?.call as number]?.find(
          (message) => message instanceof ToolMessage && message.tool_call_id === id,
        );
        expect(shown && textOf(shown)).toBe(rows.get(id)?.digest);
        expect(textOf(shown as BaseMessage)).not.toBe(page(at));
      }

      // Rows loaded mid-turn never change what an earlier call sent: a call without a new
      // batch appends to the one before, and what a view shows condensed keeps its text.
      for (let call = 1; call < views.length; call++) {
        const before = views[call - 1] as BaseMessage[];
        const after = views[call] as BaseMessage[];
        const report = reports[call] as AssemblyReport;
        if (report.ledger.batch.status !== "applied") {
          expect(after.slice(0, before.length).map(textOf)).toEqual(before.map(textOf));
        }
        for (const id of (reports[call - 1] as AssemblyReport).ledger.condensedIds) {
          const at = (view: BaseMessage[]) =>
            view.find((message) => message instanceof ToolMessage && message.tool_call_id === id);
          expect(textOf(at(after) as BaseMessage)).toBe(textOf(at(before) as BaseMessage));
        }
      }

      // The turn-ended event still runs a pass that covers the whole turn.
      const ended = await events.publishTurnEnded({
        orgId: "acme",
        ...langChainTurnEndedEvent(threadId, turnAfter(PAGES)),
      });
      expect(ended.status).toBe("sent");
      await worker.idle();
      const pass = await storage.repository.getPass("acme", threadId);
      expect(pass?.coveredTurnEndedAt).not.toBeNull();
      expect((await storage.repository.loadThreadDigests("acme", threadId)).size).toBe(PAGES);
    } finally {
      await worker.stop();
    }
  });
});
