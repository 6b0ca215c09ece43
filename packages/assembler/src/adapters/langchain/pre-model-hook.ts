import type { BaseMessage } from "@langchain/core/messages";
import type { AssembleOptions } from "../../assemble";
import { type ThreadTurnEnded, turnAnnouncement } from "../../events/turn-event";
import { killSwitchFromEnvironment } from "../../kill-switch";
import type { LoadDigests, PublishTurnEnded, TurnErrorHandler } from "../../turn-ports";
import { backstopFallback, guardedReport } from "../shared/fallback-view";
import { TurnRegistry } from "../shared/turn-registry";
import { assembleLangChainView } from "./langchain-adapter";
import { type LangGraphRunInfo, langGraphTurn, rawToolCharsOf } from "./turn-context";

export interface ContextCleanerPreModelHookConfig {
  /** Loads the thread's digest rows; called once per turn (per user message), not per model call. */
  loadDigests: LoadDigests;
  /**
   * Assembly options (tool policy, recency wall, budgets, kill switch). `onReport` receives
   * every call's report with its `ledger` (a UI's "condensed" marker); `cache` is filled in
   * per call from the thread's previous call unless given.
   */
  options?: AssembleOptions;
  /** Errors of `loadDigests`, which never fail a turn (the view is assembled without digests). @default a console warning */
  onError?: TurnErrorHandler;
  /** Threads whose digests are remembered at once. @default 1000 */
  maxOpenTurns?: number;
  /**
   * Publishes the mid-turn events of a long turn (`midTurn: true`; the runtime publishes the
   * turn-ended event itself, after `invoke`, with `langChainTurnEndedEvent`). Without it, no
   * mid-turn event. Its errors are reported to `onError` and never fail the turn.
   */
  publishMidTurn?: PublishTurnEnded;
  /**
   * Raw tool-output chars a turn adds, since its first model call or its latest mid-turn
   * event, that publish a mid-turn event (docs/architecture.md#relief-inside-a-long-turn).
   * `false`: none. @default 120_000
   */
  midTurnEventChars?: number | false;
  /**
   * Milliseconds after a mid-turn event from which the next model call reloads the thread's
   * digests (once per event, without waiting for the read). @default 15_000
   */
  midTurnReloadDelayMs?: number;
}

/** The id of the latest user message: a new one starts a new turn, whose digests are loaded anew. */
function turnKey(messages: readonly BaseMessage[]): string {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index] as BaseMessage;
    if (message.getType() === "human") return `${index}:${message.id ?? ""}`;
  }
  return "";
}

/**
 * A `preModelHook` for LangGraph's prebuilt `createReactAgent`: it answers
 * `{ llmInputMessages }`, the assembled view the model is called with, and leaves
 * `messages` (the raw record) alone. Digests are loaded once per turn — a turn being the
 * model calls that follow one user message — and reused for its tool loop; with
 * `publishMidTurn`, a long turn publishes mid-turn events and reloads them once after each
 * (docs/architecture.md#relief-inside-a-long-turn).
 *
 * LangGraph keeps `llmInputMessages` in the graph state, so the checkpoint also holds the
 * last view (untouched messages shared with `messages` are serialized twice).
 *
 * @example
 * const agent = createReactAgent({
 *   llm, tools, checkpointer,
 *   preModelHook: contextCleanerPreModelHook({ loadDigests }),
 * });
 */
export function contextCleanerPreModelHook(config: ContextCleanerPreModelHookConfig) {
  const disabled = config.options?.disabled;
  const turns = new TurnRegistry({
    loadDigests: config.loadDigests,
    onError: config.onError,
    maxOpenTurns: config.maxOpenTurns,
    disabled,
    ...(config.publishMidTurn === undefined ? {} : { publishTurnEnded: config.publishMidTurn }),
    ...(config.midTurnEventChars === undefined ? {} : { midTurnEventChars: config.midTurnEventChars }),
    ...(config.midTurnReloadDelayMs === undefined
      ? {}
      : { midTurnReloadDelayMs: config.midTurnReloadDelayMs }),
  });
  return async (
    state: { messages: BaseMessage[] },
    runConfig?: LangGraphRunInfo,
  ): Promise<{ llmInputMessages: BaseMessage[] }> => {
    const turn = langGraphTurn(runConfig);
    const off = disabled ?? killSwitchFromEnvironment();
    const { digests, policy } =
      turn && !off ? await turns.loaded(turn, turnKey(state.messages)) : { digests: null, policy: null };
    if (turn && !off) {
      turns.observe(turn, () => ({
        rawToolChars: rawToolCharsOf(state.messages),
        ...turnAnnouncement(state.messages),
      }));
    }
    const cache = config.options?.cache ?? (turn && !off ? turns.cacheContext(turn.threadId) : undefined);
    try {
      const { messages, report } = assembleLangChainView(state.messages, digests, {
        ...config.options,
        ...guardedReport(config.options?.onReport, (error) =>
          turns.report(error, "assemble", turn?.threadId ?? ""),
        ),
        cache,
        ...(policy ? { orgPolicy: policy } : {}),
      });
      if (turn && !off) turns.recordCall(turn.threadId, report);
      return { llmInputMessages: messages };
    } catch (error) {
      // A cleaner error never fails the turn: the model gets what the kill switch sends.
      turns.report(error, "assemble", turn?.threadId ?? "");
      const fallback = backstopFallback(
        (options) => assembleLangChainView(state.messages, null, options),
        config.options,
      );
      if (fallback && turn && !off) turns.recordCall(turn.threadId, fallback.report);
      return { llmInputMessages: fallback?.messages ?? state.messages };
    }
  };
}

/**
 * The turn-ended event of a LangChain thread, for runtimes that publish it themselves
 * (e.g. after `agent.invoke` of a prebuilt agent): raw tool chars of `messages`, and the
 * turn it announces (their count and the latest one's id). Published once `invoke` has
 * resolved, it follows every checkpoint of the run: LangGraph awaits its writes first.
 */
export function langChainTurnEndedEvent(
  threadId: string,
  messages: readonly BaseMessage[],
  now: Date = new Date(),
): ThreadTurnEnded {
  return {
    threadId,
    rawToolChars: rawToolCharsOf(messages),
    turnEndedAt: now.toISOString(),
    ...turnAnnouncement(messages),
  };
}
