/**
 * Peers benchmark: every fixture thread played turn by turn through the runtime's caps,
 * side by side — raw; blind caps + drop-oldest; LangChain `trimMessages`; the AI SDK's
 * `pruneMessages`; clear old tool results (keep 3); context-cleaner inline only and with
 * digests (the worker running between turns), each priced per model call under prompt caching
 * with every call warm and with each turn cold. Three sets: the checked-in fixtures, their
 * long versions (more reading turns, past the raw ceiling), and the single-turn threads (one
 * long user turn each: legal fan-outs, every junk category in one turn, coding-agent turns).
 * Prints, per set of turns, the comparison
 * (headline: the share of the avoidable cost removed, raw's cost above the floor of every
 * message written once; retention at every call), the cost under every tariff and what each
 * turn's first call still has of the previous turn, each cost table with a floor row; where
 * context-cleaner loses to a peer; and per-thread summaries; for the single-turn set, the
 * single-turn table (cost warm, largest prompt, retention at every call, results cut, cache
 * breaks and batches applied, the providers' counters) over all its threads and per thread,
 * and the cost table; writes
 * bench-results/peers.json and bench-results/peers.html. Not a test: nothing asserts.
 *
 *   npm run bench:peers                       (every assistant message carries thinking)
 *   BENCH_THINKING=off npm run bench:peers    (no thinking)
 *   BENCH_READ_ORIGINAL=on npm run bench:peers (context-cleaner with the read_original tool on)
 */
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createExtractiveDigester, systemClock } from "@context-cleaner/core";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import {
  ANTHROPIC_CACHE,
  buildReportSet,
  CHARS_PER_TOKEN,
  type ComparisonRow,
  type ContestantRun,
  createLineup,
  fixtureThreads,
  formatShare,
  longThreads,
  OPENAI_CACHE,
  playThreads,
  REPORT_DEFINITIONS,
  renderReport,
  renderTables,
  SCENARIOS,
  setTables,
  singleTurnThreads,
  TARIFFS,
  type ThreadSimulation,
  turnsBeforeFirstCut,
  withAssembleOptions,
} from "@context-cleaner/demo";

const OUTPUT = join(import.meta.dirname, "../../bench-results");

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  return sorted[sorted.length >> 1] ?? 0;
}

/** The simulation without per-call timings and page texts (they stay in the HTML report). */
function jsonOf(simulation: ThreadSimulation) {
  return {
    thread: simulation.thread,
    turns: simulation.turns,
    probes: simulation.probes,
    rawChars: simulation.rawChars,
    floor: simulation.floor,
    passes: simulation.passes,
    contestants: simulation.contestants.map(({ viewMs, ...run }) => ({
      ...run,
      medianViewMs: median(viewMs),
      turnsBeforeFirstCut: turnsBeforeFirstCut(run as ContestantRun),
    })),
  };
}

function summaryLine(simulation: ThreadSimulation): string {
  const run = (id: string) =>
    simulation.contestants.find((candidate) => candidate.id === id) as ContestantRun;
  const cut = (candidate: ContestantRun) =>
    `${turnsBeforeFirstCut(candidate)}${candidate.firstBudgetCutTurn === null ? "+" : ""}`;
  const cuts = (candidate: ContestantRun) => candidate.turns.reduce((sum, turn) => sum + turn.budgetCuts, 0);
  const blind = run("blind-caps");
  const effective = run("with-digests");
  const turnEnd = run("with-digests-turn-end");
  const last = effective.turns.at(-1);
  return `| ${simulation.thread} | ${simulation.turns} | ${cut(blind)} (${cuts(blind)} cut) | ${cut(effective)} (${cuts(effective)} cut) | ${cut(turnEnd)} (${cuts(turnEnd)} cut) | ${last?.retention.strict}/${last?.retention.recoverable}/${last?.retention.total} |`;
}

/**
 * One line per thread under the Anthropic 5-minute tariff: the floor's cost over raw's, and
 * every contestant's share of the avoidable cost removed with its cost over raw's, warm / cold.
 */
function costLines(simulations: readonly ThreadSimulation[], rows: readonly ComparisonRow[]): string[] {
  const header = `| thread | floor | ${rows.map((row) => row.label).join(" | ")} |`;
  const lines = [header, `|---|---:|${rows.map(() => "---:").join("|")}|`];
  for (const [index, simulation] of simulations.entries()) {
    const raw = simulation.contestants.find((run) => run.id === "raw");
    const rawCost = (scenario: "warm" | "cold") =>
      raw?.turns.reduce((sum, turn) => sum + turn.cost[scenario].units["anthropic-5m"], 0);
    const floorRatio = (scenario: "warm" | "cold") => {
      const cost = rawCost(scenario);
      return cost ? `${(simulation.floor["anthropic-5m"] / cost).toFixed(2)}×` : "–";
    };
    const cells = rows.map((row) => {
      const entry = (scenario: "warm" | "cold") => row.cost[scenario].perThread[index];
      const ratio = (scenario: "warm" | "cold") => entry(scenario)?.vsRaw?.toFixed(2) ?? "–";
      return `${formatShare(entry("warm")?.removed)} / ${formatShare(entry("cold")?.removed)} (${ratio("warm")}× / ${ratio("cold")}×)`;
    });
    lines.push(
      `| ${simulation.thread} | ${floorRatio("warm")} / ${floorRatio("cold")} | ${cells.join(" | ")} |`,
    );
  }
  return lines;
}

const started = performance.now();
const database = await createDatabase("pglite://");
try {
  await database.migrate();
  const worker = {
    store: createDigestRepository(database),
    digester: createExtractiveDigester(),
    clock: systemClock,
  };
  // Every assistant message carries thinking, as on the newest models; BENCH_THINKING=off plays
  // without. BENCH_READ_ORIGINAL=on plays context-cleaner with the read_original tool on.
  const thinking = process.env.BENCH_THINKING !== "off";
  const readOriginal = process.env.BENCH_READ_ORIGINAL === "on";
  const contestants = () =>
    createLineup().map((contestant) =>
      readOriginal ? withAssembleOptions(contestant, { readOriginal: true }) : contestant,
    );
  const play = { worker, thinking, contestants };
  const fixtures = await playThreads(fixtureThreads(), { ...play, orgPrefix: "bench-fixture" });
  const long = await playThreads(longThreads(), { ...play, orgPrefix: "bench-long" });
  const single = await playThreads(singleTurnThreads(), { ...play, orgPrefix: "bench-single" });
  const sets = [
    buildReportSet(
      "fixtures",
      "Checked-in fixture threads",
      "The four fixture threads as checked in: four user turns each (three reading turns and the closing request).",
      fixtures,
    ),
    buildReportSet(
      "long",
      "Long threads",
      "The four fixture threads with more reading turns from the same generator, past the 2,000,000 raw ceiling.",
      long,
    ),
    buildReportSet(
      "single-turn",
      "Single-turn threads",
      "One long user turn each, thinking on, through the same caps: twelve contracts read in full, five read side by side, every junk category in one turn, and two coding-agent turns (bash / shell). The history budget is passed long before each turn ends.",
      single,
      "single-turn",
    ),
  ];
  for (const set of sets) {
    console.log(`\n## ${set.title}\n\n${renderTables(setTables(set))}\n`);
    console.log(set.findings.map((line) => `- ${line}`).join("\n"));
  }
  console.log(
    "\n## Per thread: turns before the first budget cut (results cut) and context-cleaner's last view\n",
  );
  console.log(
    "| thread | turns | blind caps | with digests | with digests, worker at turn end | with digests: strict / recoverable / probes |",
  );
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const simulation of [...fixtures, ...long]) console.log(summaryLine(simulation));
  console.log(
    "\n## Per thread: share of the avoidable cost removed (cost / raw), Anthropic 5-minute cache, every call warm / each turn cold\n",
  );
  console.log(
    sets
      .filter((set) => set.kind !== "single-turn")
      .map((set) => costLines(set.simulations, set.rows).join("\n"))
      .join("\n\n"),
  );
  console.log(
    "\nThe floor column: the floor's cost over raw's (every message written once, nothing read). A contestant costing more than raw shows a negative share.",
  );

  await mkdir(OUTPUT, { recursive: true });
  await writeFile(
    join(OUTPUT, "peers.json"),
    `${JSON.stringify(
      {
        definitions: REPORT_DEFINITIONS,
        prices: {
          charsPerToken: CHARS_PER_TOKEN,
          anthropic: ANTHROPIC_CACHE,
          openai: OPENAI_CACHE,
          tariffs: TARIFFS,
        },
        scenarios: SCENARIOS,
        sets: sets.map((set) => ({
          id: set.id,
          title: set.title,
          kind: set.kind ?? "turns",
          rows: set.rows,
          floor: set.floor,
          findings: set.findings,
          simulations: set.simulations.map(jsonOf),
        })),
      },
      null,
      2,
    )}\n`,
  );
  const sampled = long[0];
  await writeFile(
    join(OUTPUT, "peers.html"),
    renderReport({
      title: "context-cleaner: turns through the caps (all threads)",
      summary:
        "Every contestant played the same threads turn by turn through the same caps and the same 320,000-char history budget; context-cleaner's digests come from its worker running between turns. Costs are priced per model call under prompt caching, headlined as the share of the avoidable cost (raw's cost above the floor) each removes; retention is measured at every model call and in each thread's last view.",
      definitions: REPORT_DEFINITIONS,
      sets,
      ...(sampled?.digestSample ? { digest: { thread: sampled.thread, sample: sampled.digestSample } } : {}),
    }),
  );
  console.log(
    `\nWrote ${join(OUTPUT, "peers.json")} and peers.html in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  await database.close();
}
