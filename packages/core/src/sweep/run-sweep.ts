import { InvalidOptionError } from "@context-cleaner/assembler";
import type { LeftBehindReason } from "@context-cleaner/assembler/internal";
import { DIGEST_JOB_DEFAULTS } from "../job/options";
import type { Clock, MetricsSink, ThreadDirectory, ThreadOwner } from "../ports";
import type { DigestQueue } from "../queue/digest-queue";
import { sweepMessage } from "./sweep-message";

/** Why the sweep enqueues a thread: a left-behind reason of its pass record, or `lost_event`. */
export type SweepReason = LeftBehindReason | "lost_event";

/** The part of the storage repository the sweep reads, as the sweeper role. */
export interface SweepStore {
  /**
   * Threads left behind, the orgs in turns (every org's oldest record, then every org's
   * second oldest, …), so each org has its share of a run; within an org oldest record first
   * (the record time is the sweep's cursor).
   */
  listLeftBehind(query: {
    limit?: number;
    cursor?: string | null;
    recordedBefore?: Date;
    turnEndedSince?: Date;
  }): Promise<{
    threads: {
      orgId: string;
      threadId: string;
      reason: LeftBehindReason;
      latestTurnEndedAt: Date | null;
      recordedAt: Date;
    }[];
    nextCursor: string | null;
  }>;
  /** How many threads left behind there are within these bounds (the given-up ones). */
  countLeftBehind(filter: { recordedBefore?: Date; turnEndedBefore?: Date }): Promise<number>;
  /** The pass records of `threads` that have one, with the latest turn end they saw. */
  threadsWithPass(
    threads: readonly { orgId: string; threadId: string }[],
  ): Promise<{ orgId: string; threadId: string; latestTurnEndedAt: Date | null }[]>;
}

/** What the sweep runs on. */
export interface SweepPorts {
  store: SweepStore;
  /** Where jobs go; left out on a dry run. */
  queue?: Pick<DigestQueue, "send">;
  /**
   * Finds threads active later than their pass record saw, or with none (lost events);
   * without it that scan is skipped.
   */
  directory?: ThreadDirectory;
  /**
   * The threads' owners: each thread is enqueued under its owner's org, and one another org
   * owns (a pass record left by an unchecked job) or nobody does is passed over and counted
   * in `notOwned`. Without it, the pass record's org and the directory's (the org of the
   * thread's first checkpoint) are taken as they are.
   */
  threadOwner?: ThreadOwner;
  clock: Clock;
  metrics?: MetricsSink;
}

/** Defaults of {@link SweepOptions}. */
export const SWEEP_DEFAULTS = {
  /** Threads per page of each scan. */
  pageSize: 100,
  /** Pages per scan at most, so one run stays bounded. */
  maxPages: 20,
  /**
   * Threads enqueued per run at most, both scans together. With a directory each scan has
   * half (the left-behind scan the odd one), and what one leaves unused passes to the other.
   */
  maxThreads: 1_000,
  /** Passes and activity this recent are left alone: their own job may still be queued. */
  settleMinutes: 15,
  /** How far back the directory scan looks for activity. */
  lookbackHours: 48,
  /**
   * Nights a thread left behind is retried: once the turn it waits on (its pass record's
   * latest turn, or the record's time without one) ended this many days before the run, the
   * sweep gives up on it, counts it in `givenUp`, and leaves it until a new turn arrives.
   */
  giveUpAfterNights: 5,
  /**
   * The `rawToolChars` of a swept job. The sweep cannot see a thread's size (the sweeper
   * role reads routing columns only; the directory reads no messages), so it sends the
   * trigger: the job then reads the checkpoint and judges the thread by its content.
   */
  rawToolChars: DIGEST_JOB_DEFAULTS.triggerChars,
  /** Report what would be enqueued, and send nothing. */
  dryRun: false,
} as const;

export type SweepOptions = {
  -readonly [key in keyof typeof SWEEP_DEFAULTS]?: (typeof SWEEP_DEFAULTS)[key] extends boolean
    ? boolean
    : number;
};

/** One thread the sweep enqueued (or, on a dry run, would enqueue). */
export interface SweptThread {
  orgId: string;
  threadId: string;
  reason: SweepReason;
  /** The turn end of the job: the pass record's latest turn, or the last checkpoint's time. */
  turnEndedAt: string;
  /** The queue's message id; absent on a dry run or when the send failed. */
  messageId?: string;
  /** Why the send failed. */
  error?: string;
}

/** What one run found and did. */
export interface SweepReport {
  dryRun: boolean;
  threads: SweptThread[];
  /** Threads per reason (enqueued, or would be on a dry run; failed sends excluded). */
  byReason: Partial<Record<SweepReason, number>>;
  /** Sends that failed. */
  failed: number;
  /** Threads passed over because their org is not their owner's (only with a `threadOwner`). */
  notOwned: number;
  /**
   * Threads left behind that the sweep gave up on: the turn they wait on ended more than
   * `giveUpAfterNights` days ago. Not enqueued until a new turn arrives.
   */
  givenUp: number;
  /** Whether a scan stopped at `maxPages` or `maxThreads` with more to see. */
  truncated: boolean;
  /**
   * Records of the directory's store it passed over because their activity time could not
   * be read (as the directory counts them; see `ActiveThreadsPage.unreadable`).
   */
  unreadableActivity: number;
}

function resolveOptions(options: SweepOptions): Required<SweepOptions> {
  const resolved = { ...SWEEP_DEFAULTS, ...options };
  for (const field of [
    "pageSize",
    "maxPages",
    "maxThreads",
    "settleMinutes",
    "lookbackHours",
    "giveUpAfterNights",
    "rawToolChars",
  ] as const) {
    const value = resolved[field];
    const min = field === "settleMinutes" || field === "rawToolChars" ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < min) {
      throw new InvalidOptionError(`${field}: must be an integer of at least ${min}, got ${value}`, field);
    }
  }
  return resolved;
}

/**
 * The nightly sweep: re-enqueues threads left behind (their last pass failed, ended
 * partial, was skipped for the turn lock or the budget, or the thread was active after it)
 * and, with a directory, threads whose latest turn started after the latest turn end their
 * pass record saw (or, without turn starts, whose activity is later), or that have no pass
 * record at all (their turn event was lost). A thread
 * both scans find is enqueued once. Each job carries the same group and deduplication ids
 * the runtime's publisher gives that thread and turn, so a sweep retried within the queue's
 * window sends nothing twice, and the job's coalescing skips a turn a pass already covered.
 *
 * Bounded: at most `maxPages` pages per scan and `maxThreads` jobs per run, half for each
 * scan (what one leaves unused passes to the other). A failed send is reported in `failed`
 * and the run goes on.
 *
 * Fair across orgs and runs without state: the left-behind scan takes the orgs in turns
 * (each org's oldest record, then each org's second oldest, …), so one org's failing
 * threads, however many, take at most their share of a run, and within an org it reads
 * oldest record first: a retried thread's new pass record moves it behind every thread of
 * its org not tried since, so threads that always fail take turns with the rest. A thread left behind on a turn that
 * ended more than `giveUpAfterNights` days ago is given up (counted in `givenUp`, never
 * enqueued) until a new turn moves its record's latest turn on; so a thread whose retries
 * record nothing cannot hold the front of the scan either.
 *
 * @throws {InvalidOptionError} for an option out of range, or a run that is not a dry run
 *   but has no queue.
 */
export async function runSweep(ports: SweepPorts, options: SweepOptions = {}): Promise<SweepReport> {
  const settings = resolveOptions(options);
  if (!settings.dryRun && ports.queue === undefined) {
    throw new InvalidOptionError("queue: a sweep that is not a dry run needs a queue", "queue");
  }
  const now = ports.clock.now().getTime();
  const run = new SweepRun(ports, settings, new Date(now - settings.settleMinutes * 60_000));
  await run.countGivenUp(new Date(now - settings.giveUpAfterNights * 86_400_000));
  const leftBehind = run.leftBehindScan();
  if (ports.directory === undefined) {
    await run.fill(leftBehind, settings.maxThreads);
  } else {
    // Each scan has its share of the bound, and what one leaves unused passes to the other.
    const lostEvents = run.lostEventScan(ports.directory, new Date(now - settings.lookbackHours * 3_600_000));
    await run.fill(leftBehind, settings.maxThreads - Math.floor(settings.maxThreads / 2));
    await run.fill(lostEvents, settings.maxThreads);
    await run.fill(leftBehind, settings.maxThreads);
    if (lostEvents.hasMore()) run.report.truncated = true;
  }
  if (leftBehind.hasMore()) run.report.truncated = true;
  return run.report;
}

type SweepThreadInput = Omit<SweptThread, "messageId" | "error">;

/** One run of the sweep: its report, its limits, and the two scans that fill it. */
class SweepRun {
  readonly report: SweepReport;

  constructor(
    private readonly ports: SweepPorts,
    private readonly settings: Required<SweepOptions>,
    /** Passes and activity after this are left alone (their own job may still be queued). */
    private readonly settledBefore: Date,
  ) {
    this.report = {
      dryRun: settings.dryRun,
      threads: [],
      byReason: {},
      failed: 0,
      notOwned: 0,
      givenUp: 0,
      truncated: false,
      unreadableActivity: 0,
    };
  }

  /** Threads whose turn ended before `giveUpBefore` are given up: counted, never enqueued. */
  private giveUpBefore = new Date(0);

  async countGivenUp(giveUpBefore: Date): Promise<void> {
    this.giveUpBefore = giveUpBefore;
    this.report.givenUp = await this.ports.store.countLeftBehind({
      recordedBefore: this.settledBefore,
      turnEndedBefore: giveUpBefore,
    });
    this.ports.metrics?.record({ name: "SweepGivenUpThreads", value: this.report.givenUp, unit: "Count" });
  }

  /** Threads enqueued (or attempted) so far, so neither scan sends one twice. */
  private readonly seen = new Set<string>();

  /** Sends one thread's job (not on a dry run) and counts it, or counts the failed send. */
  private async enqueue(thread: SweepThreadInput): Promise<void> {
    const { ports, settings, report } = this;
    const swept: SweptThread = { ...thread };
    report.threads.push(swept);
    this.seen.add(threadKey(thread));
    if (!settings.dryRun && ports.queue) {
      try {
        swept.messageId = (await ports.queue.send(sweepMessage(thread, settings.rawToolChars))).messageId;
      } catch (error) {
        swept.error = error instanceof Error ? error.message : String(error);
        report.failed += 1;
        ports.metrics?.record({ name: "SweepSendFailures", value: 1, unit: "Count" });
        return;
      }
    }
    report.byReason[thread.reason] = (report.byReason[thread.reason] ?? 0) + 1;
    ports.metrics?.record({
      name: "SweptThreads",
      value: 1,
      unit: "Count",
      dimensions: { reason: thread.reason },
    });
  }

  /**
   * Goes on with `scan` until the run has `limit` threads (enqueued or attempted), the scan
   * is exhausted or it has read `maxPages` pages, enqueueing what it makes of each thread.
   */
  async fill(scan: Scan, limit: number): Promise<void> {
    while (this.report.threads.length < limit) {
      const swept = await scan.next();
      if (swept === null) return;
      if (!this.seen.has(threadKey(swept))) await this.enqueue(swept);
    }
  }

  /**
   * With a `threadOwner`: each thread under its owner's org (`replace`), or only those whose
   * org is their owner's (`keep`); the rest are counted in `notOwned`. Without one, as given.
   */
  private async owned<Thread extends { orgId: string; threadId: string }>(
    threads: readonly Thread[],
    mode: "keep" | "replace",
  ): Promise<Thread[]> {
    const owner = this.ports.threadOwner;
    if (owner === undefined) return [...threads];
    const owned: Thread[] = [];
    for (const thread of threads) {
      const ownership = await owner.ownerOf(thread.threadId);
      if (ownership.status === "owned" && (mode === "replace" || ownership.orgId === thread.orgId)) {
        owned.push({ ...thread, orgId: ownership.orgId });
        continue;
      }
      this.report.notOwned += 1;
      this.ports.metrics?.record({ name: "SweepNotOwnedThreads", value: 1, unit: "Count" });
    }
    return owned;
  }

  /** Threads whose pass record left them behind, at their latest turn (or the record's time). */
  leftBehindScan(): Scan {
    return new Scan(this.settings.maxPages, async (cursor) => {
      const found = await this.ports.store.listLeftBehind({
        limit: this.settings.pageSize,
        cursor,
        recordedBefore: this.settledBefore,
        turnEndedSince: this.giveUpBefore,
      });
      const threads = (await this.owned(found.threads, "keep")).map((thread) => ({
        orgId: thread.orgId,
        threadId: thread.threadId,
        reason: thread.reason,
        turnEndedAt: (thread.latestTurnEndedAt ?? thread.recordedAt).toISOString(),
      }));
      return { threads, nextCursor: found.nextCursor };
    });
  }

  /**
   * Threads the directory saw active since `since`, settled, whose pass record saw no turn
   * end at or after the thread's latest turn start (or, where the directory cannot tell
   * turns apart, its latest activity), or that have none: their event was lost. Turn start
   * against turn end, since a turn's last checkpoints may be written after its event (a
   * runtime publishing from inside the run). A thread the run already enqueued is passed
   * over (in {@link fill}).
   */
  lostEventScan(directory: ThreadDirectory, since: Date): Scan {
    return new Scan(this.settings.maxPages, async (cursor) => {
      const found = await directory.listActiveThreads({ since, limit: this.settings.pageSize, cursor });
      if (found.unreadable) {
        this.report.unreadableActivity += found.unreadable;
        this.ports.metrics?.record({
          name: "SweepUnreadableActivity",
          value: found.unreadable,
          unit: "Count",
        });
      }
      const settled = await this.owned(
        found.threads.filter((thread) => thread.lastActivityAt <= this.settledBefore),
        "replace",
      );
      const latestSeen = new Map(
        (await this.ports.store.threadsWithPass(settled)).map((pass) => [
          threadKey(pass),
          pass.latestTurnEndedAt,
        ]),
      );
      const threads = settled.flatMap((thread): SweepThreadInput[] => {
        const seen = latestSeen.get(threadKey(thread));
        if (seen && seen >= (thread.lastTurnStartedAt ?? thread.lastActivityAt)) return [];
        return [
          {
            orgId: thread.orgId,
            threadId: thread.threadId,
            reason: "lost_event",
            turnEndedAt: thread.lastActivityAt.toISOString(),
          },
        ];
      });
      return { threads, nextCursor: found.nextCursor };
    });
  }
}

/**
 * One scan of a run, resumable: it pages on from where it stopped, at most `maxPages`
 * pages, so a run can give each scan its share and come back to one with room left.
 */
class Scan {
  private cursor: string | null = null;
  private pages = 0;
  private exhausted = false;
  private pending: SweepThreadInput[] = [];

  constructor(
    private readonly maxPages: number,
    /** One page: the jobs it yields, and the next page's cursor (null: the last page). */
    private readonly page: (
      cursor: string | null,
    ) => Promise<{ threads: SweepThreadInput[]; nextCursor: string | null }>,
  ) {}

  /** Whether it stopped with threads left to see: a page not finished, or pages not read. */
  hasMore(): boolean {
    return this.pending.length > 0 || !this.exhausted;
  }

  /** The next thread's job, or null when the scan is exhausted or has read its pages. */
  async next(): Promise<SweepThreadInput | null> {
    while (this.pending.length === 0) {
      if (this.exhausted || this.pages >= this.maxPages) return null;
      const found = await this.page(this.cursor);
      this.pages += 1;
      this.pending = found.threads;
      this.cursor = found.nextCursor;
      if (this.cursor === null) this.exhausted = true;
    }
    return this.pending.shift() ?? null;
  }
}

/** The key of an (org, thread) pair; JSON keeps any two strings apart. */
function threadKey(thread: { orgId: string; threadId: string }): string {
  return JSON.stringify([thread.orgId, thread.threadId]);
}
