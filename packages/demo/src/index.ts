/**
 * `@context-cleaner/demo`: the demo `npm start` runs and the peer benchmark plays — the
 * turn-by-turn simulation through the runtime's caps, the contestants (raw, the peers and
 * context-cleaner), the worker between turns, the comparison and the HTML report. The
 * fixture generator the threads come from is `@context-cleaner/demo/generator`.
 */
export { ANTHROPIC_CACHE, CHARS_PER_TOKEN, OPENAI_CACHE, TARIFFS } from "./cache-prices";
export { SCENARIOS } from "./cache-scenarios";
export type { ComparisonRow } from "./comparison";
export {
  type ComparisonTable,
  comparisonTables,
  renderComparisonTable,
  renderComparisonTables,
  renderMarkdownTable,
  renderTables,
  setTables,
  singleTurnTable,
  type TableSource,
} from "./comparison-tables";
export { WITH_DIGESTS, WITH_DIGESTS_AT_TURN_END, withAssembleOptions } from "./contestants";
export { type FloorCost, floorComparison, formatShare } from "./cost-comparison";
export { type BetweenTurnsRoute, DEMO_DEFAULTS, type DemoOptions, runDemo } from "./demo";
export { fixtureThreads, longThreads, singleTurnThreads } from "./demo-threads";
export { createLineup } from "./lineup";
export { playThreads } from "./play-threads";
export { renderReport } from "./report-html";
export { buildReportSet, REPORT_DEFINITIONS } from "./report-sets";
export {
  type CallCounter,
  type ContestantRun,
  largestPromptChars,
  type ObservedCall,
  simulateThread,
  type ThreadSimulation,
  turnsBeforeFirstCut,
} from "./simulate-turns";
export type { BetweenTurnsWorker, TurnEnd } from "./worker-between-turns";
