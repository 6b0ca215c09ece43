import { createExtractiveDigester, fixedClock } from "@context-cleaner/core";
import { createDatabase, createDigestRepository, type Database } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLIND_CAPS, CLEAR_TOOL_RESULTS, RAW, WITH_DIGESTS } from "./contestants";
import { fixtureThreads } from "./demo-threads";
import { anthropicRequest, providerCheckCounters, withThinking } from "./provider-checks";
import {
  type ContestantRun,
  type SimulationThread,
  simulateThread,
  type ThreadSimulation,
} from "./simulate-turns";

const fixture = fixtureThreads().find((candidate) => candidate.name === "credit-agreement");
let database: Database;
let simulation: ThreadSimulation;
const counted = (id: string, counter: string) =>
  (simulation.contestants.find((run) => run.id === id) as ContestantRun).turns.reduce(
    (sum, turn) => sum + (turn.counts?.[counter] ?? 0),
    0,
  );

beforeAll(async () => {
  if (!fixture) throw new Error("the credit-agreement fixture is missing");
  database = await createDatabase("pglite://");
  await database.migrate();
  simulation = await simulateThread(
    { ...fixture, messages: withThinking(fixture.messages) },
    {
      contestants: [RAW, BLIND_CAPS, CLEAR_TOOL_RESULTS, WITH_DIGESTS],
      worker: {
        store: createDigestRepository(database),
        digester: createExtractiveDigester(),
        clock: fixedClock(new Date("2026-01-06T12:00:00.000Z")),
      },
      orgId: "provider-checks-test",
      counters: providerCheckCounters(),
    },
  );
});

afterAll(async () => {
  await database?.close();
});

describe("the providers' checks over a played thread with thinking on every assistant message", () => {
  it("puts a thinking block first in every assistant message, and nowhere else", () => {
    const messages = withThinking((fixture as SimulationThread).messages);
    for (const message of messages) {
      const first = typeof message.content === "string" ? undefined : message.content[0];
      expect(first?.type === "thinking").toBe(message.role === "assistant");
    }
  });

  it("sends a view's leading system message as the request's system prompt, not as a user message", () => {
    const messages = withThinking((fixture as SimulationThread).messages);
    const system = messages[0];
    expect(system?.role).toBe("system");
    const request = anthropicRequest(messages, (placeholder) => placeholder, false);
    expect(request.system).toBe(system?.content);
    expect(request.messages[0]?.role).toBe("user");
    expect(request.messages[0]?.content).toEqual([{ type: "text", text: messages[1]?.content }]);
    expect(request.messages).toHaveLength(
      anthropicRequest(messages.slice(1), (placeholder) => placeholder, false).messages.length,
    );
  });

  it("refuses nothing and drops nothing of raw, which only appends", () => {
    expect(counted("raw", "refused")).toBe(0);
    expect(counted("raw", "reasoning-dropped")).toBe(0);
  });

  it("refuses the requests of peers that change history under the thinking, and drops their reasoning", () => {
    expect(counted("blind-caps", "refused")).toBeGreaterThan(0);
    expect(counted("clear-tool-results", "refused")).toBeGreaterThan(0);
    expect(counted("clear-tool-results", "reasoning-dropped")).toBeGreaterThan(0);
  });

  it("refuses none of context-cleaner's requests and drops none of its reasoning, though it condenses", () => {
    expect(counted("with-digests", "refused")).toBe(0);
    expect(counted("with-digests", "reasoning-dropped")).toBe(0);
    const digests = simulation.contestants.find((run) => run.id === "with-digests") as ContestantRun;
    expect(digests.turns.at(-1)?.promptChars).toBeLessThan(0.3 * simulation.rawChars);
  });
});
