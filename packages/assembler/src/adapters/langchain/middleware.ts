import { Command, ReducedValue, StateSchema } from "@langchain/langgraph";
import { AIMessage, createMiddleware } from "langchain";
import { z } from "zod";
import type { AssembleOptions } from "../../assemble";
import { turnAnnouncement } from "../../events/turn-event";
import { resolveReadOriginal } from "../../read-original/read-original";
import type { LoadDigests, PublishTurnEnded, RuntimeTurnLock, TurnErrorHandler } from "../../turn-ports";
import { backstopFallback, guardedReport } from "../shared/fallback-view";
import { type LastCall, lastCallOf, TurnRegistry } from "../shared/turn-registry";
import { assembleLangChainView } from "./langchain-adapter";
import { answerLangChainReadOriginal, readOriginalLangChainTool } from "./read-original-tool";
import { langGraphTurn, rawToolCharsOf } from "./turn-context";

export interface ContextCleanerMiddlewareConfig {
  /** Loads the thread's digest rows; called once per turn, its result serves every model call of the turn. */
  loadDigests: LoadDigests;
  /**
   * Publishes the turn-ended event after the agent's last step, and the mid-turn events of a
   * long turn (`midTurn: true`, see `midTurnEventChars`).
   */
  publishTurnEnded?: PublishTurnEnded;
  /** Held from the turn's start to its end (or the model error that ends it). */
  turnLock?: RuntimeTurnLock;
  /**
   * Assembly options (tool policy, recency wall, budgets, kill switch). `onReport` receives
   * every model call's report, with its `ledger`: which results the view shows condensed
   * (a UI's "condensed" marker) and the call's batch. `cache` is filled in per call from
   * the thread's previous call unless given (`false`: cache-unaware).
   */
  options?: AssembleOptions;
  /** Errors of the injected functions, which never fail a turn. @default a console warning */
  onError?: TurnErrorHandler;
  /** Clock of `turnEndedAt`. @default () => new Date() */
  now?: () => Date;
  /** Open turns remembered at once (one per thread). @default 1000 */
  maxOpenTurns?: number;
  /**
   * Raw tool-output chars a turn adds, since its first model call or its latest mid-turn
   * event, that publish a mid-turn event (docs/architecture.md#relief-inside-a-long-turn):
   * the worker digests what the turn has moved past while it runs. `false`: none.
   * @default 120_000
   */
  midTurnEventChars?: number | false;
  /**
   * Milliseconds after a mid-turn event from which the next model call reloads the thread's
   * digests, once per event and without waiting for the read; the rows serve the turn's
   * later watermark batches. @default 15_000
   */
  midTurnReloadDelayMs?: number;
}

/**
 * The middleware's own channel of the agent state, checkpointed with the thread: the
 * thread's previous model call (when, what it showed condensed, what it sent), so a tool
 * loop resumed in another process sends what its earlier calls sent.
 */
const lastCallState = new StateSchema({
  // Last write wins: an outer middleware that calls the model twice in one step writes twice.
  contextCleanerLastCall: new ReducedValue(
    z.object({ atMs: z.number(), condensedIds: z.array(z.string()), sent: z.array(z.string()) }).optional(),
    { reducer: (_previous: LastCall | undefined, next: LastCall | undefined) => next },
  ),
});

/**
 * LangChain `createAgent` middleware that sends the model the assembled view of the
 * thread instead of the raw messages. The agent state, and so the checkpoint, keeps the
 * raw record.
 *
 * - `beforeAgent`: starts the turn — loads the thread's digests (once for the whole turn)
 *   and acquires the turn lock.
 * - `wrapModelCall`: assembles the view of `request.messages` and calls the model with it,
 *   with the thread's cache context (the turn's first call, the time since the thread's
 *   previous call, what that call showed condensed). A model error releases the lock
 *   before it propagates (a retry begins the turn again). Once the turn's new tool output
 *   passes `midTurnEventChars`, it also publishes a mid-turn event and, a few seconds on,
 *   reloads the digests once for the turn's later calls (neither waited for). What the call
 *   showed condensed and sent goes into the agent state (`contextCleanerLastCall`), written
 *   with the model's answer, so a loop resumed from the checkpoint in another process (an
 *   interrupt answered elsewhere, a retry) sends what its earlier calls sent.
 * - `afterAgent`: publishes `{ threadId, rawToolChars, turnEndedAt, messageCount,
 *   lastMessageId }` and releases the lock. It runs inside the run, so LangGraph writes the
 *   run's last checkpoint after the event, and with its default `durability: "async"` the
 *   checkpoint holding the turn's messages may still be in flight too (`durability: "sync"`
 *   on `invoke` writes that one first). The event therefore announces its turn (message
 *   count, latest message id) and the worker waits until the checkpoint shows it.
 * - With `options.readOriginal` on, the middleware adds the `read_original` tool to the
 *   agent and answers its calls itself (`wrapToolCall`) from the agent state's raw
 *   messages; the stand-ins of the view name it.
 *
 * A turn that dies elsewhere (an error thrown by other middleware, a recursion limit, an
 * interrupt left unanswered) keeps its lock until the next turn of the thread in this
 * process, or until the lock's own time to live. One turn at a time per thread is
 * assumed, as LangGraph's checkpointer does. Runs without `configurable.thread_id` are
 * assembled without digests, lock or event.
 *
 * @example
 * const agent = createAgent({
 *   model, tools, checkpointer,
 *   middleware: [contextCleanerMiddleware({ loadDigests, publishTurnEnded, turnLock })],
 * });
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose hooks share the config and the turn registry
export function contextCleanerMiddleware(config: ContextCleanerMiddlewareConfig) {
  const turns = new TurnRegistry({
    loadDigests: config.loadDigests,
    publishTurnEnded: config.publishTurnEnded,
    turnLock: config.turnLock,
    onError: config.onError,
    now: config.now,
    maxOpenTurns: config.maxOpenTurns,
    disabled: config.options?.disabled,
    ...(config.midTurnEventChars === undefined ? {} : { midTurnEventChars: config.midTurnEventChars }),
    ...(config.midTurnReloadDelayMs === undefined
      ? {}
      : { midTurnReloadDelayMs: config.midTurnReloadDelayMs }),
  });
  const readOriginal = resolveReadOriginal(config.options?.readOriginal);
  return createMiddleware<typeof lastCallState>({
    name: "ContextCleanerMiddleware",
    stateSchema: lastCallState,
    ...(readOriginal === undefined
      ? {}
      : {
          tools: [readOriginalLangChainTool({ toolName: readOriginal })],
          wrapToolCall: async (request, handler) =>
            request.toolCall.name === readOriginal
              ? answerLangChainReadOriginal(
                  (request.state as { messages?: unknown }).messages,
                  request.toolCall.args,
                  request.toolCall.id ?? "",
                  readOriginal,
                )
              : handler(request),
        }),
    beforeAgent: async (_state, runtime) => {
      const turn = langGraphTurn(runtime);
      if (turn) await turns.begin(turn);
      return undefined;
    },
    wrapModelCall: async (request, handler) => {
      const turn = langGraphTurn(request.runtime);
      const { digests, policy } = turn ? await turns.loaded(turn) : { digests: null, policy: null };
      if (turn) {
        turns.observe(turn, () => ({
          rawToolChars: rawToolCharsOf(request.messages),
          ...turnAnnouncement(request.messages),
        }));
      }
      const persisted = lastCallOf(
        (request.state as { contextCleanerLastCall?: unknown } | undefined)?.contextCleanerLastCall,
      );
      const cache =
        config.options?.cache ?? (turn ? turns.cacheContext(turn.threadId, persisted) : undefined);
      let messages = request.messages;
      let recorded: LastCall | undefined;
      try {
        const assembled = assembleLangChainView(request.messages, digests, {
          ...config.options,
          ...guardedReport(config.options?.onReport, (error) =>
            turns.report(error, "assemble", turn?.threadId ?? ""),
          ),
          cache,
          ...(policy ? { orgPolicy: policy } : {}),
        });
        messages = assembled.messages;
        if (turn) recorded = turns.recordCall(turn.threadId, assembled.report);
      } catch (error) {
        // A cleaner error never fails the turn: the model gets what the kill switch sends.
        turns.report(error, "assemble", turn?.threadId ?? "");
        const fallback = backstopFallback(
          (options) => assembleLangChainView(request.messages, null, options),
          config.options,
        );
        if (fallback) {
          messages = fallback.messages;
          if (turn) recorded = turns.recordCall(turn.threadId, fallback.report);
        }
      }
      let answer: Awaited<ReturnType<typeof handler>>;
      try {
        answer = await handler({ ...request, messages });
      } catch (error) {
        if (turn) await turns.abandon(turn.threadId);
        throw error;
      }
      // The agent adds the answer; the call's record is checkpointed beside it.
      // A structured response (responseFormat) is the agent's own shape: it goes back as it came.
      if (recorded === undefined || !AIMessage.isInstance(answer)) return answer;
      return new Command({ update: { contextCleanerLastCall: recorded } });
    },
    afterAgent: async (state, runtime) => {
      const turn = langGraphTurn(runtime);
      if (turn) await turns.end(turn, rawToolCharsOf(state.messages), turnAnnouncement(state.messages));
      return undefined;
    },
  });
}

export type { ThreadTurnEnded } from "../../events/turn-event";
export type {
  LoadDigests,
  PublishTurnEnded,
  RuntimeTurnLock,
  TurnContext,
  TurnErrorHandler,
  TurnLease,
  TurnStage,
} from "../../turn-ports";
