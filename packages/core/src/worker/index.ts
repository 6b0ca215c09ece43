/**
 * `@context-cleaner/core/worker`: the digest worker and the sweep as the deployed functions
 * run them, for any host: the SQS partial-batch handler of digest jobs and the dependencies
 * it runs on (built from configuration values), the polling loop that plays Lambda's SQS
 * event source outside Lambda, the sweep's handler and dependencies, the settings table
 * they read, and the logger and metrics contracts they report through. `context-cleaner
 * worker` and `context-cleaner sweep` run them from the command line; the Lambda functions
 * wrap them too.
 */
export { createDigestDependencies, type DigestConfig } from "./digest-dependencies";
export {
  createDigestHandler,
  type DigestHandler,
  type DigestHandlerDependencies,
  PoisonRecordError,
  RecordHandedBack,
} from "./digest-handler";
export { DIGEST_HANDLER_DEFAULTS, type Disposition, dispositionOf, REQUEUE_RULES } from "./disposition";
export { inProcessSqsClient } from "./in-process-sqs-client";
export { lambdaContext } from "./lambda-context";
export {
  deliverOnce,
  invokeBatch,
  type LocalWorker,
  type LocalWorkerOptions,
  startLocalWorker,
} from "./local-worker";
export {
  consoleIssues,
  describeError,
  FunctionIssue,
  type FunctionLogger,
  type FunctionMetrics,
  METRICS_NAMESPACE,
  powertoolsMetrics,
} from "./observability";
export {
  readSweepSettings,
  readWorkerSettings,
  SETTINGS,
  type SweepSettings,
  settingRows,
  settingsTableMarkdown,
  settingsUsage,
  type WorkerSettings,
} from "./settings";
export { digestConfigOf, sweepConfigOf } from "./settings-config";
export { sqsEvent } from "./sqs-event";
export { createSweepDependencies, type SweepConfig } from "./sweep-dependencies";
export { createSweepHandler, type SweepHandler, SweepSendError } from "./sweep-handler";
