import { createExtractiveDigester, DigestModelError, fixedClock, withFallback } from "@context-cleaner/core";
import {
  type BetweenTurnsWorker,
  fixtureThreads,
  simulateThread,
  type ThreadSimulation,
  WITH_DIGESTS,
  WITH_DIGESTS_AT_TURN_END,
} from "@context-cleaner/demo";
import { beforeAll, describe, expect, it } from "vitest";
import { usePgliteRepository } from "../../packages/db/test/conformance/pglite-repository";
import { createQueuedPasses, type QueuedPass, type QueuedPasses, queuedPassLine } from "./queued-passes";

// The credit-agreement fixture: four user turns, each of the first three ending above the trigger.
const thread = fixtureThreads().find((fixture) => fixture.name === "credit-agreement");
const contestants = () => [WITH_DIGESTS, WITH_DIGESTS_AT_TURN_END];
const storage = usePgliteRepository();
let worker: BetweenTurnsWorker;
let route: QueuedPasses;
const lines: string[] = [];
const warnings: string[] = [];
let queued: ThreadSimulation;
let direct: ThreadSimulation;

beforeAll(async () => {
  if (!thread) throw new Error("the credit-agreement fixture is missing");
  worker = {
    store: storage.repository,
    digester: createExtractiveDigester(),
    clock: fixedClock(new Date("2026-01-06T12:00:00.000Z")),
  };
  route = createQueuedPasses(worker, {
    onPass: (pass) => lines.push(queuedPassLine(pass)),
    warn: (line) => warnings.push(line),
  });
  try {
    queued = await simulateThread(thread, {
      contestants: contestants(),
      worker: { ...worker, runPass: route.runPass },
      orgId: "queued",
    });
  } finally {
    await route.close();
  }
  direct = await simulateThread(thread, { contestants: contestants(), worker, orgId: "direct" });
});

describe("createQueuedPasses: the demo's passes through the in-process queue", () => {
  it("publishes each ended turn, and the worker receives it once and its handler finishes the job", () => {
    // Three ended turns before the last, for each of the two worker timings.
    expect(route.passes).toHaveLength(6);
    for (const pass of route.passes) {
      expect(pass.published.status).toBe("sent");
      expect(pass.receivedCount).toBe(1);
      expect(pass.outcome).toBeDefined();
    }
    expect(route.passes.map((pass) => [pass.threadId, pass.turn])).toEqual([
      ["credit-agreement@turn-end", 1],
      ["credit-agreement@next-user-message", 1],
      ["credit-agreement@turn-end", 2],
      ["credit-agreement@next-user-message", 2],
      ["credit-agreement@turn-end", 3],
      ["credit-agreement@next-user-message", 3],
    ]);
    const ids = route.passes.map((pass) =>
      pass.published.status === "sent" ? pass.published.messageId : "",
    );
    expect(new Set(ids).size).toBe(6);
    expect(route.invocations).toBe(6);
    expect(warnings).toEqual([]);
  });

  it("hands each pass's outcome back to the turns, and the rows it wrote are in the store", async () => {
    const outcomes = (threadId: string) =>
      route.passes.filter((pass) => pass.threadId === threadId).map((pass) => pass.outcome);
    expect(queued.passes["next-user-message"]).toEqual(outcomes("credit-agreement@next-user-message"));
    expect(queued.passes["turn-end"]).toEqual(outcomes("credit-agreement@turn-end"));
    const written = (queued.passes["next-user-message"] ?? []).reduce(
      (sum, outcome) => sum + outcome.digestsWritten,
      0,
    );
    expect(written).toBeGreaterThan(0);
    const rows = await worker.store.loadThreadDigests("queued", "credit-agreement@next-user-message");
    expect(rows.size).toBeGreaterThan(0);
  });

  it("leaves the queue and its dead letters empty", async () => {
    expect(await route.queue.receive(10)).toEqual([]);
    expect(await route.queue.deadLetters?.receive(10)).toEqual([]);
  });

  it("gives the same passes and the same figures per turn as passes run straight", () => {
    const statuses = (simulation: ThreadSimulation) =>
      Object.fromEntries(
        Object.entries(simulation.passes).map(([timing, passes]) => [
          timing,
          passes.map((pass) => [pass.status, pass.digestsWritten, pass.charsSaved]),
        ]),
      );
    expect(Object.keys(statuses(direct)).sort()).toEqual(["next-user-message", "turn-end"]);
    expect(Object.values(statuses(direct)).every((passes) => passes.length > 0)).toBe(true);
    expect(statuses(queued)).toEqual(statuses(direct));
    const figures = (simulation: ThreadSimulation) =>
      simulation.contestants.map((run) =>
        run.turns.map((turn) => [turn.promptChars, turn.countedToolChars, turn.budgetCuts, turn.retention]),
      );
    expect(figures(direct).flat().length).toBeGreaterThan(0);
    expect(figures(queued)).toEqual(figures(direct));
  });

  it("prints a line per pass: the event sent, received and handled", () => {
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(
      /^ {2}↳ credit-agreement@next-user-message turn 1 ended → sent [0-9a-f]{8} → received \(receive 1\) → handled: (done|partial|skipped)/,
    );
  });
});

describe("createQueuedPasses below the trigger", () => {
  it("publishes nothing, so no pass runs and the handler is never invoked", async () => {
    if (!thread) throw new Error("the credit-agreement fixture is missing");
    const passes: QueuedPass[] = [];
    const quiet = createQueuedPasses(worker, {
      triggerChars: 10_000_000,
      onPass: (pass) => passes.push(pass),
    });
    let simulation: ThreadSimulation;
    try {
      simulation = await simulateThread(thread, {
        contestants: [WITH_DIGESTS],
        worker: { ...worker, runPass: quiet.runPass },
        orgId: "quiet",
        maxTurns: 2,
      });
    } finally {
      await quiet.close();
    }
    expect(passes.map((pass) => pass.published)).toEqual([{ status: "skipped", reason: "below_trigger" }]);
    expect(passes[0]?.outcome).toBeUndefined();
    expect(queuedPassLine(passes[0] as QueuedPass)).toBe(
      "  ↳ credit-agreement@next-user-message turn 1 ended → not published (below_trigger)",
    );
    expect(simulation.passes["next-user-message"]).toEqual([]);
    expect(quiet.invocations).toBe(0);
    expect((await worker.store.loadThreadDigests("quiet", "credit-agreement@next-user-message")).size).toBe(
      0,
    );
  });

  it("prints the handler's issues among its warning lines, e.g. a fallback rate over the alarm", async () => {
    if (!thread) throw new Error("the credit-agreement fixture is missing");
    const down = {
      id: "primary",
      digest: async () => {
        throw new DigestModelError("rejected", { reason: "client_error", status: 401 });
      },
    };
    const fallingBack = { ...worker, digester: withFallback(down, createExtractiveDigester()) };
    const printed: string[] = [];
    const outage = createQueuedPasses(fallingBack, { warn: (line) => printed.push(line) });
    try {
      await simulateThread(thread, {
        contestants: [WITH_DIGESTS],
        worker: { ...fallingBack, runPass: outage.runPass },
        orgId: "outage",
        maxTurns: 2,
      });
    } finally {
      await outage.close();
    }
    expect(outage.passes.length).toBeGreaterThan(0);
    expect(printed.filter((line) => line.startsWith("  issue: DigestFallbackRateHigh:"))).toHaveLength(
      outage.passes.length,
    );
    expect(printed.find((line) => line.includes("DigestFallbackRateHigh"))).toMatch(/"orgId":"outage"/);
  });
});
