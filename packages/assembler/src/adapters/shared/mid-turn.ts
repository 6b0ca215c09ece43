/**
 * Background digests inside a long turn (docs/architecture.md#relief-inside-a-long-turn):
 * once a turn's new tool output passes a threshold, the runtime publishes a mid-turn event
 * (the worker digests what the turn has moved past), and a few seconds later reloads the
 * thread's digests once, off the model call's path, for the turn's later watermark batches.
 */
import { announcedTurn, type ThreadTurnEnded } from "../../events/turn-event";
import type { TurnStage } from "../../turn-ports";
import type { DigestEntry, DigestMap } from "../../types";
import { checkInteger } from "../../validate";

/** Defaults of the mid-turn path of the turn registry. */
export const MID_TURN_DEFAULTS = {
  /**
   * Raw tool-output chars a turn adds, since its first model call or its latest mid-turn
   * event, that make the next call publish a mid-turn event (the worker's trigger, 120,000).
   */
  eventChars: 120_000,
  /**
   * How long after a mid-turn event the thread's digests are reloaded, at the first model
   * call from then on: the digest queue's delivery delay (10 s) and a pass's first calls.
   */
  reloadDelayMs: 15_000,
} as const;

/** The mid-turn settings of a registry: `eventChars` undefined publishes no mid-turn event. */
export interface MidTurnSettings {
  readonly eventChars: number | undefined;
  readonly reloadDelayMs: number;
}

/**
 * Validates the mid-turn settings and fills in their defaults.
 * @throws {InvalidOptionError} for an `eventChars` that is neither `false` nor a positive
 *   integer, or a `reloadDelayMs` that is not an integer ≥ 0.
 */
export function midTurnSettings(
  eventChars: number | false | undefined,
  reloadDelayMs: number | undefined,
): MidTurnSettings {
  return {
    eventChars:
      eventChars === false
        ? undefined
        : checkInteger(eventChars ?? MID_TURN_DEFAULTS.eventChars, "midTurnEventChars"),
    reloadDelayMs: checkInteger(reloadDelayMs ?? MID_TURN_DEFAULTS.reloadDelayMs, "midTurnReloadDelayMs", 0),
  };
}

/** What a model call tells of the thread: its raw tool chars and the turn a mid-turn event would announce. */
export type MidTurnMeasure = Pick<ThreadTurnEnded, "rawToolChars" | "messageCount" | "lastMessageId">;

/** What one turn's mid-turn path does its I/O with; none of them may fail the turn. */
export interface MidTurnPorts {
  readonly threadId: string;
  /** Publishes one mid-turn event (the registry's `publishTurnEnded`). */
  publish(event: ThreadTurnEnded): Promise<void> | void;
  /** Loads the thread's digests again (the registry's `loadDigests`). */
  reload(): Promise<DigestMap | null>;
  report(error: unknown, stage: TurnStage): void;
  nowMs(): number;
}

/**
 * The mid-turn state of one open turn: the tool output counted since its latest event, the
 * events it published, the reloads they made due, and the rows that arrived.
 */
export class MidTurn {
  readonly #settings: MidTurnSettings;
  readonly #ports: MidTurnPorts;
  /** Raw tool chars at the turn's first observed call, then at its latest mid-turn event. */
  #baseline: number | undefined;
  /** Every publish started so far, in order: one event at a time, so the queue gets them in order. */
  #published: Promise<void> = Promise.resolve();
  /** When each published event's reload is due (ms). */
  #reloadsDue: number[] = [];
  #reloading = false;
  /** A settled reload's rows, not yet handed to a call. */
  #arrived: DigestMap | undefined;
  /** The rows that arrived mid-turn, as the turn's calls use them. */
  #rows: DigestMap | undefined;

  constructor(settings: MidTurnSettings, ports: MidTurnPorts) {
    this.#settings = settings;
    this.#ports = ports;
  }

  /**
   * At a model call: publishes a mid-turn event when the turn's new tool output since its
   * first call or its latest event reaches `eventChars`, and starts the reload that is due,
   * if any (one reload serves every event due by now). Waits for neither.
   */
  observe(measure: MidTurnMeasure): void {
    const now = this.#ports.nowMs();
    const { eventChars, reloadDelayMs } = this.#settings;
    if (this.#baseline === undefined) this.#baseline = measure.rawToolChars;
    else if (eventChars !== undefined && measure.rawToolChars - this.#baseline >= eventChars) {
      this.#baseline = measure.rawToolChars;
      const event: ThreadTurnEnded = {
        threadId: this.#ports.threadId,
        rawToolChars: measure.rawToolChars,
        turnEndedAt: new Date(now).toISOString(),
        ...announcedTurn(measure),
        midTurn: true,
      };
      this.#published = this.#published
        .then(() => this.#ports.publish(event))
        .then(
          () => void this.#reloadsDue.push(now + reloadDelayMs),
          (error: unknown) => this.#ports.report(error, "publish-mid-turn"),
        );
    }
    this.#startDueReload(now);
  }

  #startDueReload(now: number): void {
    if (this.#reloading || !this.#reloadsDue.some((due) => due <= now)) return;
    this.#reloadsDue = this.#reloadsDue.filter((due) => due > now);
    this.#reloading = true;
    Promise.resolve()
      .then(() => this.#ports.reload())
      .then(
        (rows) => {
          this.#arrived = rows ?? new Map();
        },
        (error: unknown) => this.#ports.report(error, "load-digests"),
      )
      .finally(() => {
        this.#reloading = false;
      });
  }

  /**
   * The rows that arrived mid-turn for this call (`cache.midTurnDigests`): a settled
   * reload's rows, less the ids the previous call showed condensed (`shown`), which keep the
   * text they had; undefined while none arrived.
   */
  rows(shown: readonly string[] | undefined): DigestMap | undefined {
    const arrived = this.#arrived;
    if (arrived !== undefined) {
      this.#arrived = undefined;
      const held = new Set(shown);
      const rows = new Map<string, DigestEntry>();
      for (const [id, entry] of this.#rows ?? []) if (held.has(id)) rows.set(id, entry);
      for (const [id, entry] of arrived) if (!held.has(id)) rows.set(id, entry);
      this.#rows = rows;
    }
    return this.#rows;
  }

  /** Settles once every publish started so far has (the turn-ended event goes after them). */
  published(): Promise<void> {
    return this.#published;
  }
}
