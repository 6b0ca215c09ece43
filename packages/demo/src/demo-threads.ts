/**
 * The threads the demo plays: the fixture threads and the long version of the first (more
 * reading turns from the same seeded generator, `./generator`), and the single-turn threads
 * the benchmark plays. All are generated here;
 * the repository's test/fixtures/threads JSON holds the same bytes as the
 * fixture threads (checked by its fixtures test).
 */
import { buildLongThread, generateFixtures, generateSingleTurnThreads, THREAD_PLANS } from "./generator";
import type { SimulationThread } from "./simulate-turns";

/** The fixture threads (four turns each), generated from their seeds (~2 s). */
export function fixtureThreads(): SimulationThread[] {
  return generateFixtures();
}

/** Long versions of the first `count` fixture threads, generated (a few seconds each). */
export function longThreads(count = THREAD_PLANS.length): SimulationThread[] {
  return THREAD_PLANS.slice(0, count).map((plan) => buildLongThread(plan, THREAD_PLANS));
}

/**
 * The single-turn threads (one user turn each: the legal fan-outs, the every-junk turn and
 * the coding-agent turns), generated (~2 s).
 */
export function singleTurnThreads(): SimulationThread[] {
  return generateSingleTurnThreads();
}
