import type { DigestCandidate } from "../classify/classify-thread";
import { DigestModelError } from "../errors";
import type { DigestRequest, DigestResult, DigestRow } from "../ports";
import { digestedRow } from "./build-rows";
import type { JobContext } from "./job-context";

/** One admitted digest call: its pages, the budget it reserved, and what it produced. */
export interface DigestCall {
  readonly group: readonly DigestCandidate[];
  readonly request: DigestRequest;
  /** Held against the org's daily budget until the digest stage settles it. */
  readonly reservedUsd: number;
  /** What the call cost, as billed (a broken response is billed too). */
  costUsd: number;
  rows: DigestRow[];
  /** An error that is not a digest failure: the stage rethrows it once every call has ended. */
  error?: unknown;
}

/**
 * Runs one admitted call to its end and never rejects: a `DigestModelError` defers the
 * call's pages (the pass ends `digest_failed`), any other error is kept on the call. The
 * call is aborted after `digestCallTimeoutMs`, so no call outlives the time it was admitted for.
 */
export async function runDigestCall(context: JobContext, call: DigestCall): Promise<void> {
  const { ports, stats } = context;
  let result: DigestResult;
  try {
    result = await ports.digester.digest(call.request, {
      signal: AbortSignal.timeout(context.options.digestCallTimeoutMs),
    });
  } catch (error) {
    if (!(error instanceof DigestModelError)) {
      call.error = error;
      return;
    }
    // A response that arrived but broke the contract was still billed.
    call.costUsd = error.costUsd;
    stats.failedCalls++;
    stats.deferred += call.group.length;
    return;
  }
  call.costUsd = result.costUsd;
  stats.digestedPages += call.group.length;
  if (result.fallback) stats.fallbacks += result.fallback.pages;
  call.rows = pageRows(context, call, result);
}

/** The rows of a call's pages: matched by tool call id, else by position. */
function pageRows(context: JobContext, { group, request }: DigestCall, result: DigestResult): DigestRow[] {
  const { job, options, stats } = context;
  const rows: DigestRow[] = [];
  group.forEach((candidate, position) => {
    const page =
      result.pages.find((entry) => entry.toolCallId === candidate.message.toolCallId) ??
      result.pages[position];
    if (!page) return;
    const digested = digestedRow(job.threadId, candidate, {
      page,
      result,
      // Stryker disable next-line OptionalChaining,StringLiteral: equivalent — the request is built from the group, one page per candidate in order, so every position has its page
      source: request.pages[position]?.content ?? "",
      pagesInCall: group.length,
      caps: { digestCharCap: options.digestCharCap, digestCharCapMax: options.digestCharCapMax },
    });
    stats.droppedBullets += digested.droppedBullets;
    if (digested.row) rows.push(digested.row);
  });
  return rows;
}
