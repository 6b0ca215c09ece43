import type { Clock } from "./ports";

/** A clock fixed at one instant, or advancing by `stepMs` on each read. */
export function fixedClock(at: Date, stepMs = 0): Clock {
  let current = at.getTime();
  return {
    now() {
      const value = new Date(current);
      current += stepMs;
      return value;
    },
  };
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };
