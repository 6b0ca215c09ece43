import { UsageError } from "../../errors";
import type { Metric } from "../../ports";
import type { FunctionLogger, FunctionMetrics } from "../../worker/observability";
import { settingsUsage } from "../../worker/settings";
import { digestConfigOf } from "../../worker/settings-config";
import type { CliIo } from "../cli-io";
import type { OpsContext } from "./ops-context";
import type { OpenWorker } from "./worker-host";
import { parseWorkerSettings, type WorkerSettings } from "./worker-settings";

/**
 * One JSON object per line, as the Lambda's logger writes them: `level`, `message`,
 * `timestamp`, `service` and the entry's attributes.
 */
export function jsonLineLogger(write: (line: string) => void, service: string): FunctionLogger {
  const entry =
    (level: "INFO" | "WARN" | "ERROR") =>
    (message: string, ...attributes: Record<string, unknown>[]) => {
      write(
        `${JSON.stringify({ level, message, timestamp: new Date().toISOString(), service, ...Object.assign({}, ...attributes) })}\n`,
      );
    };
  return { info: entry("INFO"), warn: entry("WARN"), error: entry("ERROR") };
}

/**
 * Metrics summed per batch and logged at each flush as one `metrics` entry (name, with its
 * dimensions as `name{key=value}`, → sum), since a worker outside Lambda has no EMF agent.
 */
export function loggedMetrics(logger: Pick<FunctionLogger, "info">): FunctionMetrics {
  let sums = new Map<string, number>();
  return {
    record(metric: Metric) {
      const dimensions = Object.entries(metric.dimensions ?? {})
        .map(([key, value]) => `${key}=${value}`)
        .join(",");
      const key = dimensions ? `${metric.name}{${dimensions}}` : metric.name;
      sums.set(key, (sums.get(key) ?? 0) + metric.value);
    },
    flush() {
      if (sums.size === 0) return;
      const metrics = Object.fromEntries(sums);
      sums = new Map();
      logger.info("metrics", { metrics });
    },
  };
}

/** Packages the worker loads: optional peers of this package. */
const WORKER_PACKAGES = [
  "@aws-sdk/client-sqs",
  "@aws-lambda-powertools/batch",
  "pg",
  "@langchain/core",
  "@langchain/langgraph-checkpoint-postgres",
] as const;

/** The turn-lock peek's client, needed only when its Redis is configured: Upstash's, or node-redis. */
const UPSTASH_PACKAGE = "@upstash/redis";
const REDIS_PACKAGE = "redis";

/** Which turn-lock peek the settings configure. */
export function turnLockPeekOf(
  settings: Pick<WorkerSettings, "redis" | "redisUrl">,
): "redis" | "upstash" | "none" {
  if (settings.redisUrl) return "redis";
  return settings.redis ? "upstash" : "none";
}

/**
 * @throws {UsageError} naming every package the worker needs with these settings that is
 *   not installed, with the command that installs them.
 */
export async function requireWorkerPackages(
  settings: Pick<WorkerSettings, "redis" | "redisUrl">,
  load: (name: string) => Promise<unknown> = (name) => import(name),
): Promise<void> {
  const missing: string[] = [];
  const peek = turnLockPeekOf(settings);
  const lockPackages = { redis: [REDIS_PACKAGE], upstash: [UPSTASH_PACKAGE], none: [] }[peek];
  for (const name of [...WORKER_PACKAGES, ...lockPackages]) {
    try {
      await load(name);
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code;
      if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") missing.push(name);
      else throw error;
    }
  }
  if (missing.length > 0) {
    throw new UsageError(
      `the worker needs packages that are not installed: npm install ${missing.join(" ")}`,
    );
  }
}

/**
 * The command line's worker: SQS (or an SQS-compatible endpoint), Postgres, the turn-lock
 * peek's Redis when configured (Upstash's REST API or the Redis protocol), the chosen digester.
 */
export const openWorker: OpenWorker = async (settings, { logger, metrics, environment }) => {
  await requireWorkerPackages(settings);
  const [{ SQSClient }, { createSqsDigestQueue }, { createDigestDependencies }] = await Promise.all([
    import("@aws-sdk/client-sqs"),
    import("../../queue/sqs-queue"),
    import("../../worker/digest-dependencies"),
  ]);
  const client = new SQSClient({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
  });
  const queue = createSqsDigestQueue({
    client,
    queueUrl: settings.queueUrl,
    ...(settings.deadLetterQueueUrl ? { dlqUrl: settings.deadLetterQueueUrl } : {}),
  });
  try {
    const { close, ...dependencies } = await createDigestDependencies(
      digestConfigOf(settings, { logger, metrics, environment }, client),
    );
    if ((settings.digestModel ?? "anthropic") === "anthropic" && !settings.anthropicApiKey) {
      logger.warn("no Anthropic API key: digests are extractive only");
    }
    return {
      queue,
      dependencies,
      async close() {
        await close();
        client.destroy();
      },
    };
  } catch (error) {
    client.destroy();
    throw error;
  }
};

/** Aborted at the process's first SIGTERM or SIGINT (a second one ends it at once, as by default). */
export function processShutdownSignal(): AbortSignal {
  const controller = new AbortController();
  const stop = () => {
    process.off("SIGTERM", stop);
    process.off("SIGINT", stop);
    controller.abort();
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return controller.signal;
}

/** What runs the worker besides its settings: where it reports, when it stops, what it opens. */
export interface WorkerRun {
  io: CliIo;
  /** Aborted when the worker is to stop. */
  shutdown: AbortSignal;
  open?: OpenWorker;
}

function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/**
 * Runs the digest worker until `shutdown`: the Lambda function's handler over batches
 * received from the queue, as Lambda's event source mapping runs it (records the handler
 * reports failed stay in the queue, the rest are deleted). At shutdown it stops receiving,
 * lets the batches in progress finish, closes its connections and resolves.
 */
export async function runWorker(settings: WorkerSettings, run: WorkerRun): Promise<{ invocations: number }> {
  const logger = jsonLineLogger(run.io.stdout, "context-cleaner-worker");
  const metrics = loggedMetrics(logger);
  const opened = await (run.open ?? openWorker)(settings, {
    logger,
    metrics,
    environment: run.io.environment,
  });
  const [{ startLocalWorker }, { describeError }] = await Promise.all([
    import("../../worker/local-worker"),
    import("../../worker/observability"),
  ]);
  const worker = startLocalWorker({
    queue: opened.queue,
    // Each handled failure has its JSON line already; the Lambda's Error objects (a stack on
    // stderr each) are for the SST console's Issues tab, which a worker outside Lambda has not.
    dependencies: { ...opened.dependencies, issues: () => {} },
    batchSize: settings.batchSize,
    waitTimeSeconds: settings.waitTimeSeconds,
    ...(settings.visibilityTimeoutSeconds !== undefined
      ? { visibilityTimeoutSeconds: settings.visibilityTimeoutSeconds }
      : {}),
    functionTimeoutMs: settings.functionTimeoutMs,
    concurrency: settings.concurrency,
    functionName: "context-cleaner-worker",
    onError: (error) => logger.error("worker: a receive, delete or invocation failed", describeError(error)),
  });
  logger.info("worker started", {
    queueUrl: settings.queueUrl,
    batchSize: settings.batchSize,
    waitTimeSeconds: settings.waitTimeSeconds,
    concurrency: settings.concurrency,
    turnLockPeek: turnLockPeekOf(settings),
  });
  await untilAborted(run.shutdown);
  logger.info("worker stopping: no more receives, finishing the batches in progress");
  try {
    await worker.stop();
  } finally {
    await opened.close();
  }
  logger.info("worker stopped", { invocations: worker.invocations });
  return { invocations: worker.invocations };
}

const WORKER_USAGE = `Usage: context-cleaner worker [flags]

Runs the digest function's handler outside Lambda: receives batches from the digest queue
(long polling), runs one digest job per record, deletes the records that finished and leaves
the others to the queue, as Lambda's event source mapping does. Logs JSON lines on stdout.
SIGTERM or SIGINT: stops receiving, finishes the batches in progress, exits 0.

Settings (a flag wins over its environment variable):
${settingsUsage("worker")}

AWS credentials come from the AWS SDK's usual places (AWS_ACCESS_KEY_ID, a profile, a role).`;

/**
 * `context-cleaner worker`: the digest function outside Lambda, polling its queue until
 * SIGTERM or SIGINT. Settings from flags or the environment (the settings table, `SETTINGS`),
 * all checked before anything is opened.
 */
export async function workerCommand(args: string[], context: OpsContext): Promise<void> {
  if (args.length === 1 && (args[0] === "--help" || args[0] === "-h")) {
    context.io.stdout(`${WORKER_USAGE}\n`);
    return;
  }
  const settings = parseWorkerSettings(args, context.io.environment);
  await runWorker(settings, {
    io: context.io,
    shutdown: context.shutdown?.() ?? processShutdownSignal(),
    ...(context.openWorker ? { open: context.openWorker } : {}),
  });
}
