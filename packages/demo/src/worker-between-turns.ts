import type { DigestMap, Message } from "@context-cleaner/assembler";
import {
  type Clock,
  createInMemoryCheckpointReader,
  type DigestJobOptions,
  type DigestJobOutcome,
  type DigestModel,
  type DigestStore,
  runDigestJob,
} from "@context-cleaner/core";

/** The end of one turn, as the runtime publishes it, with the checkpoint at that moment. */
export interface TurnEnd {
  orgId: string;
  threadId: string;
  /** The thread as the checkpoint holds it when the turn ends (read-only to the worker). */
  messages: readonly Message[];
  rawToolChars: number;
  turnEndedAt: string;
}

/**
 * When the worker reads the checkpoint between two turns:
 * - `next-user-message`: once the user's next message is in it, so the recency wall has
 *   moved past the turn that ended and that turn's earlier pages can be digested;
 * - `turn-end`: as the turn ends, before the user answers. The wall then still covers the
 *   whole turn, so its pages are digested only after the following turn.
 */
export type WorkerTiming = "next-user-message" | "turn-end";

/** What the worker runs on between turns. */
export interface BetweenTurnsWorker {
  store: DigestStore;
  digester: DigestModel;
  clock: Clock;
  options?: Partial<DigestJobOptions>;
  /**
   * Runs the pass for a turn that ended, e.g. by publishing the turn's event to a queue and
   * waiting for its worker to handle it; resolves with the pass's outcome, or `undefined`
   * when no pass ran (the event was not published). It must write to `store`.
   * @default one digest pass over `turn.messages`, run here with `runDigestJob`
   */
  runPass?: (turn: TurnEnd) => Promise<DigestJobOutcome | undefined>;
}

/**
 * Runs the worker for a turn that just ended: the worker's `runPass`, or else one digest
 * pass over the thread so far, as the queue would run it for that turn's event. The demo's
 * single seam between the runtime and the worker.
 */
export async function runWorkerBetweenTurns(
  turn: TurnEnd,
  worker: BetweenTurnsWorker,
): Promise<DigestJobOutcome | undefined> {
  if (worker.runPass) return worker.runPass(turn);
  return runDigestJob(
    {
      orgId: turn.orgId,
      threadId: turn.threadId,
      rawToolChars: turn.rawToolChars,
      turnEndedAt: turn.turnEndedAt,
    },
    {
      checkpoints: createInMemoryCheckpointReader(new Map([[turn.threadId, turn.messages]])),
      store: worker.store,
      digester: worker.digester,
      clock: worker.clock,
    },
    worker.options,
  );
}

/** The digests a turn loads when it starts: one indexed query. */
export function loadTurnDigests(
  worker: BetweenTurnsWorker,
  orgId: string,
  threadId: string,
): Promise<DigestMap> {
  return worker.store.loadThreadDigests(orgId, threadId);
}
