/**
 * The ports of packages/core (STYLE §1): what the digest pipeline needs from the outside
 * world, as types only. Adapters (the Anthropic digester, the extractive digester, the
 * stores, the queue) implement them in their own modules.
 */

/** The groups of a structured digest, in rendering order; `points` are ungrouped (headings, gist). */
export type DigestSection =
  | "points"
  | "parties"
  | "dates"
  | "amounts"
  | "obligations"
  | "definedTerms"
  | "crossReferences";

/** Bullets of one page, grouped; a group that is absent or empty is not rendered. */
export type DigestBullets = { readonly [section in DigestSection]?: readonly string[] };

/** One page of a document to digest: one tool result. */
export interface DigestPageInput {
  /** The tool call id of the result; the digest row's key. */
  readonly toolCallId: string;
  /** The exact text of the result. */
  readonly content: string;
  /** The policy's provenance args of the call that read the page, by name. */
  readonly provenanceArgs: Readonly<Record<string, unknown>>;
  /** The one call that re-reads the page, e.g. `read_document(file_id="cd_9f2", offset=58000)`. */
  readonly reread: string;
}

/** The pages of one document, digested in one model call. */
export interface DigestRequest {
  readonly toolName: string;
  /** Human-readable label of the document, e.g. `file_id=cd_9f2 "Ground Lease"`. */
  readonly sourceLabel: string;
  readonly pages: readonly DigestPageInput[];
}

/** A model's digest of one page. */
export interface PageDigest {
  readonly toolCallId: string;
  /** The document title, when the model saw one. */
  readonly title?: string;
  readonly bullets: DigestBullets;
  /** The model that produced these bullets, when it differs from the result's `model` (fallback). */
  readonly model?: string;
}

/** Token usage of a digest call, as billed. */
export interface DigestUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheCreationInputTokens: number;
}

/** What a digester returns for one request. */
export interface DigestResult {
  /** One entry per requested page, in request order. */
  readonly pages: readonly PageDigest[];
  /** Model id (`"extractive"` for the extractive digester). */
  readonly model: string;
  readonly usage: DigestUsage;
  /** Cost of the call(s) in USD, from usage × the price table. */
  readonly costUsd: number;
  /** Set when some or all pages came from the fallback digester. */
  readonly fallback?: { readonly reason: string; readonly pages: number };
}

/**
 * A digester: condenses the pages of one document. Implementations throw
 * `DigestModelError` (with a `reason` and `retryable`) on failure, refusal or a broken
 * contract; they never return invented content silently.
 */
export interface DigestModel {
  /** Stable id of the digester, e.g. `"extractive"` or `"anthropic:claude-haiku-5-5"`. */
  readonly id: string;
  digest(request: DigestRequest, options?: { signal?: AbortSignal }): Promise<DigestResult>;
  /**
   * Upper-bound cost in USD of digesting `request`, reserved against the org's daily
   * budget before the call. Absent for free digesters (extractive).
   */
  estimateCostUsd?(request: DigestRequest): number;
}

/** The time source, injected so tests are deterministic. */
export interface Clock {
  now(): Date;
}

/** Units of the metric set (DESIGN §11), as CloudWatch EMF names them. */
export type MetricUnit = "Count" | "Milliseconds" | "None";

/** One metric data point. */
export interface Metric {
  readonly name: string;
  readonly value: number;
  readonly unit: MetricUnit;
  readonly dimensions?: Readonly<Record<string, string>>;
}

/** Where metrics go (EMF logs in Lambda, an array in tests). Must not throw. */
export interface MetricsSink {
  record(metric: Metric): void;
}
