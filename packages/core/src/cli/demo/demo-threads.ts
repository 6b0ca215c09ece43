/**
 * The threads the demo plays: the fixture threads checked in with this repository and the
 * long version of the first (more reading turns from the same seeded generator). The CLI
 * runs its TypeScript sources from the repository, so the demo reads the same fixtures the
 * eval battery and the benchmark use.
 */
import { buildLongThread, THREAD_PLANS } from "../../../../../test/fixtures/generator";
import { loadFixtures } from "../../../../../test/fixtures/load-fixtures";
import type { SimulationThread } from "./simulate-turns";

/** The checked-in fixture threads (four turns each). */
export function fixtureThreads(): SimulationThread[] {
  return loadFixtures();
}

/** Long versions of the first `count` fixture threads, generated (a few seconds each). */
export function longThreads(count = THREAD_PLANS.length): SimulationThread[] {
  return THREAD_PLANS.slice(0, count).map((plan) => buildLongThread(plan, THREAD_PLANS));
}
