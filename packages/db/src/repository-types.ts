import type { DigestMap, OrgPolicy, TurnState } from "@context-cleaner/assembler";
import type {
  DigestKind,
  DigestRow,
  LeftBehindReason,
  OrgPolicyInput,
  PassStatus,
} from "@context-cleaner/assembler/internal";

export type { DigestKind, LeftBehindReason, PassStatus };

/** One digest row as the worker writes it: the shared row shape. Money in USD; stored as integer micro-USD. */
export type DigestRowInput = DigestRow;

/** A stored digest row. */
export interface StoredDigest extends DigestRowInput {
  orgId: string;
  createdAt: Date;
  updatedAt: Date;
}

/** A pass to record for a thread: the one written last is the latest, by the database's clock. */
export interface PassInput {
  status: PassStatus;
  /** Why, e.g. `turn_lock`, `budget`, `call_cap`, an error class. @default null */
  reason?: string | null;
  /** The latest turn end whose messages the digests now cover. Never moves backwards. @default unchanged */
  coveredTurnEndedAt?: Date | null;
  /** The latest turn end this pass saw (its event's). Never moves backwards. @default coveredTurnEndedAt */
  turnEndedAt?: Date | null;
  /** @default 0 */
  rawToolChars?: number;
  /** @default 0 */
  digestsWritten?: number;
  /**
   * When the pass ended, by the caller's clock: checked, but not stored. The database's
   * clock stamps the record (a worker whose clock is off must not order passes).
   */
  at?: Date;
}

/** A turn a run saw but leaves to the run holding the lease (see {@link DigestRepository.recordLatestTurn}). */
export interface LatestTurnInput {
  /** The end of the turn seen. */
  turnEndedAt: Date;
  /** Now, by the caller's clock: checked, but not stored (a record it creates is stamped by the database's clock). */
  at?: Date;
}

/** The stored pass record of a thread. */
export interface PassRecord {
  orgId: string;
  threadId: string;
  status: PassStatus;
  reason: string | null;
  coveredTurnEndedAt: Date | null;
  latestTurnEndedAt: Date | null;
  rawToolChars: number;
  digestsWritten: number;
  at: Date;
  /** The run holding the thread's lease, or null when it is free. */
  leaseOwner: string | null;
  /** When that lease lapses on its own, or null. */
  leaseExpiresAt: Date | null;
}

/** A run's claim on a thread, taken before any paid call. */
export interface ThreadClaimInput {
  /** A unique id of the run, e.g. a UUID. */
  owner: string;
  /**
   * Now, by the run's clock: checked, but not stored. The lease and the record a claim
   * creates for a thread with none are timed by the database's clock, whatever the run's says.
   */
  at?: Date;
  /** How long the lease lasts, from the database's now, if the run never releases it (it died). */
  leaseMs: number;
  /**
   * The end of the turn the run is for: kept as the record's latest turn, so a run that
   * dies before recording its pass leaves the thread to the sweep (active since its pass).
   */
  turnEndedAt?: Date;
}

/** The outcome of {@link DigestRepository.claimThread}. */
export type ThreadClaim =
  | {
      claimed: true;
      /** The pass record's covered turn, read in the same statement (for coalescing). */
      coveredTurnEndedAt: Date | null;
      /** When the lease lapses, by the database's clock. */
      expiresAt: Date;
    }
  | {
      claimed: false;
      /** When the other run's lease lapses, at the latest, by the database's clock. */
      heldUntil: Date;
    };

/**
 * A pass a run commits under its lease (see {@link DigestRepository.commitLeasedPass}): its
 * digests and its pass record, written together or not at all.
 */
export interface LeasedPassInput {
  /** The run's id, as it claimed the thread: the fencing token. */
  owner: string;
  /** Rows of the leased thread to upsert; may be empty (a skip or a failure records the pass only). */
  rows: readonly DigestRowInput[];
  /** The pass record; its `digestsWritten` is the number of rows this commit wrote. */
  pass: Omit<PassInput, "digestsWritten">;
}

/** The outcome of {@link DigestRepository.commitLeasedPass}. */
export type LeasedPassCommit =
  | { committed: true; digestsWritten: number }
  /** The run no longer holds the lease: nothing was written. */
  | { committed: false };

/** The bounds of {@link DigestRepository.listLeftBehind} and {@link DigestRepository.countLeftBehind}. */
export interface LeftBehindFilter {
  /** Only passes recorded before this instant (leave room for passes in flight). @default no bound */
  recordedBefore?: Date;
  /** Only passes recorded at or after this instant. @default no bound */
  recordedSince?: Date;
  /**
   * Only threads whose turn (the record's latest turn, or its record time without one) ended
   * before this instant. @default no bound
   */
  turnEndedBefore?: Date;
  /** Only threads whose turn ended at or after this instant: the sweep gives up on older ones. @default no bound */
  turnEndedSince?: Date;
}

/** A page request of {@link DigestRepository.listLeftBehind}. */
export interface LeftBehindQuery extends LeftBehindFilter {
  /** @default 100 (max 1000) */
  limit?: number;
  /** The previous page's `nextCursor`. */
  cursor?: string | null;
}

/** A thread the sweep should re-enqueue, with what it needs to rebuild the thread's event. */
export interface LeftBehindThread {
  orgId: string;
  threadId: string;
  reason: LeftBehindReason;
  /** The latest turn end any pass saw, when one was recorded. */
  latestTurnEndedAt: Date | null;
  /** When the latest pass was recorded. */
  recordedAt: Date;
}

/** One page of left-behind threads, oldest record first: (record time, org, thread). */
export interface LeftBehindPage {
  threads: LeftBehindThread[];
  nextCursor: string | null;
}

/** A thread, by org and id. */
export interface ThreadKey {
  orgId: string;
  threadId: string;
}

/** A thread's pass record as the sweep sees it: the turns its passes covered and saw. */
export interface ThreadPassCoverage extends ThreadKey {
  /** The latest turn end whose messages the digests cover. */
  coveredTurnEndedAt: Date | null;
  /** The latest turn end any pass (or claim) saw. */
  latestTurnEndedAt: Date | null;
}

/** What a purge removed. */
export interface PurgeResult {
  /** Digest rows deleted. */
  digests: number;
  /** Threads whose pass record is now `skipped` / `purged`. */
  threads: number;
}

/** Options of {@link DigestRepository.purgeOrganization}. */
export interface OrgPurgeOptions {
  /** Delete the org's policy row too (back to the deployment's defaults, mode `on`). @default false */
  deletePolicy?: boolean;
}

/** What an org's purge removed, and what became of its policy row. */
export interface OrgPurgeResult extends PurgeResult {
  /** `kept` (the default), `deleted` (with `deletePolicy`), or `none`: the org had no policy row. */
  policy: "kept" | "deleted" | "none";
}

/** What the digests of one thread amount to. */
export interface ThreadDigestSummary {
  /** Rows of the thread (digests and superseded-search stubs). */
  digests: number;
  /** Chars of the results the rows replace. */
  originalChars: number;
  /** Chars of the rows' text. */
  digestChars: number;
}

/** The outcome of {@link DigestRepository.reserveSpend}. */
export interface SpendReservation {
  ok: boolean;
  /** The amount now held (the request when `ok`, else 0). */
  reservedUsd: number;
  /** Budget minus reserved minus spent for the day, after this call. */
  remainingUsd: number;
}

/** The org-scoped storage port of the digest worker and the runtime. */
export interface DigestRepository {
  upsertDigests(orgId: string, rows: readonly DigestRowInput[]): Promise<number>;
  loadThreadDigests(orgId: string, threadId: string): Promise<DigestMap>;
  findReusableDigest(orgId: string, contentSha256: string): Promise<StoredDigest | null>;
  /** Reusable digests for many hashes in one query (the worker's batch form). */
  findReusableDigests(orgId: string, contentSha256s: readonly string[]): Promise<Map<string, StoredDigest>>;
  /** Deletes a thread's digests and nothing else (see {@link DigestRepository.purgeThread}). */
  deleteThreadDigests(orgId: string, threadId: string): Promise<number>;
  /**
   * The recovery path from a cleaner bug: deletes the thread's digests and marks its pass
   * `skipped` / `purged` at the database's now, every turn up to it covered, so neither the
   * sweep nor an earlier turn's event rewrites them; the next turn runs as usual. A pass in
   * flight loses its lease: it writes nothing. The same text in the org's other threads
   * stays (content-hash reuse crosses threads): see `purgeContent`.
   */
  purgeThread(orgId: string, threadId: string): Promise<PurgeResult>;
  /**
   * Deletes every digest of one content hash in the org, marks each thread it was in purged
   * and fences every pass of the org in flight (one may be copying the content back).
   */
  purgeContent(orgId: string, contentSha256: string): Promise<PurgeResult>;
  /**
   * Deletes all of the org's digests and marks every thread with digests or a pass record
   * purged (passes in flight lose their lease). Its policy row stays (an org turned `off`
   * for the purge stays off) unless `deletePolicy`, which deletes it in the same transaction.
   */
  purgeOrganization(orgId: string, options?: OrgPurgeOptions): Promise<OrgPurgeResult>;
  /** Counts and sizes of a thread's digests, in one query. */
  summarizeThreadDigests(orgId: string, threadId: string): Promise<ThreadDigestSummary>;
  /**
   * Reserves `amountUsd` of the org's budget for `day`, within `budgetUsd`. Reservations of a
   * day untouched for longer than `holdMs` (default 960,000) no longer count: their run died.
   */
  reserveSpend(
    orgId: string,
    day: string,
    amountUsd: number,
    budgetUsd: number,
    holdMs?: number,
  ): Promise<SpendReservation>;
  settleSpend(orgId: string, day: string, reservedUsd: number, actualUsd: number): Promise<void>;
  getSpend(orgId: string, day: string): Promise<{ reservedUsd: number; spentUsd: number }>;
  recordPass(orgId: string, threadId: string, pass: PassInput): Promise<void>;
  getPass(orgId: string, threadId: string): Promise<PassRecord | null>;
  /**
   * Raises the thread's latest seen turn (`greatest(latest, turn)`) and nothing else; a
   * thread with no record gets one, `skipped` / `claimed`.
   */
  recordLatestTurn(orgId: string, threadId: string, update: LatestTurnInput): Promise<void>;
  /** Takes the thread's lease unless another run holds it (see {@link ThreadClaim}). */
  claimThread(orgId: string, threadId: string, claim: ThreadClaimInput): Promise<ThreadClaim>;
  /** Releases the lease if `owner` still holds it; returns whether it did. */
  releaseThread(orgId: string, threadId: string, owner: string): Promise<boolean>;
  /** Whether `owner` holds the thread's lease and it has not lapsed, by the database's clock. */
  holdsLease(orgId: string, threadId: string, owner: string): Promise<boolean>;
  /**
   * Upserts the rows and records the pass in one transaction, only while `commit.owner`
   * holds the thread's lease, unlapsed by the database's clock; the pass record's row is
   * locked for it, so no claim takes the lease over in between. A run whose lease lapsed or
   * was taken over writes nothing: it never overwrites the new holder's rows or pass.
   * @throws {InvalidStorageInputError} for a row of another thread, or as `upsertDigests`
   *   and `recordPass` do.
   */
  commitLeasedPass(orgId: string, threadId: string, commit: LeasedPassInput): Promise<LeasedPassCommit>;
  listLeftBehind(query?: LeftBehindQuery): Promise<LeftBehindPage>;
  /** How many threads `listLeftBehind` would list within `filter`'s bounds, across orgs, as the sweeper role. */
  countLeftBehind(filter?: LeftBehindFilter): Promise<number>;
  /**
   * Which of `threads` have a pass record, and the turns it covers and saw, across orgs, as
   * the sweeper role (which reads routing columns only): the sweep enqueues the others, and
   * those whose checkpoint activity is later than their record saw (their event was lost).
   */
  threadsWithPass(threads: readonly ThreadKey[]): Promise<ThreadPassCoverage[]>;
  /**
   * Records that `orgId` owns `threadId` (the runtime calls it when it creates a thread);
   * the first org to record a thread owns it for good. Returns whether `orgId` owns it now.
   */
  recordThreadOwner(orgId: string, threadId: string): Promise<boolean>;
  /** The org that owns `threadId`, read across orgs as the sweeper role, or null when none was recorded. */
  getThreadOwner(threadId: string): Promise<string | null>;
  /**
   * What a runtime loads at a turn's start, in one query: the thread's digests and the
   * org's policy (null: the deployment's defaults).
   */
  loadTurnState(orgId: string, threadId: string): Promise<TurnState>;
  /** The org's policy, or null when it has none (the deployment's defaults). */
  getOrgPolicy(orgId: string): Promise<OrgPolicy | null>;
  /**
   * Sets the org's whole policy, validated (one error naming the bad field), with who set
   * it and when, as the operator gives them, in the row.
   */
  setOrgPolicy(orgId: string, policy: OrgPolicyInput, audit: PolicyAudit): Promise<OrgPolicy>;
  /** Deletes the org's policy (back to the deployment's defaults); returns whether it had one. */
  deleteOrgPolicy(orgId: string): Promise<boolean>;
  /** Counts and sizes of all of the org's digests (what shadow mode would save), in one query. */
  summarizeOrgDigests(orgId: string): Promise<OrgDigestSummary>;
}

/** See {@link DigestRepository.summarizeOrgDigests}. */
export interface OrgDigestSummary extends ThreadDigestSummary {
  /** Threads with at least one digest. */
  threads: number;
}

/** Who sets a policy and when, as the operator gives them: the row's audit columns. */
export interface PolicyAudit {
  /** Who, e.g. an operator's email or a ticket id. */
  updatedBy: string;
  updatedAt: Date;
}
