import type { Message } from "@context-cleaner/assembler";
import { createDatabase, createDigestRepository, type Database } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixedClock } from "../../clock";
import { createExtractiveDigester } from "../../digesters/extractive-digester";
import { emptyStats } from "../../job/outcome";
import { type BetweenTurnsWorker, runWorkerBetweenTurns, type TurnEnd } from "./worker-between-turns";

let database: Database;
let worker: BetweenTurnsWorker;

beforeAll(async () => {
  database = await createDatabase();
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
    const outcome = { status: "done" as const, ...emptyStats(), digestsWritten: 3 };
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
