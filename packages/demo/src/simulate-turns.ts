import type { DigestMap, Message } from "@context-cleaner/assembler";
import type { DigestJobOutcome } from "@context-cleaner/core";
import { type Accounting, BudgetTrack } from "./budget-track";
import { costFloor } from "./cache-cost";
import { TARIFFS, type TariffId } from "./cache-prices";
import { type CacheLane, createLanes, SCENARIOS, type ScenarioId, type TurnCost } from "./cache-scenarios";
import type { Contestant, ContestantView } from "./contestants";
import { type DigestSample, digestSample } from "./digest-sample";
import { splitTurns, type Turn } from "./turns";
import {
  cacheBreak,
  type HeldCount,
  type MissedProbe,
  ProbeIndex,
  type RetentionCount,
  type SimulationProbe,
  type ViewParts,
  viewChars,
  viewParts,
} from "./view-measures";
import {
  type BetweenTurnsWorker,
  loadTurnDigests,
  runWorkerBetweenTurns,
  type WorkerTiming,
} from "./worker-between-turns";

/** A thread to play turn by turn, with the probes its views are measured against. */
export interface SimulationThread {
  name: string;
  messages: readonly Message[];
  probes: readonly SimulationProbe[];
}

/** One contestant's figures for one turn. */
export interface TurnRecord {
  /** 1-based. */
  turn: number;
  modelCalls: number;
  /** Prompt chars of the turn's last model call. */
  promptChars: number;
  /** Prompt chars summed over the turn's model calls (what the turn sends in all). */
  sentChars: number;
  /** Prompt chars of each of the turn's model calls, in order (the largest is the turn's largest prompt). */
  callChars: number[];
  /** Raw tool chars the contestant's recorded thread holds at the turn's end. */
  rawToolChars: number;
  /** Tool chars its budget counts at the turn's end (raw, or effective with the turn's digests). */
  countedToolChars: number;
  /** Results cut by the conversation budget during the turn. */
  budgetCuts: number;
  /** Results cut to the per-result cap during the turn. */
  perResultCuts: number;
  /** Model calls of the turn whose view changed an earlier message of the previous call's view. */
  cacheBreaks: number;
  /** Chars of previous views invalidated by those breaks. */
  invalidatedChars: number;
  /**
   * Model calls of the turn whose assembly report landed a batch of condensations (its
   * ledger's `batch.status` is `applied`); null for a contestant whose views carry no ledger.
   */
  batchesApplied: number | null;
  /** What the chars of the turn's last view are made of (./view-measures `viewParts`). */
  viewParts: ViewParts;
  /** Probe retention of the turn's last view (probes whose result has arrived). */
  retention: RetentionCount;
  /** The probes the turn's last view does not hold verbatim, and where their results are. */
  missedProbes: MissedProbe[];
  /**
   * Probe retention at every model call of the turn, summed over the calls: `total` counts
   * the (call, probe) pairs whose result arrived before the call.
   */
  everyCall: RetentionCount;
  /** What the turn's first call's view holds of the probes whose results arrived in the previous turn (none in turn 1). */
  previousTurn: HeldCount;
  /** Each counter's count (./simulate-turns `CallCounter`), summed over the turn's calls; only with counters. */
  counts?: Record<string, number>;
  /** The turn's prompt-cache figures under each timing scenario (the fields above are the warm one's views). */
  cost: Record<ScenarioId, TurnCost>;
}

export interface ContestantRun {
  id: string;
  label: string;
  accounting: Accounting;
  workerTiming?: WorkerTiming;
  turns: TurnRecord[];
  /** 1-based turn of the first budget cut; null when the budget never cut a result. */
  firstBudgetCutTurn: number | null;
  /** Milliseconds of each view computation (every model call). */
  viewMs: number[];
}

export interface ThreadSimulation {
  thread: string;
  turns: number;
  probes: number;
  /** Chars of the whole raw thread played (every message). */
  rawChars: number;
  /** The floor of the thread's bill per tariff (./cache-cost `costFloor` of the messages played). */
  floor: Record<TariffId, number>;
  /** The counters the simulation ran (columns of the tables); none when it ran none. */
  counters: readonly CounterColumn[];
  contestants: ContestantRun[];
  /** The worker's passes, per worker timing, in order (turns whose event was not published have none). */
  passes: Partial<Record<WorkerTiming, DigestJobOutcome[]>>;
  /** A digest beside its page, from the first effective track. */
  digestSample?: DigestSample;
}

/** One model call of one contestant, as a {@link CallCounter} sees it (the warm scenario's view). */
export interface ObservedCall {
  contestant: string;
  /** 1-based turn, and 1-based call within it. */
  turn: number;
  call: number;
  /** What the contestant was given: its budget track's thread so far. */
  prompt: readonly Message[];
  view: ContestantView;
  /** The contestant's view at its previous model call (the previous turn's last, at a turn's first call). */
  previousView?: readonly Message[];
}

/** A column of the comparison a counter adds. */
export interface CounterColumn {
  id: string;
  /** The column's header, e.g. "requests refused". */
  label: string;
}

/**
 * A per-call count added to every contestant's figures: counted at each model call,
 * summed per turn (`TurnRecord.counts`) and over the threads (`ComparisonRow.counts`), and
 * shown as a column of the comparison tables when given. A counter may keep state between
 * calls (keyed by `contestant`); it sees each contestant's calls in order.
 */
export interface CallCounter extends CounterColumn {
  count(call: ObservedCall): number;
}

export interface SimulationOptions {
  contestants: readonly Contestant[];
  /** Runs between turns for the effective tracks; without it no digests exist. */
  worker?: BetweenTurnsWorker;
  orgId: string;
  /** Plays only the first turns. */
  maxTurns?: number;
  /** When turn 1 ends; each later turn ends one minute after. */
  startAt?: Date;
  /** Called after each turn with every contestant's record of it. */
  onTurn?: (turn: number, records: ReadonlyMap<string, TurnRecord>) => void;
  /** Per-call counts to add to the figures (columns of the tables). @default none */
  counters?: readonly CallCounter[];
}

/** A recorded thread under one accounting (and, for effective accounting, one worker timing). */
interface TrackState {
  track: BudgetTrack;
  timing?: WorkerTiming;
  /** The thread id the worker and the store know this track by. */
  threadId: string;
  /** Digests loaded at the current turn's start. */
  digests: DigestMap;
  passes: DigestJobOutcome[];
  cuts: { budget: number; perResult: number };
  /**
   * What the track's cache-aware view showed condensed at its latest call, under the warm
   * scenario (the one where batches wait; a cold turn lands them all): an effective budget
   * counts a digest only once the view shows it. Undefined before the first call.
   */
  shown?: readonly string[];
}

const EMPTY_DIGESTS: DigestMap = new Map();

function trackKey(contestant: Contestant): string {
  return contestant.accounting === "effective"
    ? `effective:${contestant.workerTiming ?? "next-user-message"}`
    : contestant.accounting;
}

function createTracks(thread: SimulationThread, contestants: readonly Contestant[]): Map<string, TrackState> {
  const tracks = new Map<string, TrackState>();
  for (const contestant of contestants) {
    const key = trackKey(contestant);
    if (tracks.has(key)) continue;
    const timing =
      contestant.accounting === "effective" ? (contestant.workerTiming ?? "next-user-message") : undefined;
    tracks.set(key, {
      track: new BudgetTrack(contestant.accounting),
      ...(timing ? { timing } : {}),
      threadId: timing ? `${thread.name}@${timing}` : thread.name,
      digests: EMPTY_DIGESTS,
      passes: [],
      cuts: { budget: 0, perResult: 0 },
    });
  }
  return tracks;
}

interface CallTally {
  calls: number;
  sent: number;
  callChars: number[];
  /** Calls whose view's ledger batch was applied; null while no view carried a ledger. */
  batchesApplied: number | null;
  breaks: number;
  invalidated: number;
  last: readonly Message[];
  everyCall: RetentionCount;
  previousTurn: HeldCount;
  counts: Record<string, number>;
}

function newTally(counters: readonly CounterColumn[]): CallTally {
  return {
    calls: 0,
    sent: 0,
    callChars: [],
    batchesApplied: null,
    breaks: 0,
    invalidated: 0,
    last: [],
    everyCall: { total: 0, strict: 0, recoverable: 0 },
    previousTurn: { total: 0, strict: 0, standIn: 0, handle: 0, lost: 0 },
    counts: Object.fromEntries(counters.map((counter) => [counter.id, 0])),
  };
}

/** One thread being played: the budget tracks, every contestant's run, and what the measures need. */
class ThreadPlay {
  readonly tracks: Map<string, TrackState>;
  readonly effectiveTracks: TrackState[];
  readonly runs: ContestantRun[];
  private readonly probeIndex: ProbeIndex;
  private readonly lanes: Record<ScenarioId, CacheLane>[];
  private readonly previousViews = new Map<string, readonly Message[]>();
  private readonly arrived = new Set<string>();
  /** Results that arrived in the current turn, and in the previous one. */
  private arrivedThisTurn = new Set<string>();
  private arrivedPreviousTurn = new Set<string>();
  private turnNumber = 0;
  private readonly startAt: Date;

  constructor(
    private readonly thread: SimulationThread,
    private readonly options: SimulationOptions,
  ) {
    this.tracks = createTracks(thread, options.contestants);
    this.effectiveTracks = [...this.tracks.values()].filter((state) => state.timing !== undefined);
    this.probeIndex = new ProbeIndex(thread.messages, thread.probes);
    this.lanes = options.contestants.map(() => createLanes());
    this.runs = options.contestants.map(
      (contestant): ContestantRun => ({
        id: contestant.id,
        label: contestant.label,
        accounting: contestant.accounting,
        ...(contestant.accounting === "effective"
          ? { workerTiming: contestant.workerTiming ?? "next-user-message" }
          : {}),
        turns: [],
        firstBudgetCutTurn: null,
        viewMs: [],
      }),
    );
    this.startAt = options.startAt ?? new Date(Date.UTC(2026, 0, 5, 9));
  }

  /** Records a message on every track; a tool result passes through the caps first. */
  append(message: Message): void {
    if (message.role === "tool") {
      this.arrived.add(message.toolCallId);
      this.arrivedThisTurn.add(message.toolCallId);
    }
    for (const state of this.tracks.values()) {
      const event = state.track.append(message, state.digests, state.shown);
      if (event?.budgetCut) state.cuts.budget++;
      if (event?.perResultCut) state.cuts.perResult++;
    }
  }

  /** Runs the worker over an effective track's checkpoint for the turn that ended at `turnIndex`. */
  async runWorker(state: TrackState, turnIndex: number): Promise<void> {
    const { worker, orgId } = this.options;
    if (!worker) return;
    const outcome = await runWorkerBetweenTurns(
      {
        orgId,
        threadId: state.threadId,
        messages: state.track.messages.slice(),
        rawToolChars: state.track.rawChars(),
        turnEndedAt: new Date(this.startAt.getTime() + turnIndex * 60_000).toISOString(),
      },
      worker,
    );
    if (outcome) state.passes.push(outcome);
  }

  /**
   * Opens a turn: resets its cut counts and, after the first turn, records its user
   * message, runs the next-user-message worker and loads the turn's digests. Returns the
   * index of the turn's first message still to play.
   */
  async startTurn(turnIndex: number, turn: Turn): Promise<number> {
    for (const state of this.tracks.values()) state.cuts = { budget: 0, perResult: 0 };
    this.turnNumber = turnIndex + 1;
    this.arrivedPreviousTurn = this.arrivedThisTurn;
    this.arrivedThisTurn = new Set();
    for (const lanes of this.lanes) for (const lane of Object.values(lanes)) lane.startTurn(turnIndex);
    if (turnIndex === 0) return turn.start;
    this.append(this.thread.messages[turn.start] as Message);
    const { worker, orgId } = this.options;
    for (const state of this.effectiveTracks) {
      if (state.timing === "next-user-message") await this.runWorker(state, turnIndex - 1);
      if (worker) state.digests = await loadTurnDigests(worker, orgId, state.threadId);
    }
    return turn.start + 1;
  }

  /** One model call: every contestant turns its track's prompt into its view, measured against its last. */
  async modelCall(tallies: CallTally[]): Promise<void> {
    const prompts = new Map([...this.tracks].map(([key, state]) => [key, state.track.messages.slice()]));
    for (const [position, contestant] of this.options.contestants.entries()) {
      const key = trackKey(contestant);
      const state = this.tracks.get(key) as TrackState;
      const prompt = prompts.get(key) as Message[];
      const lanes = this.lanes[position] as Record<ScenarioId, CacheLane>;
      const view = await contestant.view(
        prompt,
        state.digests,
        contestant.cacheAware ? lanes.warm.context() : undefined,
      );
      lanes.warm.record(view);
      if (contestant.cacheAware && state.timing !== undefined && view.condensedIds)
        state.shown = view.condensedIds;
      lanes.cold.record(
        contestant.cacheAware ? await contestant.view(prompt, state.digests, lanes.cold.context()) : view,
      );
      (this.runs[position] as ContestantRun).viewMs.push(view.elapsedMs);
      const tally = tallies[position] as CallTally;
      const previous = this.previousViews.get(contestant.id);
      const broken = previous ? cacheBreak(previous, view.messages) : undefined;
      this.previousViews.set(contestant.id, view.messages);
      this.measureCall(tally, contestant.id, prompt, view, previous);
      tally.calls++;
      const chars = viewChars(view.messages);
      tally.sent += chars;
      tally.callChars.push(chars);
      if (view.batch !== undefined)
        tally.batchesApplied = (tally.batchesApplied ?? 0) + (view.batch === "applied" ? 1 : 0);
      if (broken?.broken) {
        tally.breaks++;
        tally.invalidated += broken.invalidatedChars;
      }
      tally.last = view.messages;
    }
  }

  /** The measures taken at every call: retention, the previous turn's results at the turn's first call, the counters. */
  private measureCall(
    tally: CallTally,
    contestant: string,
    prompt: readonly Message[],
    view: ContestantView,
    previous: readonly Message[] | undefined,
  ): void {
    const retention = this.probeIndex.retention(view.messages, this.arrived);
    tally.everyCall.total += retention.total;
    tally.everyCall.strict += retention.strict;
    tally.everyCall.recoverable += retention.recoverable;
    if (tally.calls === 0 && this.arrivedPreviousTurn.size > 0)
      tally.previousTurn = this.probeIndex.held(view.messages, prompt, this.arrivedPreviousTurn);
    for (const counter of this.options.counters ?? []) {
      tally.counts[counter.id] =
        (tally.counts[counter.id] ?? 0) +
        counter.count({
          contestant,
          turn: this.turnNumber,
          call: tally.calls + 1,
          prompt,
          view,
          ...(previous ? { previousView: previous } : {}),
        });
    }
  }

  /** Each contestant's record of the turn, added to its run. */
  recordTurn(turnIndex: number, tallies: readonly CallTally[]): Map<string, TurnRecord> {
    const records = new Map<string, TurnRecord>();
    for (const [position, contestant] of this.options.contestants.entries()) {
      const run = this.runs[position] as ContestantRun;
      const tally = tallies[position] as CallTally;
      const state = this.tracks.get(trackKey(contestant)) as TrackState;
      const record: TurnRecord = {
        turn: turnIndex + 1,
        modelCalls: tally.calls,
        promptChars: viewChars(tally.last),
        sentChars: tally.sent,
        callChars: tally.callChars,
        rawToolChars: state.track.rawChars(),
        countedToolChars: state.track.usedChars(state.digests, state.shown),
        budgetCuts: state.cuts.budget,
        perResultCuts: state.cuts.perResult,
        cacheBreaks: tally.breaks,
        invalidatedChars: tally.invalidated,
        batchesApplied: tally.batchesApplied,
        viewParts: viewParts(tally.last, state.track.messages),
        retention: this.probeIndex.retention(tally.last, this.arrived),
        missedProbes: this.probeIndex.missed(tally.last, state.track.messages, this.arrived),
        everyCall: tally.everyCall,
        previousTurn: tally.previousTurn,
        ...(this.options.counters?.length ? { counts: tally.counts } : {}),
        cost: Object.fromEntries(
          SCENARIOS.map((scenario) => [
            scenario.id,
            (this.lanes[position] as Record<ScenarioId, CacheLane>)[scenario.id].turnCost(
              this.probeIndex,
              this.arrived,
            ),
          ]),
        ) as Record<ScenarioId, TurnCost>,
      };
      run.turns.push(record);
      if (record.budgetCuts > 0 && run.firstBudgetCutTurn === null) run.firstBudgetCutTurn = record.turn;
      records.set(contestant.id, record);
    }
    return records;
  }
}

/**
 * Plays a thread turn by turn through the runtime's caps and every contestant's view
 * (docs/architecture.md#budget-refund). A turn opens with a user message (the first also
 * holds the system prompt) and runs to the next. Tool results arrive in order; each is
 * capped on every track (`capToolResult`, the budget counted raw or with
 * `effectiveToolChars`, given what the track's cache-aware view last showed condensed
 * under the warm scenario, so a deferred batch counts raw). Each assistant message marks a model call: every contestant turns
 * the prompt before it into its view. Between turns the worker runs over each effective
 * track's checkpoint, and a turn loads its digests once, when it starts.
 */
export async function simulateThread(
  thread: SimulationThread,
  options: SimulationOptions,
): Promise<ThreadSimulation> {
  const turns = splitTurns(thread.messages).slice(0, options.maxTurns);
  const play = new ThreadPlay(thread, options);
  for (const [turnIndex, turn] of turns.entries()) {
    const first = await play.startTurn(turnIndex, turn);
    const tallies = play.runs.map(() => newTally(options.counters ?? []));
    for (let index = first; index < turn.end; index++) {
      const message = thread.messages[index] as Message;
      if (message.role === "assistant") await play.modelCall(tallies);
      play.append(message);
    }
    const records = play.recordTurn(turnIndex, tallies);
    options.onTurn?.(turnIndex + 1, records);
    if (turnIndex < turns.length - 1) {
      for (const state of play.effectiveTracks) {
        if (state.timing === "turn-end") await play.runWorker(state, turnIndex);
      }
    }
  }

  const played = thread.messages.slice(0, turns.at(-1)?.end ?? 0);
  const sampled = play.effectiveTracks[0];
  const sample =
    sampled && options.worker
      ? digestSample(
          sampled.track.messages,
          await loadTurnDigests(options.worker, options.orgId, sampled.threadId),
          thread.probes,
        )
      : undefined;
  return {
    thread: thread.name,
    turns: turns.length,
    probes: thread.probes.length,
    rawChars: viewChars(played),
    floor: Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, costFloor(played, tariff)])) as Record<
      TariffId,
      number
    >,
    counters: (options.counters ?? []).map(({ id, label }) => ({ id, label })),
    contestants: play.runs,
    passes: Object.fromEntries(play.effectiveTracks.map((state) => [state.timing, state.passes])),
    ...(sample ? { digestSample: sample } : {}),
  };
}

/** The largest prompt of a run: the most chars any of its model calls sent (0 without calls). */
export function largestPromptChars(run: ContestantRun): number {
  let largest = 0;
  for (const turn of run.turns) for (const chars of turn.callChars) largest = Math.max(largest, chars);
  return largest;
}

/** Turns a contestant played before its first budget cut (all of them when none was cut). */
export function turnsBeforeFirstCut(run: ContestantRun): number {
  return run.firstBudgetCutTurn === null ? run.turns.length : run.firstBudgetCutTurn - 1;
}
