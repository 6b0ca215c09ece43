import type { DigestMap, Message, OrgPolicy } from "@context-cleaner/assembler";
import type { DigestRow, PassReason, PassStatus } from "@context-cleaner/assembler/internal";

/** One digest row as the worker writes it (the shape the storage package stores). */
export type { DigestRow };

/**
 * The ports of packages/core: everything the digest pipeline needs from the outside world,
 * as types only. The pipeline depends on this module and nothing else of the outside;
 * adapters (the readers in checkpoints/, the digesters in digesters/, the storage package's
 * repository) implement these interfaces, and composition roots (the CLI, the Lambda
 * functions) wire them together.
 */

/**
 * Reads a thread's raw record from the agent framework's checkpoint store.
 *
 * Read-only by contract: an implementation never writes, migrates or deletes anything in
 * the checkpoint store — the cleaner's output lives in its own side table.
 *
 * @example
 * const messages = await reader.readThread(threadId);
 * if (messages === null) return { status: "skipped", reason: "no_checkpoint" };
 */
export interface CheckpointReader {
  /**
   * The messages of the thread's latest checkpoint, in the neutral model.
   *
   * @returns `null` when the store holds no checkpoint for `threadId`.
   * @throws {CheckpointReadError} when the checkpoint exists but cannot be read as messages.
   */
  readThread(threadId: string): Promise<Message[] | null>;
}

/** A pass to record for a thread: the one written last is the latest, by the store's clock. */
export interface PassUpdate {
  status: PassStatus;
  reason?: PassReason | null;
  /** The latest turn end whose messages the digests now cover. Never moves backwards. */
  coveredTurnEndedAt?: Date | null;
  /** The latest turn end this pass saw (its event's). */
  turnEndedAt?: Date | null;
  rawToolChars?: number;
  digestsWritten?: number;
  /**
   * When the pass ended, by the run's clock: checked, but not stored. The store stamps the
   * record with its own clock (the database's), so a run whose clock is off never orders passes.
   */
  at?: Date;
}

/** A turn a run saw but leaves to another (see {@link DigestStore.recordLatestTurn}). */
export interface LatestTurnUpdate {
  /** The end of the turn seen. */
  turnEndedAt: Date;
  /** Now, by the run's clock: checked, but not stored (a record it creates is stamped by the store's clock). */
  at?: Date;
}

/** A run's claim on a thread, taken before any paid call (see {@link DigestStore.claimThread}). */
export interface ThreadClaimRequest {
  /** A unique id of the run. */
  owner: string;
  /**
   * Now, by the run's clock: checked, but not stored. The lease, and the record a claim
   * creates for a thread with none, are timed by the store's clock (the database's).
   */
  at?: Date;
  /** How long the lease lasts, from the store's now, if the run never releases it (it died). */
  leaseMs: number;
  /** The end of the turn the run is for (kept as the pass record's latest turn). */
  turnEndedAt?: Date;
}

/** Whether a claim took the thread's lease; when it did, the covered turn read with it. */
export type ThreadClaimResult =
  | { claimed: true; coveredTurnEndedAt: Date | null }
  | { claimed: false; heldUntil: Date };

/** A pass a run commits under its lease (see {@link DigestStore.commitLeasedPass}). */
export interface LeasedPassUpdate {
  /** The run's id, as it claimed the thread: the fencing token. */
  owner: string;
  /** Rows of the leased thread to upsert; may be empty (a skip or a failure records the pass only). */
  rows: readonly DigestRow[];
  /** The pass record; its `digestsWritten` is the number of rows the commit wrote. */
  pass: Omit<PassUpdate, "digestsWritten">;
}

/** What {@link DigestStore.commitLeasedPass} did: `committed: false` wrote nothing. */
export type LeasedPassResult = { committed: true; digestsWritten: number } | { committed: false };

/**
 * Org-scoped storage of digests, the daily spend ledger and the per-thread pass record.
 * `@context-cleaner/db`'s repository implements it (Neon, node-postgres or PGlite behind it).
 */
export interface DigestStore {
  /** Inserts or replaces rows (unique per org, thread, tool call id); returns rows changed. */
  upsertDigests(orgId: string, rows: readonly DigestRow[]): Promise<number>;
  /** The thread's digests keyed by tool call id: one indexed query. */
  loadThreadDigests(orgId: string, threadId: string): Promise<DigestMap>;
  /** Digests of the same content in the same org, by content hash, for reuse without a call. */
  findReusableDigests(
    orgId: string,
    contentSha256s: readonly string[],
  ): Promise<ReadonlyMap<string, DigestRow>>;
  /**
   * Reserves `amountUsd` of the org's budget for `day` unless it would exceed `budgetUsd`.
   * The day's reservations are held `holdMs` (default 960,000, the lease's) after the last
   * reservation or settlement: past that none is from a live run, so they no longer count.
   */
  reserveSpend(
    orgId: string,
    day: string,
    amountUsd: number,
    budgetUsd: number,
    holdMs?: number,
  ): Promise<{ ok: boolean }>;
  /** Replaces a reservation by what the call actually cost. */
  settleSpend(orgId: string, day: string, reservedUsd: number, actualUsd: number): Promise<void>;
  recordPass(orgId: string, threadId: string, pass: PassUpdate): Promise<void>;
  getPass(orgId: string, threadId: string): Promise<{ coveredTurnEndedAt: Date | null } | null>;
  /**
   * Raises the thread's latest seen turn to `update.turnEndedAt` (`greatest(latest, turn)`)
   * and changes nothing else: status, reason, covered turn, record time and lease stay the
   * holder's. A thread with no record gets one, `skipped` / `claimed` at the store's now.
   */
  recordLatestTurn(orgId: string, threadId: string, update: LatestTurnUpdate): Promise<void>;
  /**
   * Takes the thread's lease, atomically, unless another run holds one that has not expired
   * by the store's clock: of concurrent claims exactly one wins. The lease expires on its own
   * `leaseMs` after the store's now; the owner may claim again.
   */
  claimThread(orgId: string, threadId: string, claim: ThreadClaimRequest): Promise<ThreadClaimResult>;
  /** Releases the lease if `owner` still holds it; returns whether it did. */
  releaseThread(orgId: string, threadId: string, owner: string): Promise<boolean>;
  /** Whether `owner` still holds the thread's lease, unexpired by the store's clock (checked before each call). */
  holdsLease(orgId: string, threadId: string, owner: string): Promise<boolean>;
  /**
   * Upserts the rows and records the pass atomically, only while `commit.owner` holds the
   * thread's lease, unexpired by the store's clock: the lease owner is the fencing token. A
   * run whose lease expired or was taken over writes nothing (`committed: false`), so it
   * never overwrites the new holder's rows or pass record.
   */
  commitLeasedPass(orgId: string, threadId: string, commit: LeasedPassUpdate): Promise<LeasedPassResult>;
  /**
   * The org's rollout policy (mode, overrides, tool rules), read once per job; null when
   * it has none. A store without it runs every org on the deployment's defaults.
   */
  getOrgPolicy?(orgId: string): Promise<OrgPolicy | null>;
}

/** A thread the agent framework's store saw activity on. */
export interface ActiveThread {
  readonly orgId: string;
  readonly threadId: string;
  /** When its latest checkpoint was written. */
  readonly lastActivityAt: Date;
  /**
   * When its latest turn started, where the store tells (LangGraph writes a checkpoint of a
   * run's input, metadata `source: "input"`, as each run starts). A turn's later checkpoints
   * may be written after its turn-ended event; its start never is. The sweep compares this,
   * when given, with the latest turn end the pass record saw. @default unknown
   */
  readonly lastTurnStartedAt?: Date;
}

/** A page request of {@link ThreadDirectory.listActiveThreads}. */
export interface ActiveThreadsQuery {
  /** Only threads with a checkpoint written at or after this instant. */
  readonly since: Date;
  /** Threads per page. @default 100 (adapters cap it) */
  readonly limit?: number;
  /** The previous page's `nextCursor`. */
  readonly cursor?: string | null;
}

/** One page of active threads, in thread id order. */
export interface ActiveThreadsPage {
  readonly threads: ActiveThread[];
  readonly nextCursor: string | null;
  /**
   * Records of the store passed over because their activity time could not be read (an
   * app's text column holding something that is not a date-time), where the directory
   * counts them: on the first page of a listing, for the whole store. @default none counted
   */
  readonly unreadable?: number;
}

/**
 * Lists threads by recent activity, from the agent framework's own store: how the nightly
 * sweep finds threads whose turn event was lost (active, yet no pass record). Read-only
 * by contract, like {@link CheckpointReader}.
 */
export interface ThreadDirectory {
  /** @throws {CheckpointReadError} `store_failed` (retryable) when the store cannot be read. */
  listActiveThreads(query: ActiveThreadsQuery): Promise<ActiveThreadsPage>;
}

/** Who owns a thread, as a {@link ThreadOwner} establishes it. */
export type ThreadOwnership =
  | { readonly status: "owned"; readonly orgId: string }
  /** No owner is established: no record of the thread yet, or its first names no org. */
  | { readonly status: "unknown" }
  /** The thread's records name more than one org: it is refused for every one of them. */
  | { readonly status: "conflicting"; readonly orgIds: readonly string[] };

/**
 * The org that owns a thread, established once for it and checked on every job before any
 * paid call: a job whose payload names another org is refused (`not_owner`), writes nothing
 * and is never billed, so content-hash reuse within an org only ever sees the owner's rows.
 *
 * Two implementations: {@link createPostgresThreadOwner} takes the org recorded in the
 * metadata of the thread's first checkpoint, which the runtime's server sets and no client
 * may write; {@link createTableThreadOwner} reads an owner row the runtime writes when it
 * creates the thread (`recordThreadOwner`), for apps whose checkpoint metadata a client can
 * influence.
 */
export interface ThreadOwner {
  /** @throws {CheckpointReadError} `store_failed` (retryable) when the owner cannot be read. */
  ownerOf(threadId: string): Promise<ThreadOwnership>;
}

/**
 * Best-effort peek at whether a turn is running on a thread. Safety never depends on it:
 * a mid-turn pass only adds rows for pre-existing messages, and a turn loads digests once.
 */
export interface TurnLock {
  isHeld(orgId: string, threadId: string): Promise<boolean>;
}

/** A turn lock for embedded runs, where no turn runs beside the worker. */
export const NO_TURN_LOCK: TurnLock = { isHeld: async () => false };

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

/** Units of the metric set, as CloudWatch Embedded Metric Format names them. */
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

/**
 * Where the job's warnings go: a structured logger (Powertools' `Logger` fits), an array in
 * tests. Must not throw.
 */
export interface Logger {
  warn(message: string, attributes?: Readonly<Record<string, unknown>>): void;
}
