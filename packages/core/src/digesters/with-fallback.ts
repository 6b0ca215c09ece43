import { DigestModelError } from "../errors";
import type { DigestModel, DigestRequest, DigestResult, MetricsSink, PageDigest } from "../ports";
import { checkBullets } from "../render/check-bullets";

/** The metric counted on each fallback, with dimension `reason`. */
export const FALLBACK_METRIC = "digest_fallback";

function hasBullets(page: PageDigest): boolean {
  return Object.values(page.bullets).some((list) => Array.isArray(list) && list.length > 0);
}

/**
 * Wraps a model digester with a fallback (the extractive digester is the
 * fallback when the model fails or breaks the contract). The fallback digests the whole
 * request when the primary throws (any reason but `aborted`), and the pages whose model
 * bullets all carry invented figures, or that got no bullets at all (`contract`).
 * Each fallback is counted on `metrics` as `digest_fallback{reason}` (pages affected).
 *
 * @throws {DigestModelError} `aborted` when the caller's signal aborted the call; whatever
 * the fallback throws.
 * @example
 * const digester = withFallback(createAnthropicDigester({ client }), createExtractiveDigester(), { metrics });
 */
export function withFallback(
  primary: DigestModel,
  fallback: DigestModel,
  options: { metrics?: MetricsSink } = {},
): DigestModel {
  const count = (reason: string, pages: number) =>
    options.metrics?.record({ name: FALLBACK_METRIC, value: pages, unit: "Count", dimensions: { reason } });

  return {
    id: `${primary.id}+fallback:${fallback.id}`,
    ...(primary.estimateCostUsd
      ? { estimateCostUsd: (request: DigestRequest) => primary.estimateCostUsd?.(request) ?? 0 }
      : {}),
    async digest(request: DigestRequest, callOptions: { signal?: AbortSignal } = {}): Promise<DigestResult> {
      let result: DigestResult;
      try {
        result = await primary.digest(request, callOptions);
      } catch (error) {
        // Anything but a digest failure is a bug: it surfaces instead of hiding behind a fallback.
        if (!(error instanceof DigestModelError)) throw error;
        const reason = error.reason;
        if (reason === "aborted" || callOptions.signal?.aborted) throw error;
        const rescued = await fallback.digest(request, callOptions);
        count(reason, request.pages.length);
        return {
          ...rescued,
          pages: rescued.pages.map((page) => ({ ...page, model: rescued.model })),
          costUsd: rescued.costUsd + error.costUsd,
          fallback: { reason, pages: request.pages.length },
        };
      }
      const broken = request.pages.filter((page, index) => {
        const answer = result.pages[index];
        return !answer || !hasBullets(answer) || checkBullets(answer.bullets, page.content).kept === 0;
      });
      if (broken.length === 0) return result;
      const rescued = await fallback.digest({ ...request, pages: broken }, callOptions);
      const rescuedById = new Map(rescued.pages.map((page) => [page.toolCallId, page]));
      count("contract", broken.length);
      return {
        ...result,
        pages: request.pages.map((page, index) => {
          const replacement = rescuedById.get(page.toolCallId);
          if (replacement) return { ...replacement, model: rescued.model };
          return result.pages[index] as PageDigest;
        }),
        costUsd: result.costUsd + rescued.costUsd,
        fallback: { reason: "contract", pages: broken.length },
      };
    },
  };
}
