/**
 * `@context-cleaner/core/sweep`: the nightly sweep (threads left behind, and threads whose
 * turn event was lost) and its message builder.
 */
export type {
  SweepOptions,
  SweepPorts,
  SweepReason,
  SweepReport,
  SweepStore,
  SweptThread,
} from "./run-sweep";
export { runSweep, SWEEP_DEFAULTS } from "./run-sweep";
export { sweepMessage } from "./sweep-message";
