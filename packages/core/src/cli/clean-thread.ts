import {
  type AssembledView,
  assembleModelView,
  type DigestMap,
  effectiveToolChars,
  type Message,
  type ToolPolicyInput,
  validateThread,
} from "@context-cleaner/assembler";
import { killSwitchFromEnvironment, type ToolPolicy } from "@context-cleaner/assembler/internal";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { systemClock } from "../clock";
import type { DigestJobOptions } from "../job/options";
import type { DigestJobOutcome } from "../job/outcome";
import { parseDigestJobPayload } from "../job/payload";
import { runDigestJob } from "../job/run-digest-job";
import type { DigestModel, DigestStore } from "../ports";
import { createInMemoryDigestStore } from "../stores/in-memory-digest-store";

/** Defaults of a one-shot clean: every candidate is digested in one run, nothing waits. */
export const CLEAN_THREAD_DEFAULTS = {
  orgId: "local",
  threadId: "thread",
  /** Passes run until nothing is deferred, at most this many. */
  maxPasses: 50,
} as const;

export interface CleanThreadOptions {
  digester: DigestModel;
  policy?: ToolPolicy | ToolPolicyInput;
  /** Digest job options; a one-shot clean triggers on any size and writes any saving. */
  job?: Partial<DigestJobOptions>;
  /**
   * A database URL (`postgres://…`, a Neon host, `pglite://[dir]`) to keep the digests in.
   * @default none: an in-memory store, no database started
   */
  databaseUrl?: string;
  /**
   * The kill switch: no digest pass runs and assembly returns what the backstop alone
   * returns. Defaults to `CONTEXT_CLEANER_DISABLED=1` in `process.env`.
   */
  disabled?: boolean;
}

export interface CleanedThread {
  view: AssembledView;
  /** The digests the view was assembled with (to assemble the same thread in another format). */
  digests: DigestMap;
  /** The digest passes run, in order. */
  passes: DigestJobOutcome[];
}

/** A store to run on, and how to release it. */
interface OpenedStore {
  store: DigestStore;
  close(): Promise<void>;
}

/** The in-memory store, or the storage package's repository on `url` (loaded only then). */
async function openStore(url: string | undefined): Promise<OpenedStore> {
  if (url === undefined) return { store: createInMemoryDigestStore(), close: async () => {} };
  const { createDatabase, createDigestRepository } = await import("@context-cleaner/db");
  const database = await createDatabase(url);
  try {
    await database.migrate();
  } catch (error) {
    await database.close();
    throw error;
  }
  return { store: createDigestRepository(database), close: () => database.close() };
}

/**
 * The whole product in one process: the worker's digest passes over a thread (on an
 * in-memory store unless a database URL is given), then the runtime's assembly with the
 * digests loaded in one query. What the CLI's `clean` runs.
 *
 * @throws {InvalidThreadError} when `messages` is not a well-formed thread (naming the
 *   message and field, e.g. args holding a BigInt or a cycle), before any work.
 */
export async function cleanThread(
  messages: readonly Message[],
  options: CleanThreadOptions,
): Promise<CleanedThread> {
  validateThread(messages);
  const { store, close } = await openStore(options.databaseUrl);
  try {
    const { orgId, threadId } = CLEAN_THREAD_DEFAULTS;
    const disabled = options.disabled ?? killSwitchFromEnvironment();
    const ports = {
      checkpoints: createInMemoryCheckpointReader(new Map([[threadId, messages]])),
      store,
      digester: options.digester,
      clock: systemClock,
    };
    const jobOptions = {
      triggerChars: 0,
      minCharsPerPass: 0,
      ...options.job,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(disabled ? { disabled } : {}),
    };
    const passes: DigestJobOutcome[] = [];
    const rawToolChars = effectiveToolChars(messages, null).rawChars;
    const started = systemClock.now().getTime();
    for (let pass = 0; pass < CLEAN_THREAD_DEFAULTS.maxPasses; pass++) {
      // Each pass stands for a later turn end (1 ms apart, from now: later than any earlier
      // clean's on the same database) so coalescing lets it run.
      const turnEndedAt = new Date(started + pass).toISOString();
      const payload = parseDigestJobPayload({ orgId, threadId, rawToolChars, turnEndedAt });
      const outcome = await runDigestJob(payload, ports, jobOptions);
      passes.push(outcome);
      if (outcome.status !== "partial" || outcome.reason !== "call_cap") break;
    }
    const digests = await store.loadThreadDigests(orgId, threadId);
    const view = assembleModelView(messages, digests, {
      disabled,
      ...(options.policy ? { policy: options.policy } : {}),
    });
    return { view, digests, passes };
  } finally {
    await close();
  }
}
