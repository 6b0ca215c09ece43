/**
 * What a framework integration needs from the runtime around a turn, as injected
 * functions: load the thread's digest rows, publish the turn-ended event, hold the turn
 * lock. The storage, queue and lock adapters implement them; this package does no I/O.
 */
import type { ThreadTurnEnded } from "./events/turn-event";
import type { TurnState } from "./org-policy";
import type { DigestMap } from "./types";

/** The turn being run: its thread and what the framework passed for the run. */
export interface TurnContext {
  threadId: string;
  /** The run's configurable values (LangGraph's `configurable`: e.g. an org id). */
  configurable: Readonly<Record<string, unknown>>;
  /** The run's context object, where the framework has one. */
  context: unknown;
}

/**
 * Loads a thread's digest rows (one indexed read), e.g. the storage package's
 * `loadThreadDigests`; or the digests with the org's policy in the same query
 * (`loadTurnState`), whose mode, recency override and tool rules the turn's assemblies use.
 */
export type LoadDigests = (
  threadId: string,
  turn: TurnContext,
) => Promise<DigestMap | TurnState | null | undefined>;

/**
 * Publishes the turn-ended event (fire-and-forget: its errors are reported, never thrown
 * into the turn), and the mid-turn events of a long turn (`midTurn: true`). The integration
 * passes the event without its org (the events module's `ThreadTurnEnded`); the runtime adds
 * the org from `turn` and passes the rest on as it is.
 */
export type PublishTurnEnded = (event: ThreadTurnEnded, turn: TurnContext) => Promise<void> | void;

/** A held turn lock; releasing twice must be harmless. */
export interface TurnLease {
  release(): Promise<void> | void;
}

/**
 * The runtime side of the turn lock the worker peeks at: held while a turn runs. It
 * should expire by itself (a lease with a time to live), since a crashed process never
 * releases it.
 */
export interface RuntimeTurnLock {
  acquire(threadId: string, turn: TurnContext): Promise<TurnLease>;
}

/**
 * Where around a turn something failed: an injected function (`load-digests` also for a
 * reload after a mid-turn event), or the assembly itself (`assemble`: a bug, or an
 * `onReport` callback that threw), after which the model call goes on with the raw messages.
 */
export type TurnStage =
  | "load-digests"
  | "publish-turn-ended"
  | "publish-mid-turn"
  | "acquire-lock"
  | "release-lock"
  | "assemble";

/** Receives the errors of injected functions, which never fail a turn. */
export type TurnErrorHandler = (error: unknown, stage: TurnStage, threadId: string) => void;
