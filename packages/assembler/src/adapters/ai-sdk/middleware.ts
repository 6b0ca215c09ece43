import type { LanguageModelMiddleware } from "ai";
import type { AssembleOptions } from "../../assemble";
import { killSwitchFromEnvironment } from "../../kill-switch";
import type { DigestMap } from "../../types";
import { assembleAiSdkPrompt } from "./prompt-adapter";

export interface ContextCleanerAiSdkConfig {
  /**
   * The thread's digest rows, or a function loading them: called once, on the first
   * model call, and reused by every later step (create one middleware per turn).
   */
  digests?: DigestMap | null | (() => Promise<DigestMap | null | undefined>);
  /** Assembly options (tool policy, recency wall, budgets, kill switch, onReport). */
  options?: AssembleOptions;
  /** Errors of the digest loader, which never fail a call (the view is assembled without digests). @default a console warning */
  onLoadError?: (error: unknown) => void;
}

/**
 * AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`) whose
 * `transformParams` sends the provider the assembled view of the prompt: the prompt is
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
export function contextCleanerMiddleware(config: ContextCleanerAiSdkConfig = {}): LanguageModelMiddleware {
  let loaded: Promise<DigestMap | null> | undefined;
  const digests = (): Promise<DigestMap | null> => {
    const source = config.digests;
    if (typeof source !== "function") return Promise.resolve(source ?? null);
    if (config.options?.disabled ?? killSwitchFromEnvironment()) return Promise.resolve(null);
    loaded ??= Promise.resolve()
      .then(source)
      .then((rows) => rows ?? null)
      .catch((error: unknown) => {
        (config.onLoadError ?? ((cause) => console.warn("context-cleaner: loading digests failed", cause)))(
          error,
        );
        return null;
      });
    return loaded;
  };
  return {
    specificationVersion: "v4",
    transformParams: async ({ params }) => {
      const { messages } = assembleAiSdkPrompt(params.prompt, await digests(), config.options);
      return { ...params, prompt: messages };
    },
  };
}
