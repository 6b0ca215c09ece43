import type { LanguageModelMiddleware } from "ai";
import type { AssembleOptions } from "../../assemble";
import { killSwitchFromEnvironment } from "../../kill-switch";
import type { TurnState } from "../../org-policy";
import { safeErrorText } from "../../redact";
import type { CacheContext } from "../../steps/cache-policy";
import type { DigestMap } from "../../types";
import { FailureBackoff, type FailureBackoffSettings } from "../shared/failure-backoff";
import { backstopFallback, guardedReport } from "../shared/fallback-view";
import { LOAD_FAILED, type LoadedTurn, loadedTurnOf } from "../shared/turn-registry";
import { assembleAiSdkPrompt } from "./prompt-adapter";

export interface ContextCleanerAiSdkConfig {
  /**
   * The thread's digest rows (or `{ digests, policy }`, the storage package's `loadTurnState`,
   * whose org policy the assemblies use), or a function loading them: called once, on the first
   * model call, and reused by every later step (create one middleware per turn).
   */
  digests?: DigestMap | TurnState | null | (() => Promise<DigestMap | TurnState | null | undefined>);
  /**
   * Assembly options (tool policy, recency wall, budgets, kill switch). `onReport` receives
   * every step's report with its `ledger`: which results the view shows condensed (a UI's
   * "condensed" marker) and the step's batch. `cache` is filled in per step unless given
   * (`false`: cache-unaware).
   */
  options?: AssembleOptions;
  /**
   * The thread's previous model call, from the previous turn (keep it per thread, e.g. from
   * `onReport`): when it was made, its `report.ledger.condensedIds` and its
   * `report.ledger.sent` (what it sent: the view keeps thinking and reasoning true to it,
   * docs/architecture.md#provider-true-views). Without it the turn's first step counts as
   * cold, with no history.
   */
  lastCall?: { at: Date | number | string; condensedIds: readonly string[]; sent?: readonly string[] };
  /** The tariff the runtime pays (or provider and cache lifetime), for the cost gate. @default Anthropic's 5-minute cache */
  cacheProvider?: Pick<CacheContext, "tariff" | "lifetimeMs" | "provider" | "expectedCalls">;
  /** Clock of the idle time. @default () => new Date() */
  now?: () => Date;
  /** Errors of the digest loader, which never fail a call (the org's mode unknown, the view is what `off` sends). @default `onError` */
  onLoadError?: (error: unknown) => void;
  /**
   * After the digest loader fails (a database that is down or never answers), the turns
   * that follow skip it for a while instead of waiting for its timeout on every turn: 30 s,
   * doubling up to 5 min while it keeps failing; the outage is reported to `onLoadError`
   * once, naming its root cause (e.g. `ECONNREFUSED`). The state is kept per settings
   * object, so pass the same object to every turn's middleware; the default is one for the
   * whole process. `false` calls the loader on every turn. An error marked
   * `retryable: false` is reported every time and skips nothing.
   * @default one backoff for the process, `{ initialMs: 30_000, maxMs: 300_000 }`
   */
  loadBackoff?: false | FailureBackoffSettings;
  /**
   * Errors of the assembly (digests that are not a Map, an `onReport` that throws, a
   * cleaner bug), which never fail a call: the step goes on with the raw prompt.
   * @default a console warning
   */
  onError?: (error: unknown) => void;
}

/** Milliseconds of a time as a runtime keeps it: a Date, epoch milliseconds, or the ISO string a JSON store gives back. */
function timeOf(at: Date | number | string): number {
  if (at instanceof Date) return at.getTime();
  return typeof at === "string" ? Date.parse(at) : at;
}

/** What the load backoff resolves to when it skipped or caught the load. */
const LOAD_SKIPPED: unique symbol = Symbol("load skipped");

/** The backoff of each settings object: shared by every middleware given the same one. */
const loadBackoffs = new WeakMap<FailureBackoffSettings, FailureBackoff>();
/** The default settings object, hence one backoff for the whole process. */
const PROCESS_LOAD_BACKOFF: FailureBackoffSettings = Object.freeze({});

function loadBackoffOf(settings: FailureBackoffSettings): FailureBackoff {
  let backoff = loadBackoffs.get(settings);
  if (backoff === undefined) {
    backoff = new FailureBackoff(
      { what: "loading the thread's digests", meanwhile: "model calls go on without digests" },
      settings,
    );
    loadBackoffs.set(settings, backoff);
  }
  return backoff;
}

/**
 * AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`) whose
 * `transformParams` sends the provider the assembled view of the prompt, cache-aware (the
 * first step is the turn's start; each later step keeps what the one before showed
 * condensed): the prompt is
 * read in the neutral model, assembled, and written back with untouched messages and
 * parts as the same objects. The caller's `messages` are never changed; every step of a
 * multi-step `generateText` / `streamText` call is assembled from its full prompt.
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: anthropic("claude-sonnet-4-5"),
 *   middleware: contextCleanerMiddleware({ digests: () => loadDigests(threadId) }),
 * });
 * const { text } = await generateText({ model, messages, tools, stopWhen: stepCountIs(8) });
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose hooks share the config, the error handler and the per-call state
export function contextCleanerMiddleware(config: ContextCleanerAiSdkConfig = {}): LanguageModelMiddleware {
  const onError = (error: unknown) => {
    try {
      (
        config.onError ??
        ((cause) => console.warn(`context-cleaner: the view was not cleaned: ${safeErrorText(cause)}`))
      )(error);
    } catch {
      // A failing error sink must not fail the call either.
    }
  };
  const onLoadError = (error: unknown) => {
    if (!config.onLoadError) return onError(error);
    try {
      config.onLoadError(error);
    } catch {
      // As above.
    }
  };
  let loaded: Promise<LoadedTurn> | undefined;
  const digests = (): Promise<LoadedTurn> => {
    const source = config.digests;
    if (config.options?.disabled ?? killSwitchFromEnvironment())
      return Promise.resolve({ digests: null, policy: null });
    if (loaded !== undefined) return loaded;
    const backoff = config.loadBackoff;
    // A loader that failed lately is skipped, its outage reported once.
    const load =
      typeof source === "function" && backoff !== false
        ? loadBackoffOf(backoff ?? PROCESS_LOAD_BACKOFF).run(
            source,
            LOAD_SKIPPED,
            (config.now?.() ?? new Date()).getTime(),
            onLoadError,
          )
        : Promise.resolve().then(() => (typeof source === "function" ? source() : source));
    loaded = load
      // Skipped or failed, the org's mode is unknown: the step sends what `off` sends.
      .then((rows) => (rows === LOAD_SKIPPED ? LOAD_FAILED : loadedTurnOf(rows)))
      .catch((error: unknown) => {
        // The org's mode is unknown: the step sends what `off` sends.
        onLoadError(error);
        return LOAD_FAILED;
      });
    return loaded;
  };
  let shown = config.lastCall?.condensedIds;
  let sent = config.lastCall?.sent;
  let idleMs: number | undefined;
  let steps = 0;
  const cacheContext = (): CacheContext => {
    if (steps === 0 && config.lastCall) {
      const at = timeOf(config.lastCall.at);
      // A time a JSON store mangled is unknown (a cold cache); a clock stepped back is no idle time.
      idleMs = Number.isFinite(at) ? Math.max(0, (config.now?.() ?? new Date()).getTime() - at) : undefined;
    }
    return {
      ...config.cacheProvider,
      turnStart: steps === 0,
      ...(idleMs === undefined ? {} : { idleMs }),
      ...(shown === undefined ? {} : { shown }),
      ...(sent === undefined ? {} : { sent }),
    };
  };
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const { digests: rows, policy } = await digests();
      const cache = config.options?.cache ?? cacheContext();
      steps++;
      try {
        const { messages, report } = assembleAiSdkPrompt(params.prompt, rows, {
          ...config.options,
          ...guardedReport(config.options?.onReport, onError),
          cache,
          ...(policy ? { orgPolicy: policy } : {}),
        });
        shown = report.ledger.condensedIds;
        sent = report.ledger.sent;
        return { ...params, prompt: messages };
      } catch (error) {
        // The step goes on with what the kill switch sends: the backstop alone, never the raw prompt past its budget.
        onError(error);
        const fallback = backstopFallback(
          (options) => assembleAiSdkPrompt(params.prompt, null, options),
          config.options,
        );
        if (fallback === undefined) return params;
        shown = fallback.report.ledger.condensedIds;
        sent = fallback.report.ledger.sent;
        return { ...params, prompt: fallback.messages };
      }
    },
  };
}
