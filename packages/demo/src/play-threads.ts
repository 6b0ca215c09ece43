import type { Contestant } from "./contestants";
import { createLineup } from "./lineup";
import { providerCheckCounters, withThinking } from "./provider-checks";
import {
  type CallCounter,
  type SimulationThread,
  simulateThread,
  type ThreadSimulation,
  type TurnRecord,
} from "./simulate-turns";
import type { BetweenTurnsWorker } from "./worker-between-turns";

export interface PlayOptions {
  worker: BetweenTurnsWorker;
  /** Each thread runs as its own org (no digest reuse across threads). */
  orgPrefix: string;
  /** @default createLineup() per thread */
  contestants?: () => Contestant[];
  /**
   * Per-call counts added to every contestant's figures (a column each). @default the
   * providers' checks on thinking sent back (./provider-checks): requests Anthropic's
   * prefix check refuses and reasoning items OpenAI drops
   */
  counters?: readonly CallCounter[];
  /** Every assistant message carries a thinking block, as with thinking on. @default true */
  thinking?: boolean;
  onTurn?: (
    thread: SimulationThread,
    turn: number,
    turns: number,
    records: ReadonlyMap<string, TurnRecord>,
  ) => void;
}

/** Plays threads one after another through every contestant. */
export async function playThreads(
  threads: readonly SimulationThread[],
  options: PlayOptions,
): Promise<ThreadSimulation[]> {
  const simulations: ThreadSimulation[] = [];
  const counters = options.counters ?? providerCheckCounters();
  for (const [index, played] of threads.entries()) {
    const thread =
      options.thinking === false ? played : { ...played, messages: withThinking(played.messages) };
    const turns = thread.messages.filter((message) => message.role === "user").length || 1;
    simulations.push(
      await simulateThread(thread, {
        contestants: (options.contestants ?? createLineup)(),
        worker: options.worker,
        orgId: `${options.orgPrefix}-${index + 1}`,
        ...(counters.length > 0 ? { counters } : {}),
        onTurn: (turn, records) => options.onTurn?.(played, turn, turns, records),
      }),
    );
  }
  return simulations;
}

const integer = (value: number) => value.toLocaleString("en-US");

/**
 * One line per turn: this project's prompt chars, tool chars counted against the budget,
 * cuts and probes in view, with blind caps' figures beside them.
 */
export function progressLine(
  thread: string,
  turn: number,
  turns: number,
  records: ReadonlyMap<string, TurnRecord>,
): string {
  const project = records.get("with-digests");
  const blind = records.get("blind-caps");
  const raw = records.get("raw");
  if (!project || !blind) return `${thread} turn ${turn}/${turns}`;
  return [
    `${thread} turn ${String(turn).padStart(2)}/${turns}`,
    `prompt ${integer(project.promptChars)} (blind ${integer(blind.promptChars)}${raw ? `, raw ${integer(raw.promptChars)}` : ""})`,
    `tool chars counted ${integer(project.countedToolChars)} of 600,000 (blind ${integer(blind.countedToolChars)})`,
    `cuts ${project.budgetCuts} (blind ${blind.budgetCuts})`,
    `probes in view ${project.retention.strict}/${project.retention.total} (blind ${blind.retention.strict}/${blind.retention.total})`,
  ].join(" │ ");
}
