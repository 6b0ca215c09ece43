import type { Clock } from "../../src/ports";

/** A clock that stands still until the test moves it. */
export interface ManualClock extends Clock {
  advance(seconds: number): void;
}

export function manualClock(start = new Date("2026-03-01T12:00:00Z")): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(seconds) {
      current += seconds * 1000;
    },
  };
}
