import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { createExtractiveDigester, systemClock } from "@context-cleaner/core";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { renderComparisonTables } from "./comparison-tables";
import { fixtureThreads, longThreads } from "./demo-threads";
import { playThreads, progressLine } from "./play-threads";
import { renderReport } from "./report-html";
import { buildReportSet, REPORT_DEFINITIONS } from "./report-sets";
import type { BetweenTurnsWorker } from "./worker-between-turns";

/** Defaults of the demo. */
export const DEMO_DEFAULTS = {
  /** The HTML report, relative to the working directory. */
  reportPath: ".context-cleaner/report.html",
  /** Long threads played after the checked-in ones (the benchmark plays all four). */
  longThreads: 1,
} as const;

export interface DemoOptions {
  /** @default ".context-cleaner/report.html" */
  reportPath?: string;
  /** @default 1 */
  longThreads?: number;
  /** A database URL. @default "pglite://" (embedded, in memory) */
  databaseUrl?: string;
  /**
   * Routes the worker's passes another way, e.g. through a queue: given the demo's worker
   * (its store, digester and clock), returns the pass to run after each turn, a line
   * describing it, and what to release when the demo ends.
   * @default each pass runs in this process, straight over the turn's checkpoint
   */
  betweenTurns?: (worker: BetweenTurnsWorker) => Promise<BetweenTurnsRoute>;
}

/** How the demo's worker passes run when they do not run straight (see {@link DemoOptions.betweenTurns}). */
export interface BetweenTurnsRoute {
  runPass: NonNullable<BetweenTurnsWorker["runPass"]>;
  /** Printed before the turns, after the demo's own description. */
  description: string;
  close(): Promise<void>;
}

/**
 * The main job on embedded defaults, no account and no key: plays the fixture threads turn
 * by turn through the runtime's caps, with the worker (extractive digester, in-memory
 * PGlite) running between turns, next to the peers; prints a line per turn and the
 * comparison, and writes the HTML report.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the demo script read top to bottom (its printed explanation is most of it)
export async function runDemo(write: (line: string) => void, options: DemoOptions = {}): Promise<void> {
  const reportPath = resolve(options.reportPath ?? DEMO_DEFAULTS.reportPath);
  const database = await createDatabase(options.databaseUrl ?? "pglite://");
  let route: BetweenTurnsRoute | undefined;
  try {
    await database.migrate();
    const direct: BetweenTurnsWorker = {
      store: createDigestRepository(database),
      digester: createExtractiveDigester(),
      clock: systemClock,
    };
    route = await options.betweenTurns?.(direct);
    const worker: BetweenTurnsWorker = route ? { ...direct, runPass: route.runPass } : direct;
    const onTurn = (
      thread: { name: string },
      turn: number,
      turns: number,
      records: Parameters<typeof progressLine>[3],
    ) => write(progressLine(thread.name, turn, turns, records));

    write(
      "Playing the fixture threads turn by turn: tool results arrive in order through the runtime's caps",
    );
    write(
      "(60,000 per result; past 600,000 tool chars a new result is condensed to its headings and figures), the worker digests",
    );
    write(
      "between turns (extractive digester, embedded PGlite, no network), and each model call's view is built",
    );
    write("by every contestant. Each line: context-cleaner with digests (blind caps in brackets).\n");
    if (route) write(`${route.description}\n`);
    const fixtures = await playThreads(fixtureThreads(), { worker, orgPrefix: "demo-fixture", onTurn });
    write("\nThe long version of the first thread: more reading turns, past the 2,000,000 raw ceiling.\n");
    const long = await playThreads(longThreads(options.longThreads ?? DEMO_DEFAULTS.longThreads), {
      worker,
      orgPrefix: "demo-long",
      onTurn,
    });

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
        "The first fixture thread with more reading turns from the same generator, past the 2,000,000 raw ceiling (npm run bench:peers plays all four).",
        long,
      ),
    ];
    for (const set of sets) {
      write(`\n## ${set.title}\n\n${renderComparisonTables(set.rows, set.floor)}\n`);
      write(set.findings.map((line) => `- ${line}`).join("\n"));
    }

    const sampled = long[0] ?? fixtures[0];
    const html = renderReport({
      title: "context-cleaner: turns through the caps",
      summary:
        "Every contestant played the same threads turn by turn through the same caps and the same 320,000-char history budget; context-cleaner's digests come from its worker running between turns. Costs are priced per model call under prompt caching, headlined as the share of the avoidable cost (raw's cost above the floor) each removes; retention is measured at every model call and in each thread's last view.",
      definitions: REPORT_DEFINITIONS,
      sets,
      ...(sampled?.digestSample ? { digest: { thread: sampled.thread, sample: sampled.digestSample } } : {}),
    });
    await mkdir(dirname(reportPath), { recursive: true });
    await writeFile(reportPath, html);
    write(`\nReport: ${reportPath}`);
  } finally {
    try {
      await route?.close();
    } finally {
      await database.close();
    }
  }
}
