/**
 * The two timing scenarios the simulation prices every model call under, and one
 * contestant's lane through each: its cache context per call, its prompt cache, and its
 * tally for the turn.
 *
 * - warm: turns one minute apart, every call within the cache lifetime; no entry expires.
 * - cold: each turn starts after the user was away longer than the cache lifetime (an
 *   hour and five minutes, past the 1-hour cache too): the turn's first call reads
 *   nothing.
 *
 * A cache-aware contestant (this project) is played once per scenario, with the
 * scenario's context, since its views depend on it; every other contestant's one view is
 * priced under both.
 */

import type { Message } from "@context-cleaner/assembler";
import { type CallCache, costUnits, notCachedChars, PromptCacheModel } from "./cache-cost";
import { ANTHROPIC_CACHE, TARIFFS, type TariffId } from "./cache-prices";
import type { ContestantView, SimulatedCacheContext } from "./contestants";
import { cacheBreak, type ProbeIndex, type RetentionCount, viewChars } from "./view-measures";

export const SCENARIOS = [
  { id: "warm", label: "every call warm (turns 1 minute apart)", idleMs: 60_000, expires: false },
  { id: "cold", label: "each turn cold (idle past the cache lifetime)", idleMs: 3_900_000, expires: true },
] as const;

export type ScenarioId = (typeof SCENARIOS)[number]["id"];
export type Scenario = (typeof SCENARIOS)[number];

/** One contestant's turn under one scenario. */
export interface TurnCost {
  /** Per model call: chars read, written and sent uncached, per provider. */
  calls: CallCache[];
  /** The turn's cost per tariff, in base-input-token units. */
  units: Record<TariffId, number>;
  sentChars: number;
  /** Chars not read from Anthropic's cache (written or uncached). */
  notCachedChars: number;
  /** Prompt chars of the turn's last call. */
  promptChars: number;
  /** Calls whose view changed an earlier message of the previous call's view. */
  cacheBreaks: number;
  retention: RetentionCount;
}

/** The cache context the assembly is told the provider has, per ./cache-prices (Anthropic, 5-minute cache). */
const CONTEXT_DEFAULTS = { lifetimeMs: ANTHROPIC_CACHE.lifetime5mMs, provider: "anthropic" } as const;

/** One contestant through one scenario. */
export class CacheLane {
  private readonly cache = new PromptCacheModel();
  private shown: readonly string[] | undefined;
  private sent: readonly string[] | undefined;
  private previous: readonly Message[] | undefined;
  private turnStart = false;
  private idleMs: number | undefined;
  private calls: CallCache[] = [];
  private breaks = 0;
  private last: readonly Message[] = [];

  constructor(readonly scenario: Scenario) {}

  /** A turn opens (0-based `turnIndex`): the first has no previous call; a cold one finds the cache empty. */
  startTurn(turnIndex: number): void {
    this.turnStart = true;
    this.idleMs = turnIndex === 0 ? undefined : this.scenario.idleMs;
    if (this.scenario.expires && turnIndex > 0) this.cache.expire();
    this.calls = [];
    this.breaks = 0;
    this.last = [];
  }

  /** The context of the call about to be made. */
  context(): SimulatedCacheContext {
    return {
      turnStart: this.turnStart,
      ...(this.idleMs === undefined ? {} : { idleMs: this.idleMs }),
      ...CONTEXT_DEFAULTS,
      ...(this.shown === undefined ? {} : { shown: this.shown }),
      ...(this.sent === undefined ? {} : { sent: this.sent }),
    };
  }

  /** The call sent `view`. */
  record(view: ContestantView): void {
    this.calls.push(this.cache.call(view.messages));
    if (this.previous && cacheBreak(this.previous, view.messages).broken) this.breaks++;
    this.previous = view.messages;
    this.last = view.messages;
    this.shown = view.condensedIds;
    this.sent = view.sent;
    this.turnStart = false;
  }

  /** The turn's figures. */
  turnCost(probes: ProbeIndex, arrived: ReadonlySet<string>): TurnCost {
    const units = Object.fromEntries(TARIFFS.map((tariff) => [tariff.id, costUnits(this.calls, tariff)]));
    return {
      calls: this.calls,
      units: units as Record<TariffId, number>,
      sentChars: this.calls.reduce((sum, call) => sum + call.chars, 0),
      notCachedChars: notCachedChars(this.calls, "anthropic"),
      promptChars: viewChars(this.last),
      cacheBreaks: this.breaks,
      retention: probes.retention(this.last, arrived),
    };
  }
}

/** A contestant's lanes, one per scenario. */
export function createLanes(): Record<ScenarioId, CacheLane> {
  return Object.fromEntries(SCENARIOS.map((scenario) => [scenario.id, new CacheLane(scenario)])) as Record<
    ScenarioId,
    CacheLane
  >;
}
