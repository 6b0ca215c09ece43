import type { DigestEntry, DigestMap } from "@context-cleaner/assembler";
import {
  canonicalJson,
  type DigestRow,
  microUsdToUsd,
  type PassStatus,
} from "@context-cleaner/assembler/internal";
import { systemClock } from "../clock";
import { STORE_INPUT_CODES, StoreInputError } from "../errors";
import { DIGEST_JOB_DEFAULTS } from "../job/options";
import type {
  Clock,
  DigestStore,
  LatestTurnUpdate,
  LeasedPassResult,
  LeasedPassUpdate,
  PassUpdate,
  ThreadClaimRequest,
  ThreadClaimResult,
} from "../ports";
import {
  checkedMicroUsd,
  requireDate,
  requireDay,
  requireOrganization,
  requirePass,
  requireRow,
  requireThread,
} from "./store-input";

/** A stored pass record, as the repository's `getPass` returns it. */
export interface InMemoryPassRecord {
  orgId: string;
  threadId: string;
  status: PassStatus;
  reason: string | null;
  coveredTurnEndedAt: Date | null;
  latestTurnEndedAt: Date | null;
  rawToolChars: number;
  digestsWritten: number;
  at: Date;
}

interface StoredRow {
  row: DigestRow;
  /** Write order: the newest row of a hash wins reuse, as the repository's `updated_at` decides. */
  version: number;
}

interface Ledger {
  reservedMicros: number;
  spentMicros: number;
  /** The last reservation or settlement, by the store's clock (the repository's `updated_at`). */
  updatedAtMs: number;
}

/** How long a day's reservations are held after its last reservation or settlement: the lease's duration. */
const SPEND_HOLD_MS = DIGEST_JOB_DEFAULTS.leaseDurationMs;

/** The key of an (org, thread) or (org, day) pair; JSON keeps any two strings apart. */
const key = (...parts: string[]) => JSON.stringify(parts);

/** The later of two instants; `null` or `undefined` never wins (Postgres `greatest`). */
function later(a: Date | null | undefined, b: Date | null | undefined): Date | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a >= b ? a : b;
}

/** What decides whether an upsert changes a row: the repository's `is distinct from` columns. */
function sameContent(a: DigestRow, b: DigestRow): boolean {
  return (
    a.kind === b.kind &&
    a.toolName === b.toolName &&
    a.contentSha256 === b.contentSha256 &&
    a.digest === b.digest &&
    a.originalChars === b.originalChars &&
    canonicalJson(a.provenanceArgs) === canonicalJson(b.provenanceArgs)
  );
}

/**
 * A {@link DigestStore} held in memory, for one process: what a one-shot `clean` runs on
 * (no database to start). It behaves as the storage package's repository does through the
 * port, checked by the same conformance suite: org-scoped rows, idempotent upserts (an
 * identical row is left untouched), the newest row of a hash for reuse, budget
 * reservations that never overspend, a pass record stamped by the store's clock whose turn
 * times only move forward, a claim that gives a thread with no record a
 * `skipped` / `claimed` one, leases timed by the store's own clock (as a database's are by
 * its own, whatever the runs' clocks say), commits fenced by the lease, and the same input
 * rules and error codes. Rows are copied in and out, so callers never share state with the
 * store.
 *
 * @param options.clock the store's clock, which times every lease and stamps every pass record. @default the system clock
 * @example
 * const store = createInMemoryDigestStore();
 * await runDigestJob(payload, { checkpoints, store, digester, clock: systemClock });
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a factory whose returned port methods share the store's maps; each method is short
export function createInMemoryDigestStore(options: { clock?: Clock } = {}): DigestStore & {
  getPass(orgId: string, threadId: string): Promise<InMemoryPassRecord | null>;
} {
  const clock = options.clock ?? systemClock;
  /** Org → thread → tool call id → row. */
  const digests = new Map<string, Map<string, Map<string, StoredRow>>>();
  const ledgers = new Map<string, Ledger>();
  const passes = new Map<string, InMemoryPassRecord>();
  const leases = new Map<string, { owner: string; expiresAt: Date }>();
  let version = 0;

  const threadRows = (orgId: string, threadId: string) => {
    const threads = digests.get(orgId) ?? new Map<string, Map<string, StoredRow>>();
    digests.set(orgId, threads);
    const rows = threads.get(threadId) ?? new Map<string, StoredRow>();
    threads.set(threadId, rows);
    return rows;
  };

  /** Checks every row, then upserts them; returns how many were inserted or changed. */
  const upsert = (organization: string, rows: readonly DigestRow[]): number => {
    const latest = new Map<string, DigestRow>();
    rows.forEach((row, index) => {
      requireRow(row, `rows[${index}]`);
      latest.set(key(row.threadId, row.toolCallId), structuredClone(row));
    });
    let written = 0;
    for (const row of latest.values()) {
      const stored = threadRows(organization, row.threadId);
      const existing = stored.get(row.toolCallId);
      if (existing && sameContent(existing.row, row)) continue;
      stored.set(row.toolCallId, { row, version: ++version });
      written += 1;
    }
    return written;
  };

  /**
   * Records a checked pass, stamped by the store's clock (as the database stamps its own
   * now): the pass recorded last is the latest. Turn times only move forward.
   */
  const record = (organization: string, threadId: string, pass: PassUpdate): void => {
    const passKey = key(organization, threadId);
    const covered = pass.coveredTurnEndedAt ?? null;
    const seen = pass.turnEndedAt ?? covered;
    const existing = passes.get(passKey);
    passes.set(passKey, {
      orgId: organization,
      threadId,
      status: pass.status,
      reason: pass.reason ?? null,
      coveredTurnEndedAt: existing ? later(existing.coveredTurnEndedAt, covered) : covered,
      latestTurnEndedAt: existing ? later(later(existing.latestTurnEndedAt, seen), covered) : seen,
      rawToolChars: pass.rawToolChars ?? 0,
      digestsWritten: pass.digestsWritten ?? 0,
      at: clock.now(),
    });
  };

  /** Whether `owner` holds the lease of `passKey`, unexpired by the store's clock. */
  const holds = (passKey: string, owner: string): boolean => {
    const held = leases.get(passKey);
    return held !== undefined && held.owner === owner && held.expiresAt > clock.now();
  };

  return {
    async upsertDigests(orgId, rows) {
      return upsert(requireOrganization(orgId), rows);
    },

    async loadThreadDigests(orgId, threadId): Promise<DigestMap> {
      const thread = requireThread(threadId);
      const rows = digests.get(requireOrganization(orgId))?.get(thread);
      const map = new Map<string, DigestEntry>();
      for (const [toolCallId, { row }] of rows ?? []) {
        map.set(toolCallId, {
          digest: row.digest,
          contentSha256: row.contentSha256,
          digestChars: row.digestChars,
          kind: row.kind,
        });
      }
      return map;
    },

    async findReusableDigests(orgId, contentSha256s) {
      const organization = requireOrganization(orgId);
      for (const hash of contentSha256s) {
        if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) {
          throw new StoreInputError("contentSha256", "expected 64 lowercase hex chars");
        }
      }
      const wanted = new Set(contentSha256s);
      const newest = new Map<string, StoredRow>();
      for (const rows of digests.get(organization)?.values() ?? []) {
        for (const stored of rows.values()) {
          if (!wanted.has(stored.row.contentSha256)) continue;
          const best = newest.get(stored.row.contentSha256);
          if (!best || stored.version > best.version) newest.set(stored.row.contentSha256, stored);
        }
      }
      return new Map([...newest].map(([hash, stored]) => [hash, structuredClone(stored.row)]));
    },

    async reserveSpend(orgId, day, amountUsd, budgetUsd, holdMs = SPEND_HOLD_MS) {
      const ledgerKey = key(requireOrganization(orgId), requireDay(day));
      const amount = checkedMicroUsd(amountUsd, "amountUsd");
      const budget = checkedMicroUsd(budgetUsd, "budgetUsd");
      const now = clock.now().getTime();
      const ledger = ledgers.get(ledgerKey) ?? { reservedMicros: 0, spentMicros: 0, updatedAtMs: now };
      ledgers.set(ledgerKey, ledger);
      // Untouched for longer than the hold: every reservation left is of a run that died.
      if (ledger.updatedAtMs < now - holdMs) ledger.reservedMicros = 0;
      // One synchronous step: no other reservation runs in between, so none overspends.
      const ok = ledger.reservedMicros + ledger.spentMicros + amount <= budget;
      if (ok) {
        ledger.reservedMicros += amount;
        ledger.updatedAtMs = now;
      }
      return {
        ok,
        reservedUsd: ok ? microUsdToUsd(amount) : 0,
        remainingUsd: microUsdToUsd(budget - ledger.reservedMicros - ledger.spentMicros),
      };
    },

    async settleSpend(orgId, day, reservedUsd, actualUsd) {
      const ledgerKey = key(requireOrganization(orgId), requireDay(day));
      const reserved = checkedMicroUsd(reservedUsd, "reservedUsd");
      const actual = checkedMicroUsd(actualUsd, "actualUsd");
      const ledger = ledgers.get(ledgerKey);
      if (!ledger) {
        if (reserved > 0) throw new StoreInputError("reservedUsd", `nothing is reserved for ${day}`);
        ledgers.set(ledgerKey, {
          reservedMicros: 0,
          spentMicros: actual,
          updatedAtMs: clock.now().getTime(),
        });
        return;
      }
      if (reserved > ledger.reservedMicros) {
        throw new StoreInputError(
          "reservedUsd",
          "releases more than is reserved",
          STORE_INPUT_CODES.constraintViolation,
        );
      }
      ledger.reservedMicros -= reserved;
      ledger.spentMicros += actual;
      ledger.updatedAtMs = clock.now().getTime();
    },

    async recordPass(orgId, threadId, pass: PassUpdate) {
      const organization = requireOrganization(orgId);
      const thread = requireThread(threadId);
      requirePass(pass);
      record(organization, thread, pass);
    },

    async recordLatestTurn(orgId, threadId, update: LatestTurnUpdate) {
      const passKey = key(requireOrganization(orgId), requireThread(threadId));
      const turn = requireDate(update.turnEndedAt, "turnEndedAt");
      if (update.at !== undefined) requireDate(update.at, "at");
      const existing = passes.get(passKey);
      if (existing) {
        existing.latestTurnEndedAt = later(existing.latestTurnEndedAt, turn);
        return;
      }
      passes.set(passKey, {
        orgId,
        threadId,
        status: "skipped",
        reason: "claimed",
        coveredTurnEndedAt: null,
        latestTurnEndedAt: turn,
        rawToolChars: 0,
        digestsWritten: 0,
        at: clock.now(),
      });
    },

    async getPass(orgId, threadId) {
      const record = passes.get(key(requireOrganization(orgId), requireThread(threadId)));
      return record ? structuredClone(record) : null;
    },

    async claimThread(orgId, threadId, claim: ThreadClaimRequest): Promise<ThreadClaimResult> {
      const passKey = key(requireOrganization(orgId), requireThread(threadId));
      const owner = requireLeaseOwner(claim.owner);
      if (claim.at !== undefined) requireDate(claim.at, "at");
      const leaseMs = requireLeaseMs(claim.leaseMs);
      const held = leases.get(passKey);
      // One synchronous step, as the repository's conditional upsert: exactly one claim wins.
      // The store's clock, not the claimant's, decides whether a lease has expired.
      const now = clock.now();
      if (held && held.owner !== owner && held.expiresAt > now) {
        return { claimed: false, heldUntil: new Date(held.expiresAt) };
      }
      leases.set(passKey, { owner, expiresAt: new Date(now.getTime() + leaseMs) });
      // As the repository's claim: a thread with no record gets one, skipped / claimed, so a
      // run that dies before recording its pass leaves it to the sweep; an existing record
      // only has its latest turn moved forward.
      const turn = claim.turnEndedAt ? new Date(claim.turnEndedAt) : null;
      const existing = passes.get(passKey);
      if (existing) existing.latestTurnEndedAt = later(existing.latestTurnEndedAt, turn);
      else {
        passes.set(passKey, {
          orgId,
          threadId,
          status: "skipped",
          reason: "claimed",
          coveredTurnEndedAt: null,
          latestTurnEndedAt: turn,
          rawToolChars: 0,
          digestsWritten: 0,
          at: new Date(now),
        });
      }
      const covered = passes.get(passKey)?.coveredTurnEndedAt ?? null;
      return { claimed: true, coveredTurnEndedAt: covered ? new Date(covered) : null };
    },

    async releaseThread(orgId, threadId, owner) {
      const passKey = key(requireOrganization(orgId), requireThread(threadId));
      if (leases.get(passKey)?.owner !== requireLeaseOwner(owner)) return false;
      leases.delete(passKey);
      return true;
    },

    async holdsLease(orgId, threadId, owner) {
      const passKey = key(requireOrganization(orgId), requireThread(threadId));
      return holds(passKey, requireLeaseOwner(owner));
    },

    async commitLeasedPass(orgId, threadId, commit: LeasedPassUpdate): Promise<LeasedPassResult> {
      const organization = requireOrganization(orgId);
      const thread = requireThread(threadId);
      const owner = requireLeaseOwner(commit.owner);
      commit.rows.forEach((row, index) => {
        requireRow(row, `rows[${index}]`);
        if (row.threadId !== thread) {
          throw new StoreInputError(`rows[${index}].threadId`, "must be the committed thread");
        }
      });
      requirePass(commit.pass);
      // One synchronous step from the check to the last write: no claim takes the lease between.
      if (!holds(key(organization, thread), owner)) return { committed: false };
      const digestsWritten = upsert(organization, commit.rows);
      record(organization, thread, { ...commit.pass, digestsWritten });
      return { committed: true, digestsWritten };
    },
  };
}

/** A lease lasts 1 ms to a day, as the repository requires. */
function requireLeaseMs(leaseMs: unknown): number {
  if (typeof leaseMs !== "number" || !Number.isInteger(leaseMs) || leaseMs < 1 || leaseMs > 86_400_000)
    throw new StoreInputError("leaseMs", "must be an integer from 1 to 86400000");
  return leaseMs;
}

/** A lease owner is a non-empty string, as the repository requires. */
function requireLeaseOwner(owner: unknown): string {
  if (typeof owner !== "string" || owner === "")
    throw new StoreInputError("owner", "must be a non-empty string");
  return owner;
}
