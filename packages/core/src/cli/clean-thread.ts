import {
  type AssembledView,
  assembleModelView,
  effectiveToolChars,
  killSwitchFromEnvironment,
  type Message,
  type ToolPolicy,
  type ToolPolicyInput,
} from "@context-cleaner/assembler";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { createInMemoryCheckpointReader } from "../checkpoints/in-memory-checkpoint-reader";
import { systemClock } from "../clock";
import type { DigestJobOptions } from "../job/options";
import type { DigestJobOutcome } from "../job/outcome";
import { runDigestJob } from "../job/run-digest-job";
import type { DigestModel, DigestStore } from "../ports";

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
  /** A database URL; embedded in-memory PGlite when absent. */
  databaseUrl?: string;
  /**
   * The kill switch: no digest pass runs and assembly returns what the backstop alone
   * returns. Defaults to `CONTEXT_CLEANER_DISABLED=1` in `process.env`.
   */
  disabled?: boolean;
}

export interface CleanedThread {
  view: AssembledView;
  /** The digest passes run, in order. */
  passes: DigestJobOutcome[];
}

/**
 * The whole product in one process: the worker's digest passes over a thread (embedded
 * PGlite unless a URL is given), then the runtime's assembly with the digests loaded in
 * one query. What the CLI's `clean` and `demo` run.
 */
export async function cleanThread(
  messages: readonly Message[],
  options: CleanThreadOptions,
): Promise<CleanedThread> {
  const database = await createDatabase(options.databaseUrl);
  try {
    await database.migrate();
    const store = createDigestRepository(database);
    const { orgId, threadId } = CLEAN_THREAD_DEFAULTS;
    const disabled = options.disabled ?? killSwitchFromEnvironment();
    const ports = {
      checkpoints: createInMemoryCheckpointReader(new Map([[threadId, messages]])),
      store: store satisfies DigestStore,
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
    for (let pass = 0; pass < CLEAN_THREAD_DEFAULTS.maxPasses; pass++) {
      // Each pass stands for a later turn end so coalescing lets it run.
      const turnEndedAt = new Date(Date.UTC(2000, 0, 1) + pass * 1000).toISOString();
      const outcome = await runDigestJob({ orgId, threadId, rawToolChars, turnEndedAt }, ports, jobOptions);
      passes.push(outcome);
      if (outcome.status !== "partial" || outcome.reason !== "call_cap") break;
    }
    const digests = await store.loadThreadDigests(orgId, threadId);
    const view = assembleModelView(messages, digests, {
      disabled,
      ...(options.policy ? { policy: options.policy } : {}),
    });
    return { view, passes };
  } finally {
    await database.close();
  }
}
