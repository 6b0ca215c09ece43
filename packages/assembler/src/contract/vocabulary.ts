/**
 * The words the assembler, the worker and the storage package share. Each list is the one
 * source of its values: types derive from it, and the database schema builds its enums and
 * CHECK constraints from it.
 */

/**
 * What produced a digest row: a model (or extractive) `digest` of one tool result, or the
 * deterministic stub of a `superseded-search` result.
 */
export const DIGEST_KINDS = ["digest", "superseded-search"] as const;
export type DigestKind = (typeof DIGEST_KINDS)[number];

/** How a digest pass ended. */
export const PASS_STATUSES = ["done", "skipped", "partial", "failed"] as const;
export type PassStatus = (typeof PASS_STATUSES)[number];

/**
 * Why a pass was skipped (`disabled` … `budget`, `claimed`) or ended partial (`call_cap`,
 * `budget`, `digest_failed`, `out_of_time`). `budget` is both: no candidate fit, or the
 * budget ran out mid-pass. `claimed`: another run holds the thread's lease. `out_of_time`:
 * the function's remaining time could not fit one more digest call. `not_owner`: the
 * payload's org is not the thread's owner. `purged`: an operator deleted the digests.
 */
export const PASS_REASONS = [
  "disabled",
  "below_trigger",
  "nothing_new",
  "turn_lock",
  "no_checkpoint",
  "below_min_chars",
  "budget",
  "call_cap",
  "digest_failed",
  "claimed",
  "out_of_time",
  "not_owner",
  "purged",
] as const;
export type PassReason = (typeof PASS_REASONS)[number];

/**
 * Why the nightly sweep re-enqueues a thread: its last pass failed, ended partial, was
 * skipped for the turn lock or the budget, or the thread had a turn after its last
 * covered one (`active_since_pass`).
 */
export const LEFT_BEHIND_REASONS = ["failed", "partial", "turn_lock", "budget", "active_since_pass"] as const;
export type LeftBehindReason = (typeof LEFT_BEHIND_REASONS)[number];

/**
 * One digest row as the worker writes it and the storage package stores it (the runtime
 * loads only its `DigestEntry` part, in `types.ts`). Money in USD.
 */
export interface DigestRow {
  threadId: string;
  /** Non-empty: the empty-tool-call-id keep-rule never lets such a result be digested. */
  toolCallId: string;
  kind: DigestKind;
  toolName: string;
  /** The tool's id/offset args, enough to re-read the original in one call. */
  provenanceArgs: Record<string, unknown>;
  /** 64 lowercase hex chars: `contentSha256(content)` of the exact original. */
  contentSha256: string;
  digest: string;
  originalChars: number;
  /** Unicode code points of `digest` (Postgres `char_length`, `[...digest].length`). */
  digestChars: number;
  model: string | null;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}
