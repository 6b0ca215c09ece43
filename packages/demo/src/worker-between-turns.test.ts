import type { Message } from "@context-cleaner/assembler";
import { createExtractiveDigester, type DigestJobOutcome, fixedClock } from "@context-cleaner/core";
import { createDatabase, createDigestRepository, type Database } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BetweenTurnsWorker, runWorkerBetweenTurns, type TurnEnd } from "./worker-between-turns";

let database: Database;
let worker: BetweenTurnsWorker;

beforeAll(async () => {
  database = await createDatabase("pglite://");
  await database.migrate();
  worker = {
    store: createDigestRepository(database),
    digester: createExtractiveDigester(),
    clock: fixedClock(new Date("2026-01-06T12:00:00.000Z")),
  };
});

afterAll(async () => {
  await database?.close();
});

const turn: TurnEnd = {
  orgId: "seam",
  threadId: "t1",
  messages: [{ role: "user", content: "hello" }] as Message[],
  rawToolChars: 0,
  turnEndedAt: "2026-01-05T09:00:00.000Z",
};

describe("runWorkerBetweenTurns", () => {
  it("runs a digest pass itself when the worker has no runPass", async () => {
    expect(await runWorkerBetweenTurns(turn, worker)).toMatchObject({
      status: "skipped",
      reason: "below_trigger",
    });
  });

  it("hands the ended turn to the worker's runPass and returns what it resolves with", async () => {
    const seen: TurnEnd[] = [];
    const outcome: DigestJobOutcome = {
      status: "done",
      digestsWritten: 3,
      calls: 0,
      costUsd: 0,
      reused: 0,
      stale: 0,
      digestedPages: 0,
      fallbacks: 0,
      failedCalls: 0,
      deferred: 0,
      charsSaved: 0,
      droppedBullets: 0,
    };
    const routed = await runWorkerBetweenTurns(turn, {
      ...worker,
      runPass: async (ended) => {
        seen.push(ended);
        return outcome;
      },
    });
    expect(routed).toBe(outcome);
    expect(seen).toEqual([turn]);
    const unpublished = await runWorkerBetweenTurns(turn, { ...worker, runPass: async () => undefined });
    expect(unpublished).toBeUndefined();
  });
});
