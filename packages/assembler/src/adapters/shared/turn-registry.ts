import type { AssemblyReport } from "../../assemble";
import type { ThreadTurnEnded } from "../../events/turn-event";
import { killSwitchFromEnvironment } from "../../kill-switch";
import { type OrgPolicy, validateOrgPolicy } from "../../org-policy";
import { safeErrorText } from "../../redact";
import type { CacheContext } from "../../steps/cache-policy";
import type {
  LoadDigests,
  PublishTurnEnded,
  RuntimeTurnLock,
  TurnContext,
  TurnErrorHandler,
  TurnLease,
} from "../../turn-ports";
import type { DigestMap } from "../../types";
import { describeValue } from "../../validate";
import { FailureBackoff, type FailureBackoffSettings } from "./failure-backoff";
import { MidTurn, type MidTurnMeasure, type MidTurnSettings, midTurnSettings } from "./mid-turn";

/** Defaults of {@link TurnRegistry}. */
export const TURN_REGISTRY_DEFAULTS = {
  /** Open turns remembered at once; past it the oldest is released (a turn that crashed unseen). */
  maxOpenTurns: 1_000,
} as const;

export interface TurnRegistryPorts {
  loadDigests: LoadDigests;
  publishTurnEnded?: PublishTurnEnded;
  turnLock?: RuntimeTurnLock;
  /** @default a console warning naming the stage and thread */
  onError?: TurnErrorHandler;
  /** @default () => new Date() */
  now?: () => Date;
  /** Kill switch: load no digests. @default process.env.CONTEXT_CLEANER_DISABLED === "1" */
  disabled?: boolean;
  /** @default 1000 */
  maxOpenTurns?: number;
  /** After the loader or the lock fails, how long turns skip it (see `FailureBackoff`). @default 30 s, doubling to 5 min */
  backoff?: FailureBackoffSettings;
  /**
   * Raw tool-output chars a turn adds, since its first model call or its latest mid-turn
   * event, that publish a mid-turn event through `publishTurnEnded`
   * (docs/architecture.md#relief-inside-a-long-turn); `false`: none. @default 120_000
   */
  midTurnEventChars?: number | false;
  /**
   * Milliseconds after a mid-turn event from which the next model call reloads the thread's
   * digests (once per event, without waiting for the read). @default 15_000
   */
  midTurnReloadDelayMs?: number;
}

interface OpenTurn {
  /** What identifies the turn beyond its thread (e.g. the id of its user message), if anything. */
  key: string | undefined;
  state: Promise<LoadedTurn>;
  lease: Promise<TurnLease | undefined>;
  /** Model calls assembled in this turn so far. */
  calls: number;
  /** Milliseconds since the thread's previous model call, measured at the turn's first call. */
  idleMs: number | undefined;
  /** Its mid-turn events and the rows that arrived after them. */
  midTurn: MidTurn;
}

/** What a thread's previous model call left for the next one's cache context. */
/** A thread's previous model call, as the next call's cache context needs it. */
export interface LastCall {
  /** When it was made, epoch milliseconds. */
  atMs: number;
  condensedIds: readonly string[];
  /** What the call sent (its `report.ledger.sent`): the next call's view keeps its thinking true to it. */
  sent: readonly string[];
}

/** A {@link LastCall} read back from a store (a checkpoint): undefined unless it has that shape. */
export function lastCallOf(value: unknown): LastCall | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const { atMs, condensedIds, sent } = value as Record<string, unknown>;
  const strings = (list: unknown): list is string[] =>
    Array.isArray(list) && list.every((item) => typeof item === "string");
  if (typeof atMs !== "number" || !Number.isFinite(atMs) || !strings(condensedIds) || !strings(sent)) {
    return undefined;
  }
  return { atMs, condensedIds, sent };
}

/** The default report: one line, the error redacted and without its cause (a query and its parameters). */
function warn(error: unknown, stage: string, threadId: string): void {
  console.warn(
    `context-cleaner: ${stage} failed for thread ${threadId}; the turn goes on: ${safeErrorText(error)}`,
  );
}

/**
 * The open turns of one process, one per thread: each turn loads its thread's digests
 * once (for all its model calls) and holds the turn lock until it ends or is abandoned.
 * Every injected function's error is reported to `onError` and never fails the turn: a
 * failed load assembles without digests, a failed lock runs unlocked; after a failure the
 * loader (or the lock) is skipped for a while, said once (see `FailureBackoff`).
 */
/**
 * A loader's answer as the assembly takes it: a Map, or null for none. Anything else (a Map
 * that went through a JSON cache comes back as `{}`) is an error the turn reports and goes
 * on without digests.
 */
export function digestMapOf(loaded: unknown): DigestMap | null {
  if (loaded === undefined || loaded === null) return null;
  if (loaded instanceof Map) return loaded as DigestMap;
  throw new TypeError(
    `the digest loader must resolve to a Map of tool call id → digest row (or null), got ${describeValue(loaded)}`,
  );
}

/** What a turn loaded: its digests, and the org's policy when the loader read it too. */
export interface LoadedTurn {
  digests: DigestMap | null;
  policy: OrgPolicy | null;
}

const NOTHING_LOADED: LoadedTurn = Object.freeze({ digests: null, policy: null });

/**
 * What a turn runs with when its load failed and the org's mode is unknown: no digests, and
 * mode `off` (the view the kill switch sends), so an org in `shadow` or `off` never gets a
 * cleaned view because a load failed.
 */
/** What the load backoff resolves to when it skipped or caught the load. */
const LOAD_SKIPPED: unique symbol = Symbol("load skipped");

export const LOAD_FAILED: LoadedTurn = Object.freeze({
  digests: null,
  policy: validateOrgPolicy({ mode: "off" }),
});

/**
 * A loader's answer as a turn takes it: a digest Map (or null), or `{ digests, policy }`
 * (the storage package's `loadTurnState`).
 * @throws {TypeError} as {@link digestMapOf} does, for anything else.
 */
export function loadedTurnOf(loaded: unknown): LoadedTurn {
  if (loaded !== null && typeof loaded === "object" && !(loaded instanceof Map) && "digests" in loaded) {
    const { digests, policy } = loaded as { digests: unknown; policy?: OrgPolicy | null };
    return { digests: digestMapOf(digests), policy: policy ?? null };
  }
  return { digests: digestMapOf(loaded), policy: null };
}

export class TurnRegistry {
  readonly #ports: TurnRegistryPorts;
  readonly #turns = new Map<string, OpenTurn>();
  /** Per thread, its previous model call (kept across turns, the most recent `maxOpenTurns` threads). */
  readonly #lastCalls = new Map<string, LastCall>();
  /** Per thread, the org policy its last successful load gave (null: the deployment's defaults). */
  readonly #lastPolicies = new Map<string, OrgPolicy | null>();

  /** A loader or lock that failed is skipped for a while, so an outage does not slow every turn. */
  readonly #loadBackoff: FailureBackoff;
  readonly #lockBackoff: FailureBackoff;
  readonly #midTurn: MidTurnSettings;

  /** @throws {InvalidOptionError} for a `midTurnEventChars` or `midTurnReloadDelayMs` out of range. */
  constructor(ports: TurnRegistryPorts) {
    this.#ports = ports;
    const load = { what: "loading the thread's digests", meanwhile: "turns go on without digests" };
    this.#loadBackoff = new FailureBackoff(load, ports.backoff);
    this.#lockBackoff = new FailureBackoff(
      { what: "taking the turn lock", meanwhile: "turns run unlocked" },
      ports.backoff,
    );
    this.#midTurn = midTurnSettings(ports.midTurnEventChars, ports.midTurnReloadDelayMs);
  }

  #nowMs(): number {
    return (this.#ports.now?.() ?? new Date()).getTime();
  }

  #report(error: unknown, stage: Parameters<TurnErrorHandler>[1], threadId: string): void {
    try {
      (this.#ports.onError ?? warn)(error, stage, threadId);
    } catch {
      // A failing error sink must not fail the turn either.
    }
  }

  /** Reports an error of the integration's own step (the assembly) as the injected functions' are. */
  report(error: unknown, stage: Parameters<TurnErrorHandler>[1], threadId: string): void {
    this.#report(error, stage, threadId);
  }

  /** Starts a turn: loads the digests and acquires the lock. A stale turn of the same thread is released first. */
  async begin(turn: TurnContext, key?: string): Promise<void> {
    await this.abandon(turn.threadId);
    const lock = this.#ports.turnLock;
    const nowMs = (this.#ports.now?.() ?? new Date()).getTime();
    const lease = lock
      ? this.#lockBackoff.run(
          () => lock.acquire(turn.threadId, turn),
          undefined,
          nowMs,
          (error) => this.#report(error, "acquire-lock", turn.threadId),
        )
      : Promise.resolve(undefined);
    const disabled = this.#ports.disabled ?? killSwitchFromEnvironment();
    const state = disabled
      ? Promise.resolve(NOTHING_LOADED)
      : this.#loadBackoff
          .run(
            () => this.#ports.loadDigests(turn.threadId, turn),
            LOAD_SKIPPED,
            nowMs,
            (error) => this.#report(error, "load-digests", turn.threadId),
          )
          .then((loaded) => {
            if (loaded === LOAD_SKIPPED) return this.#failedLoad(turn.threadId);
            const state = loadedTurnOf(loaded);
            this.#rememberPolicy(turn.threadId, state.policy);
            return state;
          })
          .catch((error: unknown) => {
            this.#report(error, "load-digests", turn.threadId);
            return this.#failedLoad(turn.threadId);
          });
    const midTurn = new MidTurn(this.#midTurn, {
      threadId: turn.threadId,
      publish: (event) => this.#ports.publishTurnEnded?.(event, turn),
      reload: async () => loadedTurnOf(await this.#ports.loadDigests(turn.threadId, turn)).digests,
      report: (error, stage) => this.#report(error, stage, turn.threadId),
      nowMs: () => this.#nowMs(),
    });
    this.#turns.set(turn.threadId, { key, state, lease, calls: 0, idleMs: undefined, midTurn });
    await this.#evictBeyondCap();
    await lease;
  }

  /** The turn's digests; a turn not begun here (resumed, retried, or keyed anew) begins now. */
  async digests(turn: TurnContext, key?: string): Promise<DigestMap | null> {
    return (await this.loaded(turn, key)).digests;
  }

  /** The turn's digests and org policy (null when the loader gave none); begins the turn as {@link digests} does. */
  async loaded(turn: TurnContext, key?: string): Promise<LoadedTurn> {
    const open = this.#turns.get(turn.threadId);
    if (open === undefined || open.key !== key) await this.begin(turn, key);
    return (this.#turns.get(turn.threadId) as OpenTurn).state;
  }

  /**
   * The mid-turn path at a model call of an open turn (docs/architecture.md#relief-inside-a-long-turn):
   * `measure` gives the thread's raw tool chars and announced turn; once the turn's new tool
   * output since its first call or its latest mid-turn event reaches `midTurnEventChars`, a
   * mid-turn event is published, and the first call `midTurnReloadDelayMs` after it starts
   * one reload of the thread's digests. Waits for neither: the publish and the read run
   * beside the turn, their errors reported. Nothing under the kill switch, without
   * `publishTurnEnded`, or with `midTurnEventChars: false`.
   */
  observe(turn: TurnContext, measure: () => MidTurnMeasure): void {
    const open = this.#turns.get(turn.threadId);
    if (open === undefined || this.#midTurn.eventChars === undefined || !this.#ports.publishTurnEnded) return;
    if (this.#ports.disabled ?? killSwitchFromEnvironment()) return;
    let measured: MidTurnMeasure;
    try {
      measured = measure();
    } catch (error) {
      this.#report(error, "publish-mid-turn", turn.threadId);
      return;
    }
    open.midTurn.observe(measured);
  }

  /**
   * The cache context of the thread's next model call (docs/architecture.md#prompt-cache):
   * `turnStart` on the turn's first call, `idleMs` since the thread's previous model call
   * (measured at that first call, kept for the turn), `shown`, the previous call's
   * `report.ledger.condensedIds`, `sent`, its `report.ledger.sent`, and `midTurnDigests`, the
   * rows a reload after a mid-turn event brought (less the ids the previous call showed
   * condensed). A thread without an open turn gets a turn start. `persisted`, the previous
   * call as the thread's checkpoint holds it, wins over the one this process remembers: a
   * loop resumed in another process, or from another checkpoint, continues from what was
   * sent before its latest assistant message.
   */
  cacheContext(threadId: string, persisted?: LastCall): CacheContext {
    const open = this.#turns.get(threadId);
    const last = persisted ?? this.#lastCalls.get(threadId);
    const nowMs = this.#nowMs();
    const turnStart = open === undefined || open.calls === 0;
    let idleMs = open?.idleMs;
    if (turnStart) {
      idleMs = last === undefined ? undefined : Math.max(0, nowMs - last.atMs);
      if (open) open.idleMs = idleMs;
    }
    const midTurnDigests = turnStart ? undefined : open?.midTurn.rows(last?.condensedIds);
    return {
      turnStart,
      ...(idleMs === undefined ? {} : { idleMs }),
      ...(last === undefined ? {} : { shown: last.condensedIds, sent: last.sent }),
      ...(midTurnDigests === undefined || midTurnDigests.size === 0 ? {} : { midTurnDigests }),
    };
  }

  /**
   * Records a model call's assembly: its time and what it showed condensed, for the next
   * call's context; returns that record (for the integration to keep with the thread).
   */
  recordCall(threadId: string, report: AssemblyReport): LastCall {
    const open = this.#turns.get(threadId);
    if (open) open.calls++;
    const last: LastCall = {
      atMs: this.#nowMs(),
      condensedIds: report.ledger.condensedIds,
      sent: report.ledger.sent,
    };
    this.#lastCalls.delete(threadId);
    this.#lastCalls.set(threadId, last);
    const cap = this.#ports.maxOpenTurns ?? TURN_REGISTRY_DEFAULTS.maxOpenTurns;
    while (this.#lastCalls.size > cap) this.#lastCalls.delete(this.#lastCalls.keys().next().value as string);
    return last;
  }

  /**
   * Ends a turn: publishes the turn-ended event, with the turn it announces (the thread's
   * message count and latest message id, see `turnAnnouncement`), after the turn's mid-turn
   * events, then releases the lock.
   */
  async end(
    turn: TurnContext,
    rawToolChars: number,
    announced: Pick<ThreadTurnEnded, "messageCount" | "lastMessageId"> = {},
  ): Promise<void> {
    try {
      // The kill switch stops the events too: a worker that drops every job needs none.
      const disabled = this.#ports.disabled ?? killSwitchFromEnvironment();
      if (this.#ports.publishTurnEnded && !disabled) {
        await this.#turns.get(turn.threadId)?.midTurn.published();
        const now = this.#ports.now?.() ?? new Date();
        try {
          await this.#ports.publishTurnEnded(
            { threadId: turn.threadId, rawToolChars, turnEndedAt: now.toISOString(), ...announced },
            turn,
          );
        } catch (error) {
          this.#report(error, "publish-turn-ended", turn.threadId);
        }
      }
    } finally {
      await this.abandon(turn.threadId);
    }
  }

  /** Forgets a thread's open turn and releases its lock (after an error, or before a new turn). */
  async abandon(threadId: string): Promise<void> {
    const open = this.#turns.get(threadId);
    if (open === undefined) return;
    this.#turns.delete(threadId);
    const lease = await open.lease;
    try {
      await lease?.release();
    } catch (error) {
      this.#report(error, "release-lock", threadId);
    }
  }

  /** A turn whose load failed (or was skipped while backing off): the last known mode holds; unknown, it sends what `off` sends. */
  #failedLoad(threadId: string): LoadedTurn {
    const last = this.#lastPolicies.get(threadId);
    return last === undefined ? LOAD_FAILED : { digests: null, policy: last };
  }

  #rememberPolicy(threadId: string, policy: OrgPolicy | null): void {
    this.#lastPolicies.delete(threadId);
    this.#lastPolicies.set(threadId, policy);
    const cap = this.#ports.maxOpenTurns ?? TURN_REGISTRY_DEFAULTS.maxOpenTurns;
    while (this.#lastPolicies.size > cap)
      this.#lastPolicies.delete(this.#lastPolicies.keys().next().value as string);
  }

  /** Threads with an open turn (for tests and metrics). */
  get openThreads(): string[] {
    return [...this.#turns.keys()];
  }

  async #evictBeyondCap(): Promise<void> {
    const cap = this.#ports.maxOpenTurns ?? TURN_REGISTRY_DEFAULTS.maxOpenTurns;
    while (this.#turns.size > cap) {
      const oldest = this.#turns.keys().next().value as string;
      await this.abandon(oldest);
    }
  }
}
