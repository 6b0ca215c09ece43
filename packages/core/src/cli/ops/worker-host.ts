import type { DigestQueue } from "../../queue/digest-queue";
import type { DigestHandlerDependencies } from "../../worker/digest-handler";
import type { FunctionLogger, FunctionMetrics } from "../../worker/observability";
import type { WorkerSettings } from "../../worker/settings";

/** What the worker reports through: JSON lines on stdout. */
export interface WorkerReporting {
  logger: FunctionLogger;
  metrics: FunctionMetrics;
  environment: Record<string, string | undefined>;
}

/** The queue the worker polls and the handler's dependencies, opened from the settings. */
export interface OpenedWorker {
  queue: DigestQueue;
  dependencies: Omit<DigestHandlerDependencies, "queue">;
  close(): Promise<void>;
}

/** Opens what the worker runs on; the command line's opens SQS and the databases. */
export type OpenWorker = (settings: WorkerSettings, reporting: WorkerReporting) => Promise<OpenedWorker>;
